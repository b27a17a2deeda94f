"""Discovery across network namespaces, and the host's key made at its first start.

    python bench/discovery.py              [--runs 20] [--keys 200]
    python bench/discovery.py keys         [--keys 200]     # no namespaces needed

Discovery (root, `ip netns`): a host namespace on two bridges (10.79.1.1 and
10.79.2.1), `lanmatch host` running there bound to every address (so it
advertises both); a peer namespace on each bridge. Each run starts a fresh
Python process in a peer namespace (alternately on either bridge), as
`lanmatch join` does, and times two things:

- browse start -> host listed: from entering `lanmatch.net.discovery.Browser`
  to the host in `Browser.hosts` (mDNS answer, resolution, and the TLS check
  of its address on that peer's side), inside the process;
- process start -> host listed: the same seen from outside, from spawning
  the process (`ip netns exec`, Python and lanmatch's imports included).

Keys: `lanmatch.net.tls.Identity.make` (an EC P-256 key and its self-signed
certificate) `--keys` times, and `Identity.load_or_make` into a fresh
directory (the same, written to disk), medians. Namespaces are made with a
unique prefix and removed at the end, whatever happens. See bench/README.md,
"Discovery and TLS".
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from _netns import Net, can_make_namespaces  # noqa: E402

ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}

PEER = """
import json, sys, time
t0 = time.perf_counter()
import trio
from lanmatch.net.discovery import Browser
async def main():
    t = time.perf_counter()
    async with Browser() as b:
        h = await b.first(10)
    print(json.dumps({"browse": time.perf_counter() - t, "imports": t - t0,
                      "address": h and h.address, "addresses": h and h.addresses}), flush=True)
trio.run(main)
"""


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p / 100 * len(s)))]


def ms(x: float) -> str:
    return f"{x * 1000:.0f} ms"


def keys(n: int) -> dict:
    from lanmatch.net.tls import Identity

    made = []
    for _ in range(n):
        t = time.perf_counter()
        Identity.make("bench host")
        made.append(time.perf_counter() - t)
    kept = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(max(1, n // 4)):
            t = time.perf_counter()
            Identity.load_or_make(Path(tmp) / str(i), "bench host")
            kept.append(time.perf_counter() - t)
    res = {"make_p50": statistics.median(made), "make_p90": pct(made, 90), "make_max": max(made),
           "kept_p50": statistics.median(kept), "kept_max": max(kept), "runs": n}
    print(f"host key at first start ({n} runs; load_or_make {len(kept)} runs, fresh directories)")
    print(f"  Identity.make (EC P-256 key + self-signed certificate): median {res['make_p50'] * 1e3:.2f} ms"
          f"  p90 {res['make_p90'] * 1e3:.2f} ms  max {res['make_max'] * 1e3:.2f} ms")
    print(f"  Identity.load_or_make into a new directory (made, written): median {res['kept_p50'] * 1e3:.2f} ms"
          f"  max {res['kept_max'] * 1e3:.2f} ms")
    return res


def discovery(runs: int) -> dict:
    why = can_make_namespaces()
    if why is not None:
        print(f"discovery across namespaces SKIPPED: {why}")
        return {}
    net = Net(prefix="lb", env=ENV)
    host = None
    try:
        a, b = net.switch("swa"), net.switch("swb")
        h, pa, pb = net.ns("host"), net.ns("pa"), net.ns("pb")
        net.plug(h, a, "eth0", "10.79.1.1/24")
        net.plug(h, b, "eth1", "10.79.2.1/24", multicast_route=False)
        net.plug(pa, a, "eth0", "10.79.1.11/24")
        net.plug(pb, b, "eth0", "10.79.2.11/24")
        with tempfile.TemporaryDirectory() as tmp:
            host = subprocess.Popen(["ip", "netns", "exec", h, sys.executable, "-m", "lanmatch", "host", "--name",
                                     "Bench", "--data", tmp], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    text=True, env=ENV)
            assert host.stdout is not None
            while not (line := host.stdout.readline()).startswith("advertised"):
                if not line:
                    raise RuntimeError("the host stopped before it was advertised")
            browse, whole, imports, wrong = [], [], [], 0
            for i in range(runs):
                peer, mine = (pa, "10.79.1.1") if i % 2 == 0 else (pb, "10.79.2.1")
                t = time.perf_counter()
                r = subprocess.run(["ip", "netns", "exec", peer, sys.executable, "-c", PEER], capture_output=True,
                                   text=True, timeout=30, env=ENV)
                got = json.loads(r.stdout.strip().splitlines()[-1])
                if got["address"] is None:
                    raise RuntimeError(f"run {i}: no host found: {r.stderr[-500:]}")
                whole.append(time.perf_counter() - t)
                browse.append(got["browse"])
                imports.append(got["imports"])
                wrong += got["address"] != mine
            host.send_signal(signal.SIGINT)
            host.wait(timeout=15)
    finally:
        if host is not None and host.poll() is None:
            host.kill()
            host.wait()
        net.close()
    res = {"runs": runs, "browse_p50": statistics.median(browse), "browse_p90": pct(browse, 90),
           "browse_max": max(browse), "whole_p50": statistics.median(whole), "whole_max": max(whole),
           "imports_p50": statistics.median(imports), "wrong_address": wrong}
    print(f"discovery across namespaces: a host on two bridges, {runs} fresh peer processes (half on each bridge)")
    print(f"  browse start -> host listed (mDNS + TLS check): median {ms(res['browse_p50'])}"
          f"  p90 {ms(res['browse_p90'])}  max {ms(res['browse_max'])}")
    print(f"  process start -> host listed (ip netns exec, imports): median {ms(res['whole_p50'])}"
          f"  max {ms(res['whole_max'])}  (imports {ms(res['imports_p50'])})")
    print(f"  listed at the peer's own bridge's address: {runs - wrong}/{runs}")
    return res


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", nargs="?", choices=["all", "keys", "discovery"], default="all")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--keys", type=int, default=200)
    args = p.parse_args()
    if args.what in ("all", "discovery"):
        discovery(args.runs)
    if args.what in ("all", "keys"):
        keys(args.keys)


if __name__ == "__main__":
    main()
