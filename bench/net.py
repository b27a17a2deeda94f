"""Host benchmarks: action round trip vs a bare echo, load, discovery time.

    python bench/net.py rtt        [--actions N] [--store] # action round trip beside a bare trio+msgpack echo
    python bench/net.py pair       [--actions N] [--deltas] [--store] [--host-tree DIR [--tree-deltas]] # the same, sample by sample, echoes plain and TLS
    python bench/net.py tls        [--actions N] [--rounds 4] # the round trip over TLS beside plain TCP, alternating
    python bench/net.py deltas     [--actions N] [--rounds 4] # the round trip with full views beside deltas, alternating
    python bench/net.py load ... --deltas                     # the load with seats that ask for deltas
    python bench/net.py busy       [--hard-rooms 20]      # the round trip beside rooms of Hard room bots
    python bench/net.py load       [--tables 100] [--seconds 10] [--procs 4]
    python bench/net.py load ... --host-tree DIR              # DIR's host under the same load at the same time
    python bench/net.py instr      [--actions 300] [--seats 4] [--deltas] [--host-tree DIR] # host instructions per action (callgrind)
    python bench/net.py discovery  [--runs 10]
    python bench/net.py all

Everything binds to 127.0.0.1 (TCP and mDNS). See bench/README.md, section
"Host", for what each figure means and the figures measured here.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import callgrind  # noqa: E402  (this file's folder)

from lanmatch.net.host import MAX_PER_ADDRESS, Host  # noqa: E402
from lanmatch.net.tls import client_handshake  # noqa: E402
from lanmatch.protocol import PROTOCOL_VERSION, Decoder, apply_delta, encode_frame  # noqa: E402
from lanmatch.table import AUTOPILOT_PACE  # noqa: E402

LOOPBACK = "127.0.0.1"
HERE = Path(__file__).resolve()
# the hosts and raw peers speak TLS 1.3 (as every lanmatch connection does) unless
# LANMATCH_BENCH_PLAIN=1 (plain TCP, `Host(tls=False)`: the `tls` mode's comparison)
PLAIN = bool(os.environ.get("LANMATCH_BENCH_PLAIN"))


async def open_stream(port: int, plain: bool | None = None) -> trio.abc.Stream:
    """A connection to the bench's host on 127.0.0.1: TLS 1.3, or plain TCP."""
    stream = await trio.open_tcp_stream(LOOPBACK, port)
    return stream if (PLAIN if plain is None else plain) else await client_handshake(stream)


def host_tls() -> bool:
    return not PLAIN


# the raw peers ask for deltas (docs/protocol.md, "Deltas") when LANMATCH_BENCH_DELTAS=1
DELTAS = bool(os.environ.get("LANMATCH_BENCH_DELTAS"))


def hello(name: str) -> dict:
    msg = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, "agent": "bot"}
    if DELTAS:
        msg["deltas"] = True
    return msg


def pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(p / 100 * len(s)))]


def fmt_us(x: float) -> str:
    return f"{x * 1e6:7.0f} µs"


# ------------------------------------------------------------------ rtt


class Raw:
    def __init__(self, stream):
        self.stream = stream
        self.dec = Decoder()
        self.lock = trio.StrictFIFOLock()
        self.last_sent = time.monotonic()
        self.held = None  # the last view (wire form): what a delta applies to
        self.view_bytes = 0  # bytes of the `view` and `delta` frames received
        self.views = 0

    async def send(self, msg):
        async with self.lock:
            self.last_sent = time.monotonic()
            await self.stream.send_all(encode_frame(msg))

    async def recv(self):
        while True:
            m = self.dec.next_message()
            if m is not None:
                typ = m["type"]
                if typ == "view" or typ == "delta":
                    self.view_bytes += self.dec.last_frame  # (not encoded again: that would be timed)
                    self.views += 1
                    if typ == "delta":
                        held = self.held
                        if held is None or m["vn"] != held["vn"] + 1:
                            raise RuntimeError(f"delta {m['vn']} does not follow the view held")
                        m = {**apply_delta(held, m), "seq": m["seq"]}
                    self.held = m
                if time.monotonic() - self.last_sent > 1.0:  # the heartbeat a real client sends
                    await self.send({"type": "ping"})
                return m
            data = await self.stream.receive_some(65536)
            if not data:
                raise EOFError
            self.dec.feed(data)

    async def expect(self, typ):
        while True:
            m = await self.recv()
            if m["type"] == typ:
                return m


async def echo_server() -> None:
    """A bare trio + msgpack echo server: decodes each frame, sends it back re-encoded."""

    from lanmatch.net.tls import Identity, TLSStream

    tls = None if PLAIN else Identity.ephemeral().server_context

    async def serve(stream):
        dec = Decoder()
        if tls is not None:  # the echo over TLS 1.3, as the host speaks it (`deltas` mode)
            stream = TLSStream(stream, tls, server_side=True)
            await stream.do_handshake()
        async with stream:
            while True:
                data = await stream.receive_some(65536)
                if not data:
                    return
                dec.feed(data)
                while (m := dec.next_message()) is not None:
                    await stream.send_all(encode_frame(m))

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(
            lambda task_status: trio.serve_tcp(serve, 0, host=LOOPBACK, task_status=task_status)
        )
        print(f"ready {listeners[0].socket.getsockname()[1]}", flush=True)
        await wait_stdin_closed()
        nursery.cancel_scope.cancel()


