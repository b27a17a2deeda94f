"""The referee and the rooms (pure): clocks as deadlines with explicit `now`."""

from __future__ import annotations

import random

import pytest
from _rig_classic import game as classic_game
from _rig_std import shed_to_one

from lanmatch.rules import GAMES
from lanmatch.table import (
    AUTOPILOT_PACE,
    Referee,
    Rejected,
    Room,
    RoomError,
)


def person_table(table="classic", players=3, clock=30.0, **kw):
    """Seat 0 a person, the others room bots (Medium)."""
    return Referee("colormatch", table, players, seed=11, now=0.0, clock=clock,
                   bots={s: "medium" for s in range(1, players)}, **kw)


def run_bots_until(ref: Referee, seat: int, now: float, limit: int = 500) -> float:
    """Let timers fire until `seat` is the one whose decision it is; returns the time."""
    for _ in range(limit):
        if ref.over or ref._decision and ref._decision[0] == seat and not ref.seats[seat].room_bot:
            return now
        d = ref.next_deadline()
        now = max(now, d)
        ref.tick(now)
    raise AssertionError("the seat never got the turn")


def first_person_turn(table="classic", **kw):
    ref = person_table(table, **kw)
    now = run_bots_until(ref, 0, 0.0)
    return ref, now


# ------------------------------------------------------------------ move clock


def test_nothing_happens_before_the_move_clock_runs_out():
    ref, t0 = first_person_turn()
    step = ref.state_id
    assert ref.next_deadline() == pytest.approx(t0 + 30.0)
    assert ref.tick(t0 + 29.99) is None
    assert ref.state_id == step


def test_a_timed_out_move_is_played_by_hard_and_counts_a_miss():
    ref, t0 = first_person_turn()
    legal = ref.legal(0)
    seat, action, kind = ref.tick(t0 + 30.0)
    assert (seat, kind) == (0, "move")
    assert action in legal
    assert ref.seats[0].misses == 1 and not ref.seats[0].autopilot
    assert ref.log[-1][3] == "move"


def test_every_view_carries_the_time_left():
    ref, t0 = first_person_turn()
    timers = ref.timers(t0 + 12.5)
    assert {"seat": 0, "kind": "move", "left": 17.5} in timers


def test_three_misses_in_a_row_put_the_seat_on_autopilot_at_computer_speed():
    ref, now = first_person_turn(players=2)
    for miss in (1, 2, 3):
        now = run_bots_until(ref, 0, now)
        assert ref.next_deadline() == pytest.approx(now + 30.0) or ref.seats[0].autopilot
        now = ref.next_deadline()
        ref.tick(now)
        assert ref.seats[0].misses == miss
    assert ref.seats[0].autopilot
    now = run_bots_until(ref, 0, now)
    if ref.over:
        pytest.skip("the hand ended with the third miss")
    assert ref.next_deadline() == pytest.approx(now + AUTOPILOT_PACE)
    assert ref.timers(now)[0]["kind"] == "autopilot"
    assert ref.tick(now + AUTOPILOT_PACE)[2] == "autopilot"


def test_any_input_ends_the_autopilot_and_restores_the_full_clock():
    ref, now = first_person_turn(players=2)
    for _ in range(3):
        now = run_bots_until(ref, 0, now)
        now = ref.next_deadline()
        ref.tick(now)
    assert ref.seats[0].autopilot
    now = run_bots_until(ref, 0, now)
    with pytest.raises(Rejected):  # even a stale action is input
        ref.act(0, {"type": "draw"}, ref.state_id - 1, now + 0.1)
    assert not ref.seats[0].autopilot and ref.seats[0].misses == 0
    assert ref.next_deadline() == pytest.approx(now + 0.1 + 30.0)


def test_an_own_move_resets_the_misses():
    ref, now = first_person_turn(players=2)
    now = ref.next_deadline()
    ref.tick(now)
    assert ref.seats[0].misses == 1
    now = run_bots_until(ref, 0, now)
    ref.act(0, ref.legal(0)[0], ref.state_id, now + 1)
    assert ref.seats[0].misses == 0


# ------------------------------------------------------------------ PLAY/KEEP


