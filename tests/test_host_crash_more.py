"""More of `test_host_crash.py` (whose helpers these tests share): a real
`lanmatch host` process SIGKILLed and restarted on the same data directory
and port, with real peers over TCP on 127.0.0.1, in the two cases it leaves
out.

1. **Room bots under kill.** Room R (Classic, 3 seats, stake 10,
   `--start-after 0.3`) seats two peers with profiles; the host fills the
   third seat with its own room bot (the house posts its stake). The host is
   killed KILLS times at random moments; after each restart the room bot's
   seat of a resumed match is played by a room bot again (its actions are
   labelled `bot`/`chance`, never a clock's stand-in), every resumed match
   reaches its end, the house's coins are what the rules give from the
   stored outcomes, and every view the peers saw is a replay of the stored
   actions.

2. **Leaves under kill.** Room R at a stake of 25 (a fee of 3: 2.5 rounded
   up) seats Ann and Cat (profiles) and a room bot. In each of ROUNDS
   rounds Cat leaves its running game at a random moment and the host is
   killed shortly after (0, 0-10 or 50-250 ms: the leave stored, in flight,
   or not sent yet) or shortly before (0-10 or 50-250 ms). A leave the dead
   host never read is sent again when Cat is back at its resumed seat, as a
   person would press leave again. After all of it: each leave charged its
   fee exactly once (one `fee` row of 3, and Cat's coins equal to what the
   rules give from the stored matches, so a second fee or a payout to a
   leaver would show), the leaver's seat was played by a room bot from the
   leave on, including across the restart, the ledger balances
   (`Store.check()` empty, coins conserved after every kill), no pot paid
   twice, Cat counts `left` in the stats for each.

Bounded: each test under ~25 s; every wait has a deadline; 127.0.0.1 only.
"""

from __future__ import annotations

import random

import pytest
import trio
from test_host_crash import (
    LOOPBACK,
    MIN_FINISHED,
    STAKE,
    Kills,
    Peer,
    check_matches,
    check_views,
    free_port,
    kill,
    play_out,
    restart,
    start_host,
    stop,
    until,
)

from lanmatch.store import Store

ROOM_BOTS = ("--start-after", "0.3")  # after 0.3 s a game starts with room bots in the empty seats
BOT_LABELS = {"bot", "chance"}  # what the referee writes for a room bot's moves
KILLS = 5
ROUNDS = 5
LEAVE_STAKE = 25
LEAVE_FEE = 3  # 10 % of 25, rounded up


# ------------------------------------------------------------------ room bots


@pytest.mark.slow
async def test_a_room_bots_seat_plays_on_after_every_kill_and_the_house_keeps_its_coins(tmp_path):
    rng = random.Random(47)
    data, port = tmp_path / "data", free_port()
    peers = [Peer("Ann", "medium"), Peer("Bob", "easy")]
    kills = Kills(data, port, tmp_path, rng)
    try:
        async with trio.open_nursery() as n:
            for p in peers:
                n.start_soon(p.run, (LOOPBACK, port))
            await kills.cycle(peers, KILLS, *ROOM_BOTS, mid_game=2)
            await play_out(kills.host, data, kills.live, finished=MIN_FINISHED)
            n.cancel_scope.cancel()
    finally:
        await stop(kills.host)
    assert kills.mid_game >= 2, f"only {kills.mid_game} of {KILLS} kills landed in a match with actions"
    resumes = {m: at for resumed in kills.resumed for m, at in resumed.items()}  # match -> its last resume

    with Store.open_dir(data, create=False) as store:
        records = check_matches(store, min_finished=MIN_FINISHED)  # incl. the house's coins against the outcomes
        ledgers = {mid: store.ledger(match_id=mid) for mid in records}
    after_resume = 0  # room bot moves made by a restarted host in a match it resumed
    for r in records.values():
        room_bots = [s.seat for s in r.seats if s.kind == "bot"]
        assert room_bots, f"match {r.id}: no room bot"
        for s in room_bots:
            assert r.seats[s].token is None and r.seats[s].bot_level == "easy", r.seats[s]  # the host's own bot
            (stake,) = [x for x in ledgers[r.id] if x.reason == "stake" and x.seat == s]
            assert (stake.src, stake.amount) == ("house", r.stake)
            # a room bot's seat is only ever played by a room bot, before a kill and after each restart
            labels = {a.by for a in r.actions if a.seat == s}
            assert labels <= BOT_LABELS, f"match {r.id} seat {s} played by {labels}"
        if r.id in resumes:
            assert r.status == "finished", f"resumed match {r.id} did not reach its end"
            after_resume += sum(1 for a in r.actions[resumes[r.id]:] if a.seat in room_bots)
    assert resumes, "no kill left a match to resume"
    assert after_resume >= 1, "no room bot moved in a resumed match"
    assert check_views(records, peers) > 50


# ------------------------------------------------------------------ leaves