async def rtt_host(hard_rooms: int = 0, pace: float = AUTOPILOT_PACE) -> None:
    """The host of the round-trip benchmark (in its own process, like a real
    host), with `hard_rooms` rooms of four Hard room bots beside the measured
    table (`busy`), each bot pausing `pace` before its move (0.67 s, as room
    bots do in rooms people made; 0: bot-only tables as fast as they go)."""
    store = None
    if os.environ.get("LANMATCH_BENCH_STORE"):  # `rtt --store`: the host keeps every match, as `lanmatch host` does
        from lanmatch.store import Store

        store = Store.open_dir(os.environ["LANMATCH_BENCH_STORE"], lock=True)
    async with trio.open_nursery() as nursery:
        # (a host starved by inline Hard bots must not drop the measured peers)
        host = Host("bench", rng=random.Random(1), person_bot_delay=0.0, dead_after=60.0 if hard_rooms else 4.0,
                    store=store, tls=host_tls())
        await nursery.start(host.run)
        await nursery.start(host.listen, 0, LOOPBACK)
        hard = [host.create_room(f"hard{r}", game="colormatch", table="classic", seats=4, bot_level="hard",
                                 clock=600, bot_delay=pace) for r in range(hard_rooms)]
        if hard:
            nursery.start_soon(keep_playing, hard)
        print(f"ready {host.port}", flush=True)
        await wait_stdin_closed()
        nursery.cancel_scope.cancel()


class Nobody:
    """A stand-in peer whose `resync` wakes a room's task (bench only)."""

    seat = None

    def send(self, *args, **fields) -> bool:
        return True


async def keep_playing(actors: list) -> None:
    """Start the rooms of room bots, and start them again after each game
    (a headless room with nobody seated would wait for players); a `resync`
    from nobody wakes the room's task to look at its new clocks."""
    while True:
        for actor in actors:
            if actor.room.state != "playing" or actor.room.game_ended():
                actor._start(trio.current_time())
                actor.post(("resync", Nobody(), None))
        await trio.sleep(0.05)


async def wait_stdin_closed() -> None:
    stdin = trio.lowlevel.FdStream(os.dup(0))
    while await stdin.receive_some(1024):
        pass