def test_play_keep_window_plays_the_drawn_card_after_six_seconds():
    g = classic_game(
        "classic",
        [["Y1", "Y2", "Y3", "Y4", "Y6", "Y7", "Y8"], ["B1", "B2", "B3", "B4", "B6", "B7", "B8"]],
        "R5",
        ["R9"],
        first=0,
    )
    ref = Referee("colormatch", "classic", 2, seed=1, now=0.0, engine=g, bots={1: "medium"})
    ref.act(0, {"type": "draw"}, ref.state_id, 1.0)
    assert ref.view(0)["phase"] == "drawn"
    assert ref.next_deadline() == pytest.approx(7.0)
    assert ref.timers(4.0) == [{"seat": 0, "kind": "keep", "left": 3.0}]
    assert ref.tick(6.99) is None
    seat, action, kind = ref.tick(7.0)
    assert (seat, kind, action) == (0, "keep", {"type": "expire", "penalty": False})
    assert ref.view(0)["top"] == "R9"  # the drawn card was played
    assert ref.seats[0].misses == 0  # the PLAY/KEEP window is not a missed move


def test_keep_in_time_is_a_normal_move():
    g = classic_game(
        "classic",
        [["Y1", "Y2", "Y3", "Y4", "Y6", "Y7", "Y8"], ["B1", "B2", "B3", "B4", "B6", "B7", "B8"]],
        "R5",
        ["R9"],
    )
    ref = Referee("colormatch", "classic", 2, seed=1, now=0.0, engine=g, bots={1: "medium"})
    ref.act(0, {"type": "draw"}, ref.state_id, 1.0)
    ref.act(0, {"type": "keep"}, ref.state_id, 3.0)
    assert "R9" in ref.view(0)["hand"]


# ------------------------------------------------------------------ call / catch


def cards_referee(agent0="person", bots=None):
    g = shed_to_one("cards")  # seat 0 holds one card, its call window is open, seat 1 to act
    return Referee("colormatch", "cards", 3, seed=1, now=0.0, engine=g,
                   bots=bots if bots is not None else {}, agents={0: agent0}, clock=30.0)


def test_cards_a_person_who_misses_the_call_draws_two_after_three_seconds():
    ref = cards_referee()
    assert {"seat": 0, "kind": "call", "left": 3.0} in ref.timers(0.0)
    assert ref.tick(2.99) is None
    seat, action, kind = ref.tick(3.0)
    assert (seat, kind, action) == (0, "call", {"type": "expire", "penalty": True})
    assert len(ref.view(0)["hand"]) == 3
    assert ref.view(0)["windows"] == []


def test_cards_a_call_in_time_closes_the_window():
    ref = cards_referee()
    ref.act(0, {"type": "call"}, ref.state_id, 1.0)
    assert ref.view(0)["windows"] == []
    assert all(t["kind"] != "call" for t in ref.timers(1.0))


def test_cards_a_bot_that_did_not_call_is_not_penalised_and_may_be_caught_for_three_seconds():
    ref = cards_referee(agent0="bot")  # a remote bot node at seat 0 that forgot
    seat, action, _ = ref.tick(3.0)
    assert action == {"type": "expire", "penalty": False}
    assert len(ref.view(0)["hand"]) == 1
    assert ref.view(0)["windows"] == [{"seat": 0, "call": False, "catch": True}]
    assert {"seat": 0, "kind": "catch", "left": 3.0} in ref.timers(3.0)
    ref.act(2, {"type": "catch", "seat": 0}, ref.state_id, 4.0)  # seat 2 catches it, out of turn
    assert len(ref.view(0)["hand"]) == 3


def test_cards_a_catch_left_to_expire_costs_nothing():
    ref = cards_referee(agent0="bot")
    ref.tick(3.0)
    assert ref.tick(5.99) is None
    seat, action, kind = ref.tick(6.0)
    assert (kind, action) == ("catch", {"type": "expire", "penalty": False})
    assert ref.view(0)["windows"] == [] and len(ref.view(0)["hand"]) == 1


def test_cards_a_room_bot_calls_through_the_same_door():
    ref = cards_referee(bots={0: "medium"})  # Medium always calls
    seat, action, kind = ref.tick(0.0)
    assert (seat, action, kind) == (0, {"type": "call"}, "chance")
    assert ref.log[-1][1:] == (0, {"type": "call"}, "chance")


def test_standard_windows_have_no_timer_the_engine_closes_them():
    g = shed_to_one("standard")
    ref = Referee("colormatch", "standard", 3, seed=1, now=0.0, engine=g)
    assert [t["kind"] for t in ref.timers(0.0)] == ["move"]
    ref.act(1, {"type": "draw"}, ref.state_id, 1.0)
    assert ref.view(0)["windows"] == []


