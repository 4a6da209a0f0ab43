# shellcheck shell=bash
# Host side of the kernel suite: the state the fixture leaves for the scenarios.
# Needs test/e2e/lib/common.sh.
KTEST_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KVM_LIB=$KTEST_SRC/lib
: "${KTEST_BUILD_DIR:?KTEST_BUILD_DIR (the build tree) must be set; ctest sets it}"
KTEST_DIR=$KTEST_BUILD_DIR/test/kernel
KTEST_RUN=$KTEST_DIR/run
KTEST_STATE=$KTEST_RUN/state.env
KTEST_FIGURES=$KTEST_DIR/kernel-figures.txt
KTEST_INITRD=$KTEST_DIR/vm/initrd.cpio.gz

ktest_require_root() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "kernel: needs root (it creates network namespaces, a tap device and a VM); skipped"
    exit 77
  fi
}

# ktest_figure_put FILE LINE — replace the figure with LINE's key ("FIGURE kernel.x:") by LINE.
ktest_figure_put() {
  local file=$1 line=$2 key
  key=${line%%:*}
  touch "$file"
  { grep -vF "$key:" "$file" || [ $? -eq 1 ]; echo "$line"; } >"$file.tmp"
  mv "$file.tmp" "$file"
}

# The kernel suite has one deadline, set by kernel.setup: every scenario (and the VM's boot) must
# end by then, so the whole suite takes at most this long however many scenarios it has: 75 min.
# Seven scenarios took 7 min on two idle cores; on two cores shared with other builds (load
# ~20), under TCG, the first seven took 29 min and the three transparent-mode ones add about
# 15 min (11 min measured at load ~12), so 60 min leaves a third of the deadline free there.
# The eight scenarios with the real ceph-csi (10 plugin restarts per holder run, csi-sanity's two
# runs, the bench) add about 27 min at load ~4-5 (test/kernel/README.md): 75 min keeps a margin.
# The three fault scenarios add about 4 min on idle cores (their flaps and waits are wall-clock:
# ~2.5 min of the 4 do not slow down under load), within that margin. The five library-mode
# scenarios (integrations/ceph-csi: four holder/control runs and csi-sanity's differential) add
# about 14 min at load ~4: 85 min keeps the margin (an idle CI run's whole suite is far below).
KTEST_SUITE_LIMIT=${KTEST_SUITE_LIMIT:-5100}

# ktest_time_left — seconds until the suite's deadline (KTEST_DEADLINE, from state.env).
ktest_time_left() { echo $((${KTEST_DEADLINE:?the kernel fixture set no deadline} - $(date +%s))); }

