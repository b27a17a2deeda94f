"""The host's own work for one action, without sockets: what is left of the
host's CPU per action when the kernel's reads and writes, TLS and trio's
scheduling are taken away.

    python bench/hostwork.py [--seats 4] [--actions 4000] [--table classic] [--full]
    python bench/hostwork.py --instructions [--actions 1000]   # counted by callgrind

A lobby and one room run as the host runs them (`lanmatch.table.lobby`,
`lanmatch.table.session`), driven with messages and a clock that is a
number: `--seats` peers that asked for deltas in their `hello` (`--full`:
full views) sit at a `--table` table (2-6 seats: the room is made by the
host, as `lanmatch play` makes its own, since a guest's seats 4 at most)
and play random legal actions. For
every action this does what the host does between reading the `act` and
writing the frames: the lobby's checks and routing, the room's session, the
referee and the engine, each seat's view message, its delta
(`DeltaSender.next`, as `RoomActor._send_views` calls it) and its frame
(`Connection._frame`: numbered, encoded). The frames are not sent. Rematches
are dealt when a game ends (their work is counted too, as the host's is).
So is this file's own choice of a move (the acting seat and its legal
actions read from the referee: a few µs an action).

It prints the time per action (median of `--rounds` rounds, after one
untimed round). `--instructions` runs this file twice under `valgrind
--tool=callgrind`, for 0 and for `--actions` actions, and prints the
difference of the instruction counts per action: a figure that does not
depend on the machine's load, so two trees (each its own copy of this file)
can be compared on a shared machine (bench/README.md, "The host's own work").
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import callgrind  # noqa: E402  (this file's folder)

from lanmatch.net.conn import Connection  # noqa: E402
from lanmatch.net.host import _numbered  # noqa: E402
from lanmatch.protocol import PROTOCOL_VERSION  # noqa: E402
from lanmatch.protocol.delta import DeltaSender  # noqa: E402
from lanmatch.table.effects import Close, Post, Send, Views  # noqa: E402
from lanmatch.table.lobby import Lobby, Peer  # noqa: E402


class Table:
    """One room of `seats` peers, run as `Host.execute` runs the effects."""

    def __init__(self, seats: int, table: str, deltas: bool, seed: int = 1):
        self.lobby = Lobby("bench", rng=random.Random(seed), today=lambda: "2026-12-06", person_bot_delay=0.0)
        self.now = 0.0
        self.rng = random.Random(seed)
        self.frames = 0
        self.bytes = 0
        self.peers: list[Peer] = []
        for k in range(seats):
            peer = self.lobby.connect(k + 1, "bench", self.now)
            peer.link = Connection(None, numbered=True)  # only its framing is used: nothing is sent
            if deltas:
                peer.tags["deltas"] = DeltaSender()  # as `Host._guarded` does for such a `hello`
            self.run(self.lobby.receive(peer, {"type": "hello", "protocol": PROTOCOL_VERSION, "name": f"p{k}",
                                               **({"deltas": True} if deltas else {})}, self.now))
            self.peers.append(peer)
        # made by the host, as `lanmatch play` makes its room (a guest's own room seats 4 at most):
        # the first peer to sit directs it
        self.lobby.create_room("bench", game="colormatch", table=table, seats=seats, clock=600, first_directs=True)
        self.run(self.lobby.drain())
        for peer in self.peers:
            self.run(self.lobby.receive(peer, {"type": "join", "room": "bench"}, self.now))
        self.session = self.lobby.rooms["bench"]
        self.run(self.lobby.receive(self.peers[0], {"type": "start"}, self.now))

    def _frame(self, peer: Peer, msg: dict[str, Any]) -> None:
        frame = peer.link._frame(msg)
        self.frames += 1
        self.bytes += len(frame)

    def _send_views(self, peers: list[Peer]) -> None:
        """`RoomActor._send_views`, framing instead of sending."""
        s = self.session
        if s.room.referee is None:
            return
        msgs = s.view_messages([p.seat for p in peers], self.now)
        for p in peers:
            msg = msgs[p.seat]
            sender = p.tags.get("deltas")
            self._frame(p, msg if sender is None else sender.next(msg, s.room.referee))

    def run(self, effects: list[Any]) -> None:
        """`Host.execute`, with the room's turn taken at once (`RoomActor.handle_now`)."""
        for e in effects:
            t = type(e)
            if t is Send or t is Close:
                sender = e.peer.tags.get("deltas")
                self._frame(e.peer, e.msg if sender is None else _numbered(sender, e.msg))
            elif t is Views:
                self._send_views(e.peers)
            elif t is Post:
                s = e.room
                self.run(s.handle(*e.item, self.now))
                self.run(s.flush_rest())

    def act(self) -> None:
        """One random legal action of a seat that may act (a rematch once the game is over)."""
        self.now += 0.01  # (no clock falls due: the turn has 600 s)
        ref = self.session.room.referee
        if ref.over:
            self.run(self.lobby.receive(self.peers[0], {"type": "rematch"}, self.now))
            ref = self.session.room.referee
        seat = next(s for s in ref.view(0)["to_act"] if ref.legal(s))
        action = self.rng.choice(ref.legal(seat))
        msg = {"type": "act", "state_id": ref.state_id, "action": action}
        self.run(self.lobby.receive(self.peers[seat], msg, self.now))


def instructions(args: argparse.Namespace, actions: int) -> int:
    """Instructions of one callgrind run of this file (`--count`) playing `actions` actions."""
    cmd = [sys.executable, __file__, "--count", "--actions", str(actions), "--seats", str(args.seats),
           "--table", args.table, *(["--full"] if args.full else [])]
    out = subprocess.run([*callgrind.COMMAND, *cmd],
                         capture_output=True, text=True, check=True)
    return callgrind.collected(out.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--actions", type=int, default=4000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--table", default="classic")
    ap.add_argument("--full", action="store_true", help="peers without deltas (full views)")
    ap.add_argument("--instructions", action="store_true", help="instructions per action (callgrind)")
    ap.add_argument("--count", action="store_true", help=argparse.SUPPRESS)  # one run under callgrind
    args = ap.parse_args()
    if args.instructions:
        counts = [instructions(args, n) for n in (0, args.actions)]
        print(f"{args.table}, {args.seats} seats, {'full views' if args.full else 'deltas'}: "
              f"{(counts[1] - counts[0]) // args.actions:,} instructions per action ({args.actions} actions)")
        return
    table = Table(args.seats, args.table, not args.full)
    if args.count:
        for _ in range(args.actions):
            table.act()
        print(f"ACTIONS {args.actions}")
        return
    times = []
    for r in range(args.rounds + 1):
        t = time.perf_counter()
        for _ in range(args.actions):
            table.act()
        if r:  # the first round warms up
            times.append((time.perf_counter() - t) / args.actions)
    print(f"Python {sys.version.split()[0]}; {args.table}, {args.seats} seats, "
          f"{'full views' if args.full else 'deltas'}: {args.actions} actions x {args.rounds} rounds")
    print(f"  host work per action: median {statistics.median(times) * 1e6:.1f} µs "
          f"(rounds {', '.join(f'{x * 1e6:.1f}' for x in times)})")
    print(f"  frames per action: {table.frames / ((args.rounds + 1) * args.actions):.2f}, "
          f"bytes per frame: {table.bytes / max(1, table.frames):.0f}")


if __name__ == "__main__":
    main()
