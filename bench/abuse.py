"""A legit peer's action round trip on a host under attack (issue 13), side by side.

    python bench/abuse.py [--seconds 6] [--actions 0] [--cap 1000] [--only ATTACK ...]
    ABUSE_PROFILE=host.prof python bench/abuse.py --only idle   # the host under cProfile

The host runs in its own process (`_host`), each attack in another
(`_attack NAME`), the measured peers in this one: two raw peers at a 2-seat
Classic table taking turns (`bench/net.py` `TwoSeats`), each action timed
from `act` sent to the actor's new view. Phases, one after another in one
run: quiet, then each attack of issue 13 that the host can be sent:

- idle:      connections that never say hello, up to the host's cap (and
             reconnecting when they are evicted or time out);
- slowframe: 500 connections that say hello, then drip a frame a byte every 3 s;
- passwords: 16 connections sending `join` with a wrong password as fast as
             the host answers;
- list:      16 connections sending `list` as fast as the host answers;
- rooms:     4 connections creating a room, starting it and leaving, in a loop
             (last: the rooms it leaves behind stay);
- after:     quiet again, after every attack (what they left behind).

Before each attack a quiet slice of `--quiet-seconds` is timed too: the
quiet p99 the attacks are compared with is that of every quiet sample pooled
(the first phase and each slice), because this machine's load moves in a
run; each attack is also shown against its own slice. Each phase: the
attack warms up, then round trips are timed for `--seconds` (or until
`--actions` of them), and five new peers time their connect + `hello` ->
`welcome` (a refused one is counted). The host's RSS is read from /proc
before and after every phase. Every attacker comes from 127.0.0.1: the
host's per-address cap is raised to its total cap so that one address can
stand for many (the per-address cap is tested in tests/test_hostile_conns.py).
The host keeps its other limits at their defaults. Traffic goes to
127.0.0.1 only; every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("LANMATCH_BENCH_PLAIN", "1")  # bench/net.py's peers speak plain TCP to this plain host

from net import LOOPBACK, Raw, TwoSeats, pct, wait_stdin_closed  # noqa: E402

from lanmatch.net.host import Host, raise_nofile_limit  # noqa: E402
from lanmatch.protocol import PROTOCOL_VERSION  # noqa: E402

HERE = Path(__file__).resolve()
ATTACKS = ["idle", "slowframe", "passwords", "list", "rooms"]  # rooms last: the rooms it leaves play on
WARM = {"idle": 3.0, "slowframe": 3.0}  # seconds an attack runs before the timing starts (default 1.5)
MAX_ROUNDS = 100_000  # every attacker loop stops here if its time has not run out first


# ------------------------------------------------------------------ host


async def abuse_host(cap: int) -> None:
    async with trio.open_nursery() as nursery:
        host = Host("abuse", rng=random.Random(1), person_bot_delay=0.0, max_connections=cap,
                    max_per_address=cap + 64, tls=False)  # plain TCP: bench/net.py's raw peers, as before TLS
        await nursery.start(host.run)
        await nursery.start(host.listen, 0, LOOPBACK)
        print(f"ready {host.port}", flush=True)
        await wait_stdin_closed()
        nursery.cancel_scope.cancel()


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


# ------------------------------------------------------------------ attacks


class Tally:
    def __init__(self) -> None:
        self.connections = 0
        self.sent = 0
        self.codes: Counter[str] = Counter()


async def hello(p: Raw, name: str) -> bool:
    await p.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name})
    m = await p.recv()
    while m["type"] == "host":  # the host's greeting (protocol 2) comes first
        m = await p.recv()
    return m["type"] == "welcome"


def mute(p: Raw) -> Raw:
    """No heartbeat from `p` (`Raw.recv` pings a second after the last send)."""
    p.last_sent = math.inf
    return p


async def connection(port: int, tally: Tally) -> Raw:
    tally.connections += 1
    return Raw(await trio.open_tcp_stream(LOOPBACK, port))


async def reply(p: Raw, tally: Tally, types: tuple[str, ...]) -> dict:
    """The next message of one of `types`, or an `error` (tallied)."""
    while True:
        m = await p.recv()
        if m["type"] == "error":
            tally.codes[m["code"]] += 1
            return m
        if m["type"] in types:
            return m


async def idle_one(port: int, tally: Tally, k: int) -> None:
    p = mute(await connection(port, tally))
    while True:  # until evicted or timed out
        m = await p.recv()
        if m["type"] == "error":
            tally.codes[m["code"]] += 1


async def slowframe_one(port: int, tally: Tally, k: int) -> None:
    p = await connection(port, tally)
    if not await hello(p, f"drip{k}"):
        return
    mute(p)
    await p.stream.send_all(b"\x00\x00\x00\x28\x81")  # a 40-byte frame's header and first byte

    async def drip() -> None:
        for _ in range(100):
            await trio.sleep(3.0)
            await p.stream.send_all(b"\xa1")
            tally.sent += 1

    async with trio.open_nursery() as n:
        n.start_soon(drip)
        await reply(p, tally, ())
        n.cancel_scope.cancel()


async def passwords_one(port: int, tally: Tally, k: int) -> None:
    p = await connection(port, tally)
    if not await hello(p, f"guess{k}"):
        return
    for i in range(MAX_ROUNDS):
        await p.send({"type": "join", "room": "locked", "password": f"guess{k}-{i}"})
        tally.sent += 1
        m = await reply(p, tally, ("seated",))
        if m.get("fatal"):
            return


async def rooms_one(port: int, tally: Tally, k: int) -> None:
    p = await connection(port, tally)
    if not await hello(p, f"maker{k}"):
        return
    for i in range(MAX_ROUNDS):
        await p.send({"type": "create", "room": f"r{k}-{tally.connections}-{i}", "game": "dominoes", "seats": 2,
                      "bots": "easy"})
        tally.sent += 1
        m = await reply(p, tally, ("seated",))
        if m["type"] == "error":
            if m.get("fatal"):
                return
            await trio.sleep(0.01)
            continue
        await p.send({"type": "start"})
        await p.send({"type": "leave"})
        tally.sent += 2
        if (await reply(p, tally, ("left",))).get("fatal"):
            return


async def list_one(port: int, tally: Tally, k: int) -> None:
    p = await connection(port, tally)
    if not await hello(p, f"lister{k}"):
        return
    for _ in range(MAX_ROUNDS):
        await p.send({"type": "list"})
        tally.sent += 1
        if (await reply(p, tally, ("rooms",))).get("fatal"):
            return


async def attack(name: str, port: int, seconds: float, cap: int) -> None:
    """Run attack `name` for `seconds`; each attacker reconnects when cut off."""
    raise_nofile_limit()
    one, count = {
        "idle": (idle_one, cap),
        "slowframe": (slowframe_one, 500),
        "passwords": (passwords_one, 16),
        "rooms": (rooms_one, 4),
        "list": (list_one, 16),
    }[name]
    tally = Tally()
    async def again(k: int) -> None:
        for _ in range(1000):
            try:
                await one(port, tally, k)
            except* (OSError, EOFError, trio.BrokenResourceError, trio.ClosedResourceError):
                tally.codes["closed"] += 1
            await trio.sleep(0.05)

    async def owner() -> None:  # the room whose password is guessed (created first, kept alive)
        p = await connection(port, tally)
        await hello(p, "owner")
        await p.send({"type": "create", "room": "locked", "game": "dominoes", "seats": 4, "password": "s3cret!"})
        await reply(p, tally, ("seated",))
        ready.set()
        for _ in range(MAX_ROUNDS):
            await p.recv()  # (answers the host's pings)

    ready = trio.Event()
    with trio.move_on_after(seconds):
        async with trio.open_nursery() as n:
            if name == "passwords":
                n.start_soon(owner)
                await ready.wait()
            for k in range(count):
                n.start_soon(again, k)
                if k % 50 == 49:
                    await trio.sleep(0)
    print(json.dumps({"connections": tally.connections, "sent": tally.sent, "codes": dict(tally.codes)}), flush=True)


# ------------------------------------------------------------------ measuring


async def new_peer_hellos(port: int, n: int = 5) -> tuple[list[float], int]:
    """Connect + hello -> welcome, `n` times: the times of the welcomed, and how many were refused."""
    times, refused = [], 0
    for k in range(n):
        t = time.perf_counter()
        p = None
        try:
            with trio.fail_after(5):
                p = Raw(await trio.open_tcp_stream(LOOPBACK, port))
                ok = await hello(p, f"new{k}")
        except (OSError, EOFError, trio.TooSlowError, trio.BrokenResourceError):
            ok = False
        if p is not None:
            await p.stream.aclose()
        if ok:
            times.append(time.perf_counter() - t)
        else:
            refused += 1
    return times, refused


async def keep_alive(table: TwoSeats) -> None:
    """The measured peers' heartbeat between phases (a real client's)."""
    while True:
        await trio.sleep(0.5)
        for p in table.peers:
            if time.monotonic() - p.last_sent > 0.9:
                await p.send({"type": "ping"})


async def measure(port: int, host_pid: int, args) -> list[dict]:
    rows = []
    async with trio.open_nursery() as nursery:
        table = await TwoSeats.open(port)
        nursery.start_soon(keep_alive, table)
        await table.timed(0, warm=300)
        quiet: list[float] = []  # every quiet slice's samples, pooled
        before = None
        for phase in ["quiet", *(args.only or ATTACKS), "after"]:
            if phase in ATTACKS:  # a quiet slice just before each attack: the machine's load changes
                before = await table.timed(args.actions or 10**9, seconds=args.quiet_seconds)
                quiet += before
            rss0 = rss_mb(host_pid)
            proc = None
            if phase in ATTACKS:
                warm = WARM.get(phase, 1.5)
                proc = subprocess.Popen([sys.executable, str(HERE), "_attack", phase, "--port", str(port),
                                         "--seconds", str(warm + args.seconds + 2), "--cap", str(args.cap)],
                                        stdout=subprocess.PIPE, text=True)
                await trio.sleep(warm)
            samples = await table.timed(args.actions or 10**9, seconds=args.seconds)
            if phase == "quiet":
                quiet += samples
            hellos, refused = await new_peer_hellos(port)
            rss1 = rss_mb(host_pid)
            tally = {}
            if proc is not None:
                out = await trio.to_thread.run_sync(lambda p=proc: p.communicate(timeout=args.seconds + 60)[0])
                tally = json.loads(out.strip().splitlines()[-1])
            rows.append({"phase": phase, "n": len(samples), "p50": statistics.median(samples),
                         "p99": pct(samples, 99), "hello": statistics.median(hellos) if hellos else None,
                         "refused": refused, "rss_before": rss0, "rss_after": rss1, "attack": tally,
                         "before_p99": pct(before, 99) if phase in ATTACKS else None})
            await trio.sleep(1.5)  # the attack's connections close
        rows.append({"phase": "quiet, pooled", "n": len(quiet), "p50": statistics.median(quiet),
                     "p99": pct(quiet, 99)})
        rows.append({"phase": "end", "rss_after": rss_mb(host_pid)})
        await table.aclose()
        nursery.cancel_scope.cancel()
    return rows


def report(rows: list[dict], args, load0: tuple, load1: tuple) -> None:
    pooled = rows[-2]
    quiet = pooled["p99"]
    print(f"host under attack: {args.seconds:g} s a phase{f' (or {args.actions} actions)' if args.actions else ''}, "
          f"a {args.quiet_seconds:g} s quiet slice before each attack, host cap {args.cap} connections; nproc "
          f"{os.cpu_count()}, load average before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, after {load1[0]:.2f} "
          f"{load1[1]:.2f} {load1[2]:.2f}")
    print(f"{'phase':13} {'actions':>7} {'p50 ms':>7} {'p99 ms':>7} {'/quiet':>6} {'/slice':>6} {'hello ms':>8} "
          f"{'refused':>7} {'RSS MB':>12}  attack")
    for r in [pooled, *rows[:-2]]:
        a = r.get("attack")
        what = f"{a['connections']} conns, {a['sent']} msgs, {a['codes']}" if a else ""
        hello_ms = f"{r['hello'] * 1e3:8.1f}" if r.get("hello") is not None else f"{'-':>8}"
        slice_ = f"{r['p99'] / r['before_p99']:6.2f}" if r.get("before_p99") else f"{'-':>6}"
        rss = f"{r['rss_before']:5.1f}->{r['rss_after']:5.1f}" if "rss_before" in r else f"{'':12}"
        print(f"{r['phase']:13} {r['n']:7d} {r['p50'] * 1e3:7.2f} {r['p99'] * 1e3:7.2f} {r['p99'] / quiet:6.2f} "
              f"{slice_} {hello_ms} {r.get('refused', 0):7d} {rss}  {what}")
    print(f"host RSS: {rows[0]['rss_before']:.1f} MB before, {rows[-1]['rss_after']:.1f} MB after every attack; "
          "/quiet: p99 over the pooled quiet p99 (the first phase and every quiet slice), /slice: over the "
          "p99 of the quiet slice just before the attack")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", nargs="?", default="run", choices=["run", "_host", "_attack"])
    p.add_argument("attack", nargs="?", choices=ATTACKS)
    p.add_argument("--seconds", type=float, default=6.0, help="seconds timed a phase (covers the idle attack's "
                   "hello deadline, 5 s after its connections open)")
    p.add_argument("--quiet-seconds", type=float, default=3.0, help="the quiet slice timed before each attack")
    p.add_argument("--actions", type=int, default=0, help="stop a phase after this many actions (0: time only)")
    p.add_argument("--cap", type=int, default=1000, help="the host's total connection cap")
    p.add_argument("--port", type=int)
    p.add_argument("--only", choices=ATTACKS, action="append", help="run only these attacks (repeatable)")
    args = p.parse_args()
    if args.what == "_host":
        if os.environ.get("ABUSE_PROFILE"):  # profile the host: ABUSE_PROFILE=host.prof python bench/abuse.py
            import cProfile

            with cProfile.Profile() as prof:
                trio.run(abuse_host, args.cap)
            prof.dump_stats(os.environ["ABUSE_PROFILE"])
        else:
            trio.run(abuse_host, args.cap)
    elif args.what == "_attack":
        trio.run(attack, args.attack, args.port, args.seconds, args.cap)
    else:
        raise_nofile_limit()
        load0 = os.getloadavg()
        host = subprocess.Popen([sys.executable, str(HERE), "_host", "--cap", str(args.cap)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            port = int(host.stdout.readline().split()[1])
            rows = trio.run(measure, port, host.pid, args)
        finally:
            host.stdin.close()
            host.wait(timeout=20)
        report(rows, args, load0, os.getloadavg())


if __name__ == "__main__":
    main()