class Leaver(Peer):
    """A peer that leaves its running game when told (`want_leave`), and asks
    again on each new connection until the host answers `left`: a leave the
    killed host never read is pressed again at the resumed seat. The wish
    ends with `left`, a seat token the host no longer knows, or the game's
    end. Without a seat it looks for one every 50 ms (to be back for the
    next game)."""

    def __init__(self, name: str, level: str):
        super().__init__(name, level)
        self.intent: str | None = None  # the seat token whose game to leave
        self._asked_on = None  # the connection the leave was last sent on
        self.fees: list[dict] = []  # `coins` messages with reason fee

    async def run(self, address):
        async with trio.open_nursery() as n:
            n.start_soon(self._seeker)
            code = await super().run(address)
            n.cancel_scope.cancel()
        return code

    async def _seeker(self) -> None:
        while True:
            await trio.sleep(0.05)
            if self.conn is not None and self.welcomed and self.seat is None and self.token is None:
                self.send("list")

    def in_game(self) -> bool:
        """Seated at a game under way (as its latest view says)."""
        v = self.view_msg
        return self.playing and self.seat is not None and v is not None and v["view"]["outcome"] is None

    def want_leave(self) -> None:
        self.intent, self._asked_on = self.token, None
        self._ask()

    def _ask(self) -> None:
        if self.conn is not None and self._asked_on is not self.conn:
            self._asked_on = self.conn
            self.send("leave")

    def on_message(self, msg):
        typ = msg["type"]
        if typ == "coins" and msg["reason"] == "fee":
            self.fees.append(msg)
        if self.intent is not None:
            if typ == "left" or (typ == "error" and msg["code"] == "bad_token"):
                self.intent = None
            elif typ == "view":
                if msg["view"]["outcome"] is not None:
                    self.intent = None  # the game ended first
                else:
                    self._ask()  # back at the seat (e.g. after a restart): press leave again
        super().on_message(msg)


def seat_of(data, token: str) -> tuple[int, int]:
    """The latest stored match the seat `token` sits in, and the seat."""
    with Store.open_dir(data, create=False) as store:
        return store.conn.execute(
            "SELECT match_id, seat FROM match_seats WHERE token = ? ORDER BY match_id DESC LIMIT 1", (token,)
        ).fetchone()


@pytest.mark.slow
async def test_a_peer_leaving_around_a_kill_pays_its_fee_once_and_a_room_bot_takes_its_seat(tmp_path):
    rng = random.Random(83)
    data, port = tmp_path / "data", free_port()
    ann, cat = Peer("Ann", "easy"), Leaver("Cat", "easy")
    # Hard room bots (the last --bots wins): the bot in a leaver's seat often wins, which must pay the house
    stake = ("--stake", str(LEAVE_STAKE), "--bots", "hard")
    host: trio.Process | None = None
    leaves: list[tuple[int, int, int]] = []  # (match, seat, its actions when the leave was seen stored)
    before_kill = after_restart = 0  # leaves stored by the host killed next, by a restarted one
    try:
        async with trio.open_nursery() as n:
            for p in (ann, cat):
                n.start_soon(p.run, (LOOPBACK, port))
            live: dict[int, int] = {}
            pending: tuple[int, int] | None = None  # (match, seat) Cat wants to leave
            left_at_kill = False
            # which comes first and how long before the other: each order, close and very close
            cases = [("leave", rng.uniform(0.05, 0.25)), ("leave", rng.uniform(0.0, 0.01)), ("leave", 0.0),
                     ("kill", rng.uniform(0.0, 0.01)), ("kill", rng.uniform(0.05, 0.25))]
            rng.shuffle(cases)
            assert len(cases) == ROUNDS
            for i in range(ROUNDS + 1):
                for p in (ann, cat):
                    p.playing = False
                host, _ = await restart(data, port, tmp_path / f"host{i}.log", live, *ROOM_BOTS, *stake)
                if pending is not None:
                    # the leave is stored by now, or soon (Cat asks the resumed table again),
                    # unless the game ended first
                    m, s = pending
                    seen: list[int] = []

                    def settled(m=m, s=s, seen=seen) -> bool:
                        with Store.open_dir(data, create=False) as store:
                            r = store.match(m)
                        if r.seats[s].left:
                            seen.append(len(r.actions))  # every action from here on came after the leave
                            return True
                        return r.status != "live" and cat.intent is None

                    await until(settled, 15, f"Cat's leave of match {m} settled")
                    if seen:
                        leaves.append((m, s, seen[0]))
                        before_kill += left_at_kill
                        after_restart += not left_at_kill
                    pending = None
                if i == ROUNDS:
                    break
                # a random moment of a game Cat plays, then a leave and a kill close together
                await until(lambda: cat.in_game() and ann.playing, 20, "Cat and Ann at a game")
                await trio.sleep(rng.uniform(0.05, 0.5))
                await until(cat.in_game, 20, "Cat at a game under way")
                pending = seat_of(data, cat.token)
                first, gap = cases[i]
                if first == "leave":
                    cat.want_leave()
                    await trio.sleep(gap)
                    live = await kill(host, data, f"after kill {i}")
                else:
                    live = await kill(host, data, f"after kill {i}")
                    await trio.sleep(gap)
                    cat.want_leave()
                with Store.open_dir(data, create=False) as store:
                    left_at_kill = store.match(pending[0], actions=False).seats[pending[1]].left
            await play_out(host, data, set(live) | {m for m, _, _ in leaves})
            n.cancel_scope.cancel()
    finally:
        await stop(host)
    assert len(leaves) >= ROUNDS - 2, f"only {len(leaves)} of {ROUNDS} leaves landed in a running game"
    assert before_kill >= 1 and after_restart >= 1, (before_kill, after_restart)

    with Store.open_dir(data, create=False) as store:
        records = check_matches(store, min_finished=ROUNDS)  # incl. Cat's coins against the stored matches
        cat_id = store.find_profile("Cat").id
        ledgers = {mid: store.ledger(match_id=mid) for mid in records}
        stats = store.stats("Cat")
    by_bot = 0
    left = {(r.id, x.seat) for r in records.values() for x in r.seats if x.left}
    assert left == {(m, s) for m, s, _ in leaves}, "a seat left that the test did not see leave, or the reverse"
    for r in records.values():
        fees = [(x.seat, x.src, x.amount) for x in ledgers[r.id] if x.reason == "fee"]
        assert fees == [(s, cat_id, LEAVE_FEE) for m, s in sorted(left) if m == r.id], f"match {r.id}: fees {fees}"
    for m, s, seen in leaves:
        r = records[m]
        assert r.status == "finished", f"match {m} with a leaver did not reach its end"
        assert r.seats[s].profile_id == cat_id
        # from the leave on, the seat is the house's: a room bot plays it (after a restart too),
        # and whatever it wins goes to the house, never to Cat
        labels = {a.by for a in r.actions[seen:] if a.seat == s}
        assert labels <= BOT_LABELS, f"match {m}: seat {s} after the leave played by {labels}"
        by_bot += sum(1 for a in r.actions[seen:] if a.seat == s)
        assert not [x for x in ledgers[m] if x.dst == cat_id], f"match {m} paid the leaver"
    assert by_bot >= 1, "no room bot moved at a leaver's seat"
    assert stats.total.left == len(leaves)
    # Cat was told each fee at most once, and the right amount
    assert len(cat.fees) <= len(leaves) and all(f["change"] == -LEAVE_FEE for f in cat.fees), cat.fees
    assert check_views(records, [ann, cat]) > 50


