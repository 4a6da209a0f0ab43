#!/usr/bin/env python3
"""Write and fsync a known data set continuously; verify it at the end.

workload.py FILE BLOCKS HEARTBEAT STOPFILE RESULT

Write i puts block (i mod BLOCKS) of FILE, 64 KiB of a pattern derived from i, then fsyncs.
HEARTBEAT holds "WRITES ERRORS": the completed writes and the failed ones so far (tmpfs; read by
the scenario to see progress, a stall, or errors while the workload still runs). Once STOPFILE
exists: the file's page cache dropped, every block read back and compared with the pattern of the
last write that completed for it. RESULT gets shell assignments: writes, errors, max_stall_ms
(longest single write+fsync), verified (yes/no: the read-back through this kernel client), and
expected_sha256 and expected_size: the file as the completed writes left it, computed from what
was written (never from what was read), for a check from Ceph's side by another client.
"""
import hashlib
import os
import sys
import time

BS = 64 * 1024


def pattern(i):
    return hashlib.sha256(str(i).encode()).digest() * (BS // 32)


def main():
    path, blocks, hb, stop, result = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    last = {}
    writes = errors = 0
    max_stall = 0.0
    i = 0
    while not os.path.exists(stop):
        blk = i % blocks
        t0 = time.monotonic()
        try:
            os.pwrite(fd, pattern(i), blk * BS)
            os.fsync(fd)
            last[blk] = i
            writes += 1
        except OSError as e:
            errors += 1
            print(f"write {i}: {e}", flush=True)
            time.sleep(0.2)
        max_stall = max(max_stall, time.monotonic() - t0)
        with open(hb + ".tmp", "w") as f:
            f.write(f"{writes} {errors}")
        os.replace(hb + ".tmp", hb)
        i += 1
        # Continuous, but leaving the (emulated) CPUs to the restarts the scenario makes meanwhile.
        time.sleep(0.02)
    # Only this file: a global sync or drop_caches would wait on any stalled mapping of the node
    # (a control's, which the VM keeps).
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    verified = "yes"
    with open(path, "rb") as f:
        for blk, i in sorted(last.items()):
            f.seek(blk * BS)
            if f.read(BS) != pattern(i):
                verified = "no"
                print(f"block {blk}: does not hold write {i}", flush=True)
    # Blocks never written are a hole: zeros when read.
    expected = hashlib.sha256()
    size = (max(last) + 1) * BS if last else 0
    for blk in range(size // BS):
        expected.update(pattern(last[blk]) if blk in last else bytes(BS))
    print(f"workload: writes {writes}, errors {errors}, max_stall_ms {int(max_stall * 1000)}, verified {verified}, "
          f"expected sha256 {expected.hexdigest()} of {size} bytes", flush=True)
    with open(result + ".tmp", "w") as f:
        f.write(f"writes={writes}\nerrors={errors}\nmax_stall_ms={int(max_stall * 1000)}\nverified={verified}\n"
                f"expected_sha256={expected.hexdigest()}\nexpected_size={size}\n")
    os.replace(result + ".tmp", result)


if __name__ == "__main__":
    main()