# ------------------------------------------------------------------ refusals


def test_refusals_have_codes_and_change_nothing():
    ref, now = first_person_turn()
    before = ref.view(0)
    sid = ref.state_id
    cases = [
        ({"type": "draw"}, sid + 1, "stale"),
        ({"type": "draw"}, sid - 1, "stale"),
        ({"type": "expire", "penalty": True}, sid, "host_only"),
        ({"type": "play", "card": "NOPE"}, sid, "illegal"),
    ]
    for action, state_id, code in cases:
        with pytest.raises(Rejected) as e:
            ref.act(0, action, state_id, now)
        assert e.value.code == code and e.value.reason
    with pytest.raises(Rejected) as e:
        ref.act(1, {"type": "draw"}, sid, now)  # a seat whose turn it is not
    assert e.value.code == "not_your_turn"
    assert ref.view(0) == before and ref.state_id == sid


def test_actions_after_the_end_are_refused():
    ref = Referee("colormatch", "toll", 2, seed=3, now=0.0, bots={0: "easy", 1: "easy"})
    now = 0.0
    for _ in range(3000):
        if ref.over:
            break
        now = ref.next_deadline()
        ref.tick(now)
    assert ref.over and ref.next_deadline() is None
    with pytest.raises(Rejected) as e:
        ref.act(0, {"type": "draw"}, ref.state_id, now)
    assert e.value.code == "over"


@pytest.mark.parametrize("table", list(GAMES["colormatch"].tables))
def test_room_bots_finish_a_game_at_every_table(table):
    ref = Referee("colormatch", table, 4, seed=5, now=0.0, bots={0: "easy", 1: "medium", 2: "easy", 3: "easy"})
    now = 0.0
    for _ in range(5000):
        if ref.over:
            break
        now = max(now, ref.next_deadline())
        ref.tick(now)
    assert ref.over
    assert all(by in ("bot", "chance", "call", "catch", "keep") for *_, by in ref.log)


def test_room_bots_finish_dominoes():
    ref = Referee("dominoes", None, 3, seed=5, now=0.0, bots={0: "easy", 1: "hard", 2: "medium"})
    now = 0.0
    for _ in range(5000):
        if ref.over:
            break
        now = max(now, ref.next_deadline())
        ref.tick(now)
    assert ref.over and max(ref.outcome["points"]) >= 100


def test_a_decision_made_on_a_worker_thread_plays_the_same_game_as_tick():
    """The host runs a Hard bot's `choose` on a worker thread between `due`
    and `resolve`; the game is the same as `tick` plays in one go."""
    import threading

    def play(split: bool) -> list:
        ref = Referee("colormatch", "classic", 3, seed=8, now=0.0, bots={0: "hard", 1: "medium", 2: "hard"})
        now, heavy = 0.0, set()
        for _ in range(3000):
            if ref.over:
                break
            now = max(now, ref.next_deadline())
            if not split:
                ref.tick(now)
                continue
            job = ref.due(now)
            if job is None:
                continue
            if job.heavy:
                heavy.add(job.timer.seat)
                out: list = []
                worker = threading.Thread(target=lambda job=job, out=out: out.append(job.choose()))
                worker.start()
                worker.join(timeout=60)
                action = out[0]
            else:
                action = job.choose()
            ref.resolve(job, action, now)
        assert ref.over
        return [(seat, action, by) for _, seat, action, by in ref.log], heavy

    threaded, heavy = play(split=True)
    assert heavy == {0, 2}  # only the Hard seats are worth a thread
    assert threaded == play(split=False)[0]


def test_a_stale_decision_is_dropped_and_changes_nothing():
    ref, t0 = first_person_turn()
    job = ref.due(t0 + 30.0)  # the clock ran out: the Hard stand-in is asked ...
    assert job.heavy and job.timer.seat == 0
    action = job.choose()
    ref.act(0, ref.legal(0)[0], ref.state_id, t0 + 30.0)  # ... but the person acted first
    step, log, misses = ref.state_id, list(ref.log), ref.seats[0].misses
    assert ref.resolve(job, action, t0 + 30.0) is None
    assert (ref.state_id, ref.log, ref.seats[0].misses) == (step, log, misses)


def test_bot_delay_paces_the_room_bots():
    ref = Referee("colormatch", "classic", 2, seed=5, now=0.0, bots={0: "easy", 1: "easy"}, bot_delay=0.8)
    assert ref.next_deadline() == pytest.approx(0.8)


