"""What one loopback `write` costs this machine: the floor under every frame the host sends.

    python bench/sendcost.py [--writes 3000]

A reader process sleeps in `recv` on 127.0.0.1; the writer sends 250-byte
frames to it, first back to back ("burst": the reader is awake, the kernel
only copies), then one every 0.5 ms ("paced": every write wakes a sleeping
reader, as each view to a seat does). Per write: wall time, and the writer's
user and kernel CPU time (`getrusage`). The paced wall time is mostly the
0.5 ms sleep; its CPU times are the figures. Traffic: 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--writes", type=int, default=3000)
    args = ap.parse_args()
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    pid = os.fork()
    if pid == 0:
        c = socket.create_connection(srv.getsockname())
        while c.recv(65536):
            pass
        os._exit(0)
    s, _ = srv.accept()
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    data = b"x" * 250
    for mode, n, pause in (("burst", args.writes * 5, 0.0), ("paced", args.writes, 0.0005)):
        r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        for _ in range(n):
            s.send(data)
            if pause:
                time.sleep(pause)
        t1, r1 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
        print(f"{mode}: {n} writes, per write: wall {(t1 - t0) / n * 1e6:.1f} µs, "
              f"user {(r1.ru_utime - r0.ru_utime) / n * 1e6:.1f} µs, kernel {(r1.ru_stime - r0.ru_stime) / n * 1e6:.1f} µs")
    s.close()
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
