#!/usr/bin/env python3
"""Write a known data set straight to a mapped rbd device; keep what the cluster acknowledged.

fence_workload.py DEVICE BLOCKS HEARTBEAT STOPFILE STATE
fence_workload.py --expected STATE

Write i puts block (i mod BLOCKS) of DEVICE, the pattern of workload.py's write i, with O_DIRECT
and O_DSYNC from one page-aligned 64 KiB buffer: one request, one OSD write (an object holds 4 MiB
and a block never straddles two), and krbd has no cache, so a write that completed is one the
cluster committed, and one that failed reached nothing. No file system: a fenced client cannot
unmount one cleanly, and what the cluster holds must be readable without replaying a journal.

After every write, STATE gets "WRITES ERRORS MAX_STALL_MS" and the last completed write of each
block, and HEARTBEAT "WRITES ERRORS" (as workload.py's, for guest/lib.sh's waits). Both are kept
current write by write, since a fenced write may block in the kernel and the process never get to
say anything more. It stops once STOPFILE exists; nothing is read back through this client (a
fenced one cannot). --expected prints, as shell assignments, the counts and the SHA-256 and size
of the blocks as the completed writes left them (never written: zeros), for a check from Ceph's
side by another client.
"""
import hashlib
import mmap
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workload import BS, pattern  # noqa: E402  (the same data set as the file-system runs)


def save(path, writes, errors, max_stall, last):
    with open(path + ".tmp", "w") as f:
        f.write(f"{writes} {errors} {int(max_stall * 1000)}\n")
        f.write(" ".join(f"{blk}:{i}" for blk, i in sorted(last.items())) + "\n")
    os.replace(path + ".tmp", path)


def expected(path):
    with open(path) as f:
        writes, errors, max_stall = f.readline().split()
        last = {int(b): int(i) for b, i in (e.split(":") for e in f.readline().split())}
    digest = hashlib.sha256()
    size = (max(last) + 1) * BS if last else 0
    for blk in range(size // BS):
        digest.update(pattern(last[blk]) if blk in last else bytes(BS))
    print(f"writes={writes}\nerrors={errors}\nmax_stall_ms={max_stall}\n"
          f"expected_sha256={digest.hexdigest()}\nexpected_size={size}")


def main():
    dev, blocks, hb, stop, state = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT | os.O_DSYNC)
    buf = mmap.mmap(-1, BS)  # anonymous: page-aligned, as O_DIRECT needs
    last = {}
    writes = errors = 0
    max_stall = 0.0
    i = 0
    while not os.path.exists(stop):
        blk = i % blocks
        buf[:] = pattern(i)
        t0 = time.monotonic()
        try:
            n = os.pwrite(fd, buf, blk * BS)
            if n != BS:
                raise OSError(f"short write: {n} of {BS} bytes")
            last[blk] = i
            writes += 1
        except OSError as e:
            errors += 1
            print(f"write {i} (block {blk}): {e}", flush=True)
            time.sleep(0.2)
        max_stall = max(max_stall, time.monotonic() - t0)
        # The state before the heartbeat: whoever reads N writes in the heartbeat finds them all.
        save(state, writes, errors, max_stall, last)
        with open(hb + ".tmp", "w") as f:
            f.write(f"{writes} {errors}")
        os.replace(hb + ".tmp", hb)
        i += 1
        time.sleep(0.02)
    os.close(fd)
    print(f"fence workload: writes {writes}, errors {errors}, max_stall_ms {int(max_stall * 1000)}", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "--expected":
        expected(sys.argv[2])
    else:
        main()