def test_spectator_view_has_no_private_cards():
    ref = Referee("colormatch", "daynight", 3, seed=2, now=0.0, bots={0: "easy", 1: "easy", 2: "easy"})
    for _ in range(20):
        ref.tick(ref.next_deadline())
    v = ref.spectator_view()
    assert v["hand"] == [] and v["seat"] is None and "drawn" not in v
    assert all("cards" not in e for e in v["events"])
    assert sorted(v["far"]) == [0, 1, 2]


# ------------------------------------------------------------------ rooms


def test_tokens_come_from_the_rng_given():
    a, b = Room("r"), Room("r")
    assert a.join("Ann", random.Random(1)) == b.join("Ann", random.Random(1))
    seat, token = a.join("Bob", random.Random(2))
    assert len(token) == 32 and a.seat_of_token(token) == seat
    assert a.seat_of_token("0" * 32) is None


def test_join_refusals():
    rng = random.Random(3)
    room = Room("r", seats=2, password="pw")
    with pytest.raises(RoomError) as e:
        room.join("A", rng)
    assert e.value.code == "bad_password"
    room.join("A", rng, password="pw", seat=1)
    with pytest.raises(RoomError) as e:
        room.join("B", rng, password="pw", seat=1)
    assert e.value.code == "seat_taken"
    with pytest.raises(RoomError) as e:
        room.join("B", rng, password="pw", seat=5)
    assert e.value.code == "bad_seat"
    room.join("B", rng, password="pw")
    with pytest.raises(RoomError) as e:
        room.join("C", rng, password="pw")
    assert e.value.code == "room_full"


def test_bad_room_settings_are_refused_with_the_engines_sentence():
    with pytest.raises(RoomError) as e:
        Room("r", "colormatch", "classic", seats=9)
    assert e.value.code == "bad_room"
    with pytest.raises(RoomError):
        Room("r", "colormatch", "toll", options={"stacking": True})


def test_start_fills_empty_seats_with_bots_and_leaving_hands_the_seat_to_a_bot():
    rng = random.Random(4)
    room = Room("r", seats=3, bot_level="easy")
    room.join("Ann", rng, seat=0)
    room.join("Bob", rng, seat=1)
    ref = room.start(0.0, seed=9)
    assert set(ref.bots) == {2}
    assert [s["kind"] for s in room.public()["seats"]] == ["person", "person", "bot"]
    with pytest.raises(RoomError) as e:
        room.join("Cy", rng)
    assert e.value.code == "started"
    room.leave(1, 1.0)
    assert set(ref.bots) == {1, 2}


def test_rematch_keeps_the_seats_and_the_running_score():
    rng = random.Random(5)
    room = Room("r", "colormatch", "toll", seats=2, bot_level="easy")
    room.join("Ann", rng, agent="bot")
    with pytest.raises(RoomError):
        room.rematch(0.0, 1)
    ref = room.start(0.0, seed=1)
    ref.set_room_bot(0, "easy")  # let the referee play Ann's seat too
    now = 0.0
    while not ref.over:
        now = ref.next_deadline()
        ref.tick(now)
    assert room.game_ended() and room.state == "over"
    first = ref.outcome
    ref2 = room.rematch(now, seed=2)
    assert ref2 is not ref and room.state == "playing" and room.seats[0].name == "Ann"
    assert room.tally["points"] == first["points"]
    assert sum(room.tally["wins"]) == pytest.approx(1.0 if first["winners"] else 0.0)


def test_public_room_state_holds_no_token_and_no_password():
    room = Room("r", password="secret")
    _, token = room.join("Ann", random.Random(6), password="secret")
    text = repr(room.public()) + repr(room.summary())
    assert token not in text and "secret" not in text
    assert room.summary()["password"] is True


def test_a_bots_illegal_choice_is_noted_and_replaced_so_the_table_goes_on():
    ref = Referee("colormatch", "classic", 2, seed=5, now=0.0, bots={0: "easy", 1: "easy"})

    class Broken:
        def observe(self, view):
            pass

        def declines(self, view, legal):
            return False

        def choose(self, view, legal):
            return {"type": "play", "card": "NOPE"}

    seat = ref._decision[0]
    ref.bots[seat] = Broken()
    played = ref.tick(ref.next_deadline())
    assert played is not None and played[1]["type"] != "play" or played[1].get("card") != "NOPE"
    assert ref.notes and "NOPE" in ref.notes[0]