# ------------------------------------------------------------------ a room between games


@pytest.mark.slow
async def test_a_room_between_games_comes_back_after_a_kill_with_its_seats_and_standing(tmp_path):
    """Room R (Classic, 3 seats, stake 10) seats Ann and Bob (profiles) and a
    room bot; its first game ends and the host is killed in the minute before
    the next deal (`--rematch-after 60`). The restarted host opens R again
    from its store: each peer, reconnecting by itself with its token, is back
    at its seat; the room keeps its game count and running score, no coin
    moved meanwhile, and it deals game 2 to the same two once both are back."""
    data, port = tmp_path / "data", free_port()
    peers = [Peer("Ann", "medium"), Peer("Bob", "easy")]
    host = await start_host(data, port, tmp_path / "host0.log", *ROOM_BOTS, "--rematch-after", "60")
    try:
        async with trio.open_nursery() as n:
            for p in peers:
                n.start_soon(p.run, (LOOPBACK, port))
            with Store.open_dir(data, create=False) as store:
                await until(lambda: any(r.status == "finished" for r in store.history()), 30, "a first game's end")
            await until(lambda: all(p.views and p.views[-1][3].get("outcome") for p in peers), 10, "both saw it")
            seats = [(p.seat, p.token) for p in peers]
            for p in peers:
                p.playing = False
            host.kill()
            await host.wait()
            with Store.open_dir(data, create=False) as store:
                ((name, kept, _),) = store.open_rooms()
                assert store.unfinished() == [] and store.check() == []
                coins = {q.name: store.balance(q.id) for q in store.profiles()}
            assert name == "R" and kept["games"] == 1 and [x and x["token"] for x in kept["seats"]][:2] == [
                t for _, t in sorted(seats)]
            log = tmp_path / "host1.log"
            host = await start_host(data, port, log, *ROOM_BOTS, "--rematch-after", "60")
            assert "room R: opened again after the restart, game 1 played" in log.read_text()
            await until(lambda: all(p.playing for p in peers), 20, "both peers at a new game")
            assert [(p.seat, p.token) for p in peers] == seats  # the same seats, the same tokens
            with Store.open_dir(data, create=False) as store:
                first, second = sorted(m.id for m in store.history())[:2]  # (game 2 may be over already)
                record = store.match(second, actions=False)
                assert [s.token for s in record.seats if s.kind == "player"] == [t for _, t in sorted(seats)]
                assert record.settings["games"] == 2 and record.settings["tally"] == kept["tally"]
                if record.status == "live":  # no coin moved between the kill and game 2's stakes
                    assert {q.name: store.balance(q.id) for q in store.profiles()} == {
                        k: v - STAKE for k, v in coins.items()}
            n.cancel_scope.cancel()
    finally:
        await stop(host)
