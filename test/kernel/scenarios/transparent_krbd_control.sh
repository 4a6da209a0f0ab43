# shellcheck shell=bash
# Transparent mode's control: the node as transparent_krbd_holder sets it up — the holder running,
# config.json with the monitors only, the plugin's environment — but no `rbd` shim on PATH, so
# ceph-csi's same plain `rbd ... map` is the real rbd in the plugin's own namespace (net1 on
# storage). At the first plugin restart the I/O must stall, for that reason and no other
# (ktest_control): without the shim, the holder alone saves nothing.
# figure: kernel.transparent.krbd.control
ktest_holder_start monitors-only
ktest_krbd_control kernel.transparent.krbd.control tkctl
