# shellcheck shell=bash
# krbd control: the same map made from the plugin's own namespace (net1 on storage, no holder),
# as ceph-csi does without a netNamespaceFilePath. At the first plugin restart the namespace the
# kernel client's sessions live in loses its interfaces and is deleted: the I/O must stall, for
# that reason and no other (ktest_control), or the test fails — it could not have caught a broken
# holder. Cleanup: `rbd unmap -o noudev,force`, bounded.
# figure: kernel.krbd.control
ktest_krbd_control kernel.krbd.control kctl