# --- Checks from Ceph's side (the host's half of guest/lib.sh's ktest_expect_*) --------------
# ktest_verify_from_ceph WORK KIND ARGS... — read what a scenario wrote back from the host's
# cluster with a userspace client, inside the cluster's namespace, and compare its SHA-256 with
# the one the guest's workload computed from its writes. Prints what it read; 0 if they match.
#   rbd-ext4 POOL/IMAGE PATH SHA256 SIZE   rbd export, then PATH from the ext4 image (debugfs)
#   cephfs POOL INODE OBJECT_SIZE SHA256 SIZE  the file's objects INODE.N with rados get
#   rbd-raw POOL/IMAGE SHA256 SIZE         rbd export; the image's first SIZE bytes, zeros after
# Needs test/e2e/lib/ceph.sh and the cluster's env (E2E_CEPH_DIR, E2E_CEPH_NETNS).
ktest_verify_from_ceph() {
  local work=$1 kind=$2 file=$1/file sha size got
  shift 2
  rm -rf "$work"
  mkdir -p "$work"
  case $kind in
    rbd-ext4)
      local spec=$1 path=$2
      sha=$3 size=$4
      e2e_ceph_run "$E2E_CEPH_DIR" "$E2E_CEPH_NETNS" rbd --client-mount-timeout 10 export --no-progress \
        "$spec" "$work/image" >"$work/log" 2>&1 || { cat "$work/log"; echo "rbd export $spec failed"; return 1; }
      # debugfs reads the file system image in userspace; it exits 0 whatever it found, so the
      # file it wrote is what tells.
      debugfs -R "dump -p $path $file" "$work/image" >>"$work/log" 2>&1
      [ -f "$file" ] || { cat "$work/log"; echo "debugfs found no $path in $spec"; return 1; }
      ;;
    rbd-raw)
      local spec=$1 nonzero
      sha=$2 size=$3
      e2e_ceph_run "$E2E_CEPH_DIR" "$E2E_CEPH_NETNS" rbd --client-mount-timeout 10 export --no-progress \
        "$spec" "$work/image" >"$work/log" 2>&1 || { cat "$work/log"; echo "rbd export $spec failed"; return 1; }
      head -c "$size" "$work/image" >"$file"
      # Nothing was written past SIZE: a write that reached the image elsewhere shows here.
      nonzero=$(tail -c +"$((size + 1))" "$work/image" | tr -d '\0' | wc -c)
      [ "$nonzero" -eq 0 ] || { echo "$spec holds $nonzero non-zero bytes after its first $size"; return 1; }
      ;;
    cephfs)
      local pool=$1 ino=$2 objsize=$3 n i obj
      sha=$4 size=$5
      n=$(((size + objsize - 1) / objsize))
      : >"$file"
      for ((i = 0; i < n; i++)); do
        obj=$(printf '%s.%08x' "$ino" "$i")
        if e2e_ceph_run "$E2E_CEPH_DIR" "$E2E_CEPH_NETNS" rados --client-mount-timeout 10 -p "$pool" \
          get "$obj" "$work/obj" >"$work/log" 2>&1; then
          dd if="$work/obj" of="$file" bs="$objsize" seek="$i" conv=notrunc status=none
        elif ! grep -q 'No such file or directory' "$work/log"; then
          cat "$work/log"
          echo "rados get $pool/$obj failed"
          return 1
        fi
        # A missing object is a hole of the file: zeros, as CephFS reads it.
      done
      truncate -s "$size" "$file"
      ;;
    *) echo "unknown check from Ceph's side: $kind"; return 1 ;;
  esac
  local got_size
  got=$(sha256sum "$file" | cut -d' ' -f1)
  got_size=$(stat -c %s "$file")
  echo "read from Ceph ($kind $*): $got_size bytes, sha256 $got; the guest wrote $size bytes, sha256 $sha"
  rm -rf "$work"
  [ "$got" = "$sha" ] && [ "$got_size" = "$size" ]
}

# --- What a scenario asks of the host's cluster ("# needs: WHAT" lines, run.sh) ---------------
# ktest_ceph_mgr_ensure — a ceph-mgr in the fixture's cluster (its scope, stopped with it), active;
# with a CephFS, its subvolume group "csi" too. Started by the first scenario that needs it (the
# real ceph-csi: its DeleteVolume adds an `rbd task` on the mgr, its CephFS CreateVolume makes a
# subvolume in that group through the mgr's volumes module); the others run without one.
# Needs test/e2e/lib/ceph.sh and the cluster's env.
ktest_ceph_mgr_ensure() {
  local dir=$E2E_CEPH_DIR ns=$E2E_CEPH_NETNS scope=$KTEST_RUN/cluster t0=$SECONDS
  if ! e2e_tracked_pid "$scope" "$ns.mgr.x" >/dev/null; then
    mkdir -p "$dir/mgr/ceph-x"
    e2e_ceph "$dir" "$ns" auth get-or-create mgr.x mon 'allow profile mgr' osd 'allow *' mds 'allow *' \
      -o "$dir/mgr/ceph-x/keyring" || e2e_die "cannot make mgr.x's key"
    e2e_spawn "$scope" "$ns.mgr.x" "$ns" "$dir/log/mgr.x.out" ceph-mgr -f -c "$dir/ceph.conf" -i x \
      --mgr-data "$dir/mgr/ceph-x" --log-file "$dir/log/mgr.x.log"
  fi
  e2e_wait_until 90 "an active ceph-mgr in $ns" ktest__mgr_available "$dir" "$ns" ||
    e2e_die "ceph-mgr did not become active; see $dir/log/mgr.x.log"
  if [ -n "${E2E_CEPH_FS:-}" ]; then
    # The volumes module answers a little after the mgr is active.
    e2e_wait_until 90 "the CephFS subvolume group csi" \
      e2e_ceph "$dir" "$ns" fs subvolumegroup create "$E2E_CEPH_FS" csi ||
      e2e_die "cannot create the subvolume group csi in $E2E_CEPH_FS; see $dir/log/mgr.x.log"
  fi
  e2e_log "ceph-mgr active ($((SECONDS - t0))s)"
}
ktest__mgr_available() {
  [ "$(e2e_ceph "$1" "$2" mgr stat -f json | jq -r .available)" = true ]
}