def server(mode: str, *extra: str, env: dict | None = None) -> tuple[subprocess.Popen, int]:
    if env is None and mode == "_echo":
        env = dict(os.environ, LANMATCH_BENCH_PLAIN="1")  # the bare echo speaks plain TCP unless asked
    p = subprocess.Popen([sys.executable, str(HERE), mode, *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, env=env)
    return p, int(p.stdout.readline().split()[1])


async def echo_rtt(port: int, n: int, plain: bool = True) -> list[float]:
    msg = {"type": "act", "state_id": 12, "action": {"type": "play", "card": "R5"}, "pad": "x" * 150}
    c = Raw(await open_stream(port, plain=plain))
    out = []
    for _ in range(200):
        await c.send(msg)
        await c.recv()
    for _ in range(n):
        t = time.perf_counter()
        await c.send(msg)
        await c.recv()
        out.append(time.perf_counter() - t)
    await c.stream.aclose()
    return out


class TwoSeats:
    """Raw peers at a Classic table (two seats unless `open(seats=...)`) that
    take turns; each action is timed from sending `act` to receiving the
    actor's own new view, and every other seat reads its view of that state
    before the next action."""

    def __init__(self, peers: list[Raw], latest: list[dict]):
        self.peers = peers
        self.latest = latest
        self.rng = random.Random(2)

    @classmethod
    async def open(cls, port: int, room: str = "bench", seats: int = 2) -> TwoSeats:
        peers = []
        for k in range(seats):
            p = Raw(await open_stream(port))
            await p.send(hello(f"p{k}"))
            await p.expect("welcome")
            peers.append(p)
        await peers[0].send({"type": "create", "room": room, "game": "colormatch", "table": "classic",
                             "seats": seats, "clock": 600})
        await peers[0].expect("seated")
        for p in peers[1:]:
            await p.send({"type": "join", "room": room})
            await p.expect("seated")
        await peers[0].send({"type": "start"})
        return cls(peers, [await p.expect("view") for p in peers])

    async def timed(self, n: int, warm: int = 0, seconds: float = float("inf")) -> list[float]:
        """`n` round trips after `warm` untimed ones (fewer if `seconds` run out)."""
        peers, latest, rng = self.peers, self.latest, self.rng
        out: list[float] = []
        end = trio.current_time() + seconds  # checked between actions: the table stays in step
        while (len(out) < n or warm) and trio.current_time() < end:
            sid = latest[0]["state_id"]
            if latest[0]["view"]["outcome"] is not None:
                await peers[0].send({"type": "rematch"})
                for k in range(len(peers)):
                    while True:
                        v = await peers[k].expect("view")
                        if v["view"]["outcome"] is None:
                            latest[k] = v
                            break
                continue
            k = next((j for j, m in enumerate(latest) if m["legal"]), 0)
            action = rng.choice(latest[k]["legal"])
            t = time.perf_counter()
            await peers[k].send({"type": "act", "state_id": sid, "action": action})
            while True:
                with trio.fail_after(30):  # a stalled table fails the run instead of hanging it
                    v = await peers[k].recv()
                if v["type"] == "view" and v["state_id"] > sid:
                    break
                if v["type"] == "rejected":
                    raise RuntimeError(v)
            dt = time.perf_counter() - t
            if warm:
                warm -= 1
            else:
                out.append(dt)
            latest[k] = v
            for other in range(len(peers)):
                while latest[other]["state_id"] != v["state_id"]:
                    m = await peers[other].recv()
                    if m["type"] == "view":
                        latest[other] = m
        return out

    async def aclose(self) -> None:
        for p in self.peers:
            await p.stream.aclose()


async def action_rtt(port: int, n: int, plain: bool | None = None) -> list[float]:
    """`TwoSeats`: n timed actions after 200 warm-up ones."""
    global PLAIN
    if plain is not None:
        PLAIN = plain
    table = await TwoSeats.open(port)
    out = await table.timed(n, warm=200)
    await table.aclose()
    return out


def run_rtt(args) -> dict:
    """Both servers run in their own process; the client is this process."""
    p, port = server("_echo")
    try:
        echo = trio.run(echo_rtt, port, args.actions)
    finally:
        p.stdin.close()
        p.wait(timeout=10)
    p, port = server("_rtthost")
    try:
        act = trio.run(action_rtt, port, args.actions)
    finally:
        p.stdin.close()
        p.wait(timeout=10)
    res = {
        "echo_p50": statistics.median(echo), "echo_p99": pct(echo, 99),
        "act_p50": statistics.median(act), "act_p99": pct(act, 99), "n": args.actions,
    }
    print(f"round trip over 127.0.0.1, server in its own process, {args.actions} samples each (after 200 warm-up)")
    print(f"  bare trio+msgpack echo : p50 {fmt_us(res['echo_p50'])}   p99 {fmt_us(res['echo_p99'])}")
    print(f"  lanmatch action -> view: p50 {fmt_us(res['act_p50'])}   p99 {fmt_us(res['act_p99'])}")
    print(f"  ratio (p50)            : {res['act_p50'] / res['echo_p50']:.2f} x the echo")
    if getattr(args, "store", False):
        import tempfile

        with tempfile.TemporaryDirectory(prefix="lanmatch-bench-") as tmp:
            p, port = server("_rtthost", env={**os.environ, "LANMATCH_BENCH_STORE": tmp})
            try:
                stored = trio.run(action_rtt, port, args.actions)
            finally:
                p.stdin.close()
                p.wait(timeout=10)
        res.update(store_p50=statistics.median(stored), store_p99=pct(stored, 99))
        print(f"  ... with the store     : p50 {fmt_us(res['store_p50'])}   p99 {fmt_us(res['store_p99'])}"
              f"   (+{(res['store_p50'] - res['act_p50']) * 1e6:.0f} µs at p50)")
    return res


async def echo_once(c: Raw, msg: dict) -> float:
    t = time.perf_counter()
    await c.send(msg)
    await c.recv()
    return time.perf_counter() - t


async def paired_rtt(ports: dict[str, int], n: int, deltas: bool, old_deltas: bool = False) -> dict[str, list[float]]:
    """`n` rounds, each one sample of every server in `ports` (the order
    turning from round to round): "plain" and "tls" are echoes (plain TCP,
    TLS 1.3), "main", "store" (this tree's host with a store) and "old"
    (another tree's) hosts, a `TwoSeats` table each; "main"'s and "store"'s
    peers ask for deltas when `deltas`, "old"'s only when `old_deltas` (the
    host before issue 19 knew none)."""
    global DELTAS
    msg = {"type": "act", "state_id": 12, "action": {"type": "play", "card": "R5"}, "pad": "x" * 150}
    runs = {}
    for name, port in ports.items():
        if name in ("plain", "tls"):
            c = Raw(await open_stream(port, plain=name == "plain"))
            for _ in range(200):
                await echo_once(c, msg)
            runs[name] = (lambda c=c: echo_once(c, msg)), c.stream.aclose
        else:
            DELTAS = deltas and name in ("main", "store") or old_deltas and name == "old"
            table = await TwoSeats.open(port)
            await table.timed(0, warm=200)
            runs[name] = (lambda t=table: _one(t)), table.aclose
    out: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for i in range(n):
        for name in names[i % len(names):] + names[:i % len(names)]:
            out[name].append(await runs[name][0]())
    for _, close in runs.values():
        await close()
    return out


async def _one(table: TwoSeats) -> float:
    return (await table.timed(1))[0]


def run_pair(args) -> dict:
    """The action round trip and the bare echoes side by side, sample by
    sample: every server in its own process, all up at once, the client
    taking one round trip of each in turn, so that each figure sees the
    same machine (the `rtt` mode's echo and host run one after the other,
    and on a shared machine the echo alone moved by 2x from run to run)."""
    import tempfile

    procs = []
    ports = {}
    store_dir = tempfile.TemporaryDirectory(prefix="lanmatch-bench-")
    try:
        for name in ("plain", "tls"):
            p, ports[name] = server("_echo", env=dict(os.environ, LANMATCH_BENCH_PLAIN="1" if name == "plain" else ""))
            procs.append(p)
        p, ports["main"] = server("_rtthost")
        procs.append(p)
        if args.store:  # this tree's host keeping every match in a store, as `lanmatch host` does
            p, ports["store"] = server("_rtthost", env={**os.environ, "LANMATCH_BENCH_STORE": store_dir.name})
            procs.append(p)
        if args.host_tree:
            script = Path(args.host_tree, "bench", "net.py")
            p = subprocess.Popen([sys.executable, str(script), "_rtthost"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True, cwd=args.host_tree)
            procs.append(p)
            ports["old"] = int(p.stdout.readline().split()[1])
        res = trio.run(paired_rtt, ports, args.actions, args.deltas, args.tree_deltas)
    finally:
        for p in procs:
            p.stdin.close()
            p.wait(timeout=30)
        store_dir.cleanup()
    print(f"round trips over 127.0.0.1 side by side, one of each in turn, {args.actions} rounds after 200 warm-up "
          f"(hosts {'TLS 1.3' if host_tls() else 'plain TCP'}; main's peers {'ask for deltas' if args.deltas else 'take full views'})")
    p50 = {name: statistics.median(xs) for name, xs in res.items()}
    labels = {"plain": "echo, plain TCP", "tls": "echo, TLS 1.3", "main": "action -> view, this tree",
              "store": "... this tree with a store", "old": f"action -> view, {args.host_tree}"}
    for name, xs in res.items():
        print(f"  {labels[name]:32}: p50 {fmt_us(p50[name])}   p99 {fmt_us(pct(xs, 99))}")
    for host in [h for h in ("main", "store", "old") if h in res]:
        for echo in ("plain", "tls"):
            pairs = [a / b for a, b in zip(res[host], res[echo], strict=True)]
            print(f"  {host} / {labels[echo]:16}: {p50[host] / p50[echo]:.2f} x (p50s); "
                  f"median of the rounds' ratios {statistics.median(pairs):.2f}")
    if "old" in res:
        print(f"  main / old: {p50['main'] / p50['old']:.2f} x (p50s)")
    if "store" in res:
        print(f"  the store adds {(p50['store'] - p50['main']) * 1e6:.0f} µs at p50")
    return {"p50": p50}


async def delta_rtt(port: int, n: int, deltas: bool) -> tuple[list[float], float]:
    """`action_rtt` with the raw peers asking for deltas or not; also the
    bytes per view frame they received."""
    global DELTAS
    DELTAS = deltas
    table = await TwoSeats.open(port)
    for p in table.peers:
        p.view_bytes = p.views = 0
    out = await table.timed(n, warm=200)
    size = sum(p.view_bytes for p in table.peers) / max(1, sum(p.views for p in table.peers))
    await table.aclose()
    return out, size


def run_deltas(args) -> dict:
    """The action round trip with full views beside deltas (the same host
    code, peers asking or not), in `--rounds` alternating rounds, a fresh TLS
    host process each round; the bare echo once, for the ratio."""
    p, port = server("_echo", env=dict(os.environ, LANMATCH_BENCH_PLAIN="1" if PLAIN else ""))
    try:
        echo = trio.run(echo_rtt, port, args.actions, PLAIN)
    finally:
        p.stdin.close()
        p.wait(timeout=10)
    samples: dict[str, list[float]] = {"full": [], "deltas": []}
    sizes: dict[str, list[float]] = {"full": [], "deltas": []}
    per_round = max(1, args.actions // args.rounds)
    for _ in range(args.rounds):
        for mode in ("full", "deltas"):
            p, port = server("_rtthost")
            try:
                xs, size = trio.run(delta_rtt, port, per_round, mode == "deltas")
                samples[mode] += xs
                sizes[mode].append(size)
            finally:
                p.stdin.close()
                p.wait(timeout=30)
    e50 = statistics.median(echo)
    print(f"action round trip over 127.0.0.1 ({'TLS 1.3' if host_tls() else 'plain TCP'}), full views beside deltas "
          f"({args.rounds} alternating rounds, {per_round} samples each after 200 warm-up)")
    print(f"  bare trio+msgpack echo ({'plain TCP' if PLAIN else 'TLS 1.3'}): p50 {fmt_us(e50)}   p99 {fmt_us(pct(echo, 99))}")
    res = {"echo_p50": e50}
    for mode, xs in samples.items():
        res[mode] = {"p50": statistics.median(xs), "p99": pct(xs, 99), "bytes_per_view": statistics.mean(sizes[mode])}
        print(f"  {mode:6} views: p50 {fmt_us(res[mode]['p50'])}   p99 {fmt_us(res[mode]['p99'])}   "
              f"{res[mode]['p50'] / e50:.2f} x the echo   {res[mode]['bytes_per_view']:5.0f} bytes a view frame")
    return res


def run_tls(args) -> dict:
    """The action round trip over TLS 1.3 beside plain TCP (`Host(tls=False)`,
    raw peers without TLS), in `--rounds` alternating rounds in one run, each
    round a fresh host process; the ratio of the p50s (issue 16: under 1.2)."""
    samples: dict[str, list[float]] = {"tls": [], "plain": []}
    per_round = max(1, args.actions // args.rounds)
    for _ in range(args.rounds):
        for mode in ("plain", "tls"):
            env = dict(os.environ, LANMATCH_BENCH_PLAIN="1" if mode == "plain" else "")
            p, port = server("_rtthost", env=env)
            try:
                samples[mode] += trio.run(action_rtt, port, per_round, mode == "plain")
            finally:
                p.stdin.close()
                p.wait(timeout=30)
    print(f"action round trip over 127.0.0.1, TLS 1.3 beside plain TCP ({args.rounds} alternating rounds, "
          f"{per_round} samples each after 200 warm-up, a fresh host process each round)")
    res = {}
    for mode, xs in samples.items():
        res[mode] = {"p50": statistics.median(xs), "p99": pct(xs, 99), "n": len(xs)}
        print(f"  {'TLS 1.3  ' if mode == 'tls' else 'plain TCP'}: p50 {fmt_us(res[mode]['p50'])}   "
              f"p99 {fmt_us(res[mode]['p99'])}")
    res["ratio_p50"] = res["tls"]["p50"] / res["plain"]["p50"]
    res["ratio_p99"] = res["tls"]["p99"] / res["plain"]["p99"]
    print(f"  ratio TLS / plain: p50 {res['ratio_p50']:.2f} x   p99 {res['ratio_p99']:.2f} x")
    return res


def run_busy(args) -> dict:
    """The action round trip while `--hard-rooms` rooms of Hard room bots play
    on the same host: their decisions on worker threads (as shipped) or
    inline on the host's thread (`LANMATCH_BENCH_INLINE_BOTS=1`), in
    alternating rounds."""
    samples: dict[str, list[float]] = {"thread": [], "inline": []}
    per_round = max(1, args.actions // args.rounds)
    for _ in range(args.rounds):
        for mode in ("thread", "inline"):
            env = dict(os.environ, LANMATCH_BENCH_INLINE_BOTS="1" if mode == "inline" else "")
            p, port = server("_rtthost", "--hard-rooms", str(args.hard_rooms), "--pace", str(args.pace), env=env)
            try:
                samples[mode] += trio.run(action_rtt, port, per_round)
            finally:
                p.stdin.close()
                p.wait(timeout=30)
    print(f"action round trip with {args.hard_rooms} rooms of 4 Hard room bots ({args.pace} s a move) on the same host "
          f"({args.rounds} alternating rounds, {per_round} samples each)")
    res = {}
    for mode, xs in samples.items():
        res[mode] = {"p50": statistics.median(xs), "p99": pct(xs, 99), "max": max(xs), "n": len(xs)}
        where = "worker thread" if mode == "thread" else "host thread  "
        print(f"  Hard decisions on the {where}: p50 {fmt_us(res[mode]['p50'])}   p99 {fmt_us(res[mode]['p99'])}"
              f"   max {fmt_us(res[mode]['max'])}")
    print(f"  p99 ratio inline / thread: {res['inline']['p99'] / res['thread']['p99']:.2f}")
    return res


# ------------------------------------------------------------------ instructions


async def instr_actions(port: int, n: int, seats: int) -> None:
    table = await TwoSeats.open(port, seats=seats)
    if n:
        await table.timed(n)
    await table.aclose()


def run_instr(args) -> dict:
    """Instructions the host process executes per action, in place: the
    round-trip host (`_rtthost`, TLS unless LANMATCH_BENCH_PLAIN=1) under
    `valgrind --tool=callgrind`, driven by `--seats` raw peers (deltas with
    `--deltas`) for 0 and for `--actions` actions; the difference of the two
    counts per action. Everything the host runs is in it (the lobby, the
    room, the engine, the views and deltas, msgpack, TLS, trio's scheduler,
    the user side of its system calls); the kernel's side is not. A count,
    not a time: the same on a loaded machine, so two trees can be compared:
    `--host-tree DIR` runs DIR/bench/net.py's `_rtthost` (DIR's lanmatch)
    as the host, driven by this file's peers."""
    global DELTAS
    DELTAS = args.deltas
    counts = []
    for n in (0, args.actions):
        script = Path(args.host_tree, "bench", "net.py") if args.host_tree else HERE
        p = subprocess.Popen([*callgrind.COMMAND, sys.executable, str(script), "_rtthost"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        try:
            port = int(p.stdout.readline().split()[1])
            trio.run(instr_actions, port, n, args.seats)
        finally:
            p.stdin.close()
            err = p.stderr.read()
            p.wait(timeout=120)
        counts.append(callgrind.collected(err))
    per = (counts[1] - counts[0]) / args.actions
    print(f"host process in place ({args.host_tree or 'this tree'}, {'TLS' if host_tls() else 'plain TCP'}, {args.seats} seats at classic, "
          f"{'deltas' if args.deltas else 'full views'}): {per:,.0f} instructions per action "
          f"({args.actions} actions, callgrind)")
    return {"instructions_per_action": per}


# ------------------------------------------------------------------ load


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


async def load_host(tables: int) -> None:
    """The host process of the load test: `mark` on stdin prints its counters."""
    async with trio.open_nursery() as nursery:
        # (every seat comes from 127.0.0.1: the per-address cap is raised for them)
        host = Host("bench", rng=random.Random(1), person_bot_delay=0.0, dead_after=30.0,
                    max_per_address=max(MAX_PER_ADDRESS, 4 * tables + 64), tls=host_tls())
        await nursery.start(host.run)
        await nursery.start(host.listen, 0, LOOPBACK)
        for t in range(tables):
            host.create_room(f"t{t}", game="colormatch", table="classic", seats=4, auto_start=True,
                             rematch_after=0.05, bot_level="easy", clock=600)
        print(f"ready {host.port}", flush=True)
        stdin = trio.lowlevel.FdStream(os.dup(0))
        buf = b""
        while True:
            data = await stdin.receive_some(1024)
            if not data:
                break
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if line == b"mark":
                    actions = sum(a.actions for a in host.rooms.values())
                    print(json.dumps({"actions": actions, "cpu": cpu_seconds(), "t": time.monotonic(),
                                      "peers": len(host.peers),
                                      "sys": resource.getrusage(resource.RUSAGE_SELF).ru_stime}), flush=True)
                elif line == b"quit":
                    nursery.cancel_scope.cancel()


THINK = 0.0


SEATS: list = []  # this process's raw seats (their view bytes)


async def light_seat(port: int, room: str, seed: int, samples: list) -> None:
    """One remote seat, as light as a client can be (so the host is what is
    measured): raw frames, a random legal action as soon as a view offers some,
    each action timed from `act` sent to the next view received."""
    rng = random.Random(seed)
    c = Raw(await open_stream(port))
    SEATS.append(c)
    await c.send(hello(f"s{seed}"))
    await c.send({"type": "join", "room": room})

    async def pinger():
        while True:
            await trio.sleep(1.0)
            await c.send({"type": "ping"})

    async with trio.open_nursery() as n:
        n.start_soon(pinger)
        answered = -1
        sent = None
        while True:
            m = await c.recv()
            if m["type"] != "view":
                continue
            sid = m["state_id"]
            if sent is not None and sid > sent[0]:
                now = time.monotonic()
                samples.append((now, now - sent[1]))
                sent = None
            if m["legal"] and sid != answered and m["view"]["outcome"] is None:
                answered = sid
                if THINK:
                    await trio.sleep(THINK)  # a pause to think: the round trip is timed from the send
                sent = (sid, time.monotonic())
                await c.send({"type": "act", "state_id": sid, "action": rng.choice(m["legal"])})


FAILED: list[str] = []


async def guarded_seat(port: int, room: str, seed: int, samples: list) -> None:
    try:
        await light_seat(port, room, seed, samples)
    except (OSError, trio.BrokenResourceError, trio.ClosedResourceError, EOFError) as e:
        FAILED.append(f"{room}: {type(e).__name__}: {e}")


async def load_bots(port: int, rooms: list[str], seconds: float, think: float) -> None:
    global THINK
    THINK = think
    samples: list[tuple[float, float]] = []
    with trio.move_on_after(seconds):
        async with trio.open_nursery() as n:
            for k, room in enumerate(rooms):
                for s in range(4):
                    n.start_soon(guarded_seat, port, room, k * 4 + s, samples)
                await trio.sleep(0.002)
    for f in FAILED[:5]:
        print(f"seat lost: {f}", file=sys.stderr)
    print(json.dumps({"samples": samples, "view_bytes": sum(c.view_bytes for c in SEATS),
                      "views": sum(c.views for c in SEATS)}))


class LoadRun:
    """One host process of the load test (`script`'s `_host`: this tree's or
    another's) with its tables and its bot processes (this file's `_bots`;
    the seats ask for deltas when `deltas`)."""

    def __init__(self, script: Path, args, deltas: bool):
        self.host = subprocess.Popen([sys.executable, str(script), "_host", "--tables", str(args.tables)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     cwd=script.parent.parent)
        port = int(self.host.stdout.readline().split()[1])
        rooms = [f"t{t}" for t in range(args.tables)]
        chunks = [rooms[i :: args.procs] for i in range(args.procs)]
        env = dict(os.environ, LANMATCH_BENCH_DELTAS="1" if deltas else "")
        self.bots = [subprocess.Popen([sys.executable, str(HERE), "_bots", "--port", str(port), "--seconds",
                                       str(args.seconds + LOAD_WARM + 1), "--rooms", ",".join(c), "--think",
                                       str(args.think)], stdout=subprocess.PIPE, text=True, env=env)
                     for c in chunks]
        self.deltas = deltas
        self.marks: list[dict] = []

    def mark(self) -> None:
        self.host.stdin.write("mark\n")
        self.host.stdin.flush()
        self.marks.append(json.loads(self.host.stdout.readline()))

    def result(self, args) -> dict:
        a, b = self.marks
        samples = []
        view_bytes = views = 0
        for p in self.bots:
            out, _ = p.communicate(timeout=args.seconds + 60)
            got = json.loads(out.strip().splitlines()[-1])
            samples += [dt for t, dt in got["samples"] if a["t"] <= t <= b["t"]]
            view_bytes += got["view_bytes"]
            views += got["views"]
        self.host.stdin.write("quit\n")
        self.host.stdin.flush()
        self.host.wait(timeout=10)
        actions = b["actions"] - a["actions"]
        wall = b["t"] - a["t"]
        cpu = b["cpu"] - a["cpu"]
        return {
            "tables": args.tables, "connections": b["peers"], "actions_per_s": actions / wall,
            "rtt_p50": statistics.median(samples), "rtt_p99": pct(samples, 99), "samples": len(samples),
            "host_cpu_per_action": cpu / max(actions, 1), "host_cpu_share": cpu / wall,
            # the part of it spent in the kernel (None: a host tree whose marks do not say)
            "host_sys_per_action": (b["sys"] - a["sys"]) / max(actions, 1) if "sys" in a else None,
            "bytes_per_view": view_bytes / max(views, 1), "deltas": self.deltas,
        }


LOAD_WARM = 3.0  # seconds of load before the window


def run_load(args) -> dict:
    """The load on this tree's host; with `--host-tree DIR`, on DIR's host too,
    at the same time (each host its own `--tables` tables and bot processes,
    in one window): the two hosts see the same machine, second by second."""
    runs = {"this tree": LoadRun(HERE, args, args.deltas)}
    if args.host_tree:  # (its seats take full views unless --tree-deltas: the host before issue 19 knew no deltas)
        runs[args.host_tree] = LoadRun(Path(args.host_tree, "bench", "net.py").resolve(), args, args.tree_deltas)
    time.sleep(LOAD_WARM)
    for r in runs.values():
        r.mark()
    time.sleep(args.seconds)
    for r in runs.values():
        r.mark()
    results = {name: r.result(args) for name, r in runs.items()}
    for name, res in results.items():
        print(f"load{f' ({name})' if len(runs) > 1 else ''}: {args.tables} tables x 4 remote bot seats "
              f"({res['connections']} connections), {args.procs} bot processes, think {args.think:g} s, "
              f"{args.seconds:g} s measured, {'TLS' if host_tls() else 'plain TCP'}, "
              f"{'deltas' if res['deltas'] else 'full views'}")
        print(f"  actions/s            : {res['actions_per_s']:8.0f}")
        print(f"  action round trip    : p50 {fmt_us(res['rtt_p50'])}   p99 {fmt_us(res['rtt_p99'])}"
              f"   ({res['samples']} samples, seen by the bots)")
        kernel = res["host_sys_per_action"]
        print(f"  host CPU per action  : {fmt_us(res['host_cpu_per_action'])}"
              f"   (host process busy {res['host_cpu_share'] * 100:.0f}% of one core"
              f"{'' if kernel is None else f'; in the kernel {fmt_us(kernel).strip()}'})")
        print(f"  bytes per view frame : {res['bytes_per_view']:8.0f}   (one a seat per action; whole run, TLS overhead not counted)")
    if args.host_tree:
        main, other = results["this tree"], results[args.host_tree]
        print(f"  this tree / {args.host_tree}: host CPU per action "
              f"{main['host_cpu_per_action'] / other['host_cpu_per_action']:.2f}, "
              f"p99 {main['rtt_p99'] / other['rtt_p99']:.2f}")
    return results["this tree"]


# ------------------------------------------------------------------ discovery


async def discovery_times(runs: int) -> list[float]:
    from lanmatch.net.discovery import Browser

    out = []
    for _ in range(runs):
        t = time.perf_counter()
        async with Browser([LOOPBACK]) as b:
            h = await b.first(10)
            if h is None:
                raise RuntimeError("no host found")
            out.append(time.perf_counter() - t)
    return out


def bare_times(runs: int) -> list[float]:
    """The same with bare zeroconf: ServiceBrowser (QM) until the first Added."""
    import threading

    from zeroconf import DNSQuestionType, IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf

    out = []
    for _ in range(runs):
        ev = threading.Event()
        t = time.perf_counter()
        zc = Zeroconf(interfaces=[LOOPBACK], ip_version=IPVersion.V4Only, use_asyncio=False)

        def handler(zeroconf, service_type, name, state_change, ev=ev):
            if state_change is ServiceStateChange.Added:
                ev.set()

        b = ServiceBrowser(zc, "_lanmatch._tcp.local.", handlers=[handler], question_type=DNSQuestionType.QM)
        if not ev.wait(10):
            raise RuntimeError("no host found")
        out.append(time.perf_counter() - t)
        b.cancel()
        zc.close()
    return out


def run_discovery(args) -> dict:
    host = subprocess.Popen([sys.executable, "-m", "lanmatch", "host", "--bind", LOOPBACK, "--name",
                             f"bench-{os.getpid()}"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        while not (line := host.stdout.readline()).startswith("advertised"):  # listening, fingerprint, join lines
            assert line, "the host stopped before it was advertised"
        times = trio.run(discovery_times, args.runs)
        bare = bare_times(args.runs)
    finally:
        host.terminate()
        host.wait(timeout=10)
    res = {"p50": statistics.median(times), "min": min(times), "max": max(times), "runs": args.runs,
           "bare_p50": statistics.median(bare), "bare_min": min(bare), "bare_max": max(bare)}
    print(f"discovery on 127.0.0.1, {args.runs} runs each (a fresh browser each run)")
    print(f"  lanmatch Browser, browse start -> resolved host answering over TCP: median {res['p50'] * 1000:.0f} ms"
          f" (min {res['min'] * 1000:.0f}, max {res['max'] * 1000:.0f})")
    print(f"  bare zeroconf ServiceBrowser (QM), start -> first Added:            median {res['bare_p50'] * 1000:.0f} ms"
          f" (min {res['bare_min'] * 1000:.0f}, max {res['bare_max'] * 1000:.0f})")
    return res


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["rtt", "pair", "tls", "deltas", "busy", "load", "instr", "discovery", "all", "_host", "_bots", "_echo", "_rtthost"])
    p.add_argument("--actions", type=int, default=3000)
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--procs", type=int, default=2)
    p.add_argument("--think", type=float, default=0.0, help="load: seconds each seat waits before acting")
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--port", type=int)
    p.add_argument("--rooms", default="")
    p.add_argument("--hard-rooms", type=int, default=0, help="busy: rooms of Hard room bots beside the measured table")
    p.add_argument("--rounds", type=int, default=4, help="busy: alternating rounds of each mode")
    p.add_argument("--pace", type=float, default=AUTOPILOT_PACE, help="busy: the room bots' pause before a move")
    p.add_argument("--deltas", action="store_true", help="load, instr, pair: the seats ask for deltas")
    p.add_argument("--seats", type=int, default=4, help="instr: seats at the table")
    p.add_argument("--host-tree", help="instr: the host is this tree's bench/net.py _rtthost; pair, load: a second host, beside this tree's")
    p.add_argument("--tree-deltas", action="store_true",
                   help="pair, load: the --host-tree host's seats ask for deltas too (two trees that both know them)")
    p.add_argument("--store", action="store_true", help="rtt, pair: also measure a host that keeps every match in a store")
    args = p.parse_args()
    if args.what == "busy" and not args.hard_rooms:
        args.hard_rooms = 20
    if args.what == "_host" and os.environ.get("LANMATCH_BENCH_PROFILE"):
        import cProfile

        # timed in CPU seconds: wall time would count, inside each write to a
        # loopback socket, the bot process it wakes running in the host's place
        prof = cProfile.Profile(time.process_time)
        prof.runctx("trio.run(load_host, args.tables)", globals(), {"args": args})
        prof.dump_stats(os.environ["LANMATCH_BENCH_PROFILE"])
        return
    if args.what == "_echo":
        trio.run(echo_server)
    elif args.what == "_rtthost":
        if os.environ.get("LANMATCH_BENCH_INLINE_BOTS"):
            from lanmatch.table import Due

            Due.heavy = property(lambda self: False)  # the comparison: Hard decides on the host's thread
        trio.run(rtt_host, args.hard_rooms, args.pace)
    elif args.what == "_host":
        trio.run(load_host, args.tables)
    elif args.what == "_bots":
        trio.run(load_bots, args.port, args.rooms.split(","), args.seconds, args.think)
    else:
        print(f"nproc {os.cpu_count()}, Python {sys.version.split()[0]}, trio {trio.__version__}")
        if args.what in ("rtt", "all"):
            run_rtt(args)
        if args.what == "pair":
            run_pair(args)
        if args.what == "busy":
            run_busy(args)
        if args.what == "tls":
            run_tls(args)
        if args.what == "deltas":
            run_deltas(args)
        if args.what in ("load", "all"):
            run_load(args)
        if args.what == "instr":
            run_instr(args)
        if args.what in ("discovery", "all"):
            run_discovery(args)


if __name__ == "__main__":
    main()
