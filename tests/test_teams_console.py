"""Partners in the console: the create form's Partners row (four seats, a
table that declares `teams`), the room list's "· partners" and the team
marks on the table's seat rows."""

from __future__ import annotations

from lanmatch.console.model import RoomForm
from lanmatch.console.render import render_table
from lanmatch.console.screen import room_cells
from lanmatch.rules import new_game


def test_the_create_form_offers_partners_at_four_seats_and_sends_the_option():
    for game in ("colormatch", "dominoes"):
        form = RoomForm(name="Pairs", game=game, seats=4)
        assert "teams" in form.rows() and form.value_text("teams").startswith("off")
        assert "options" not in form.message()
        form.change("teams", 1)
        assert form.value_text("teams").startswith("partners")
        assert form.message()["options"] == {"teams": True}
        form.seats = 3
        assert "teams" not in form.rows() and "options" not in form.message()


def test_the_room_list_says_partners():
    row = {"name": "Pairs", "game": "dominoes", "table": None, "seats": 4, "free": 2, "state": "open", "teams": True}
    assert room_cells(row)[1].endswith("· partners")
    assert "partners" not in room_cells({**row, "teams": False})[1]


def test_seat_rows_mark_the_team_and_the_partner():
    g = new_game("colormatch", table="standard", players=4, seed=3, options={"teams": True})
    text = render_table(g.view(1), g.legal_actions(1), "standard", names=["Ann", "Bob", "Cy", "Di"])
    rows = {name: line for line in text.splitlines() for name in ("Ann", "Bob", "Cy", "Di")
            if line.strip().lstrip("▶ ").startswith(name)}
    assert "team A" in rows["Ann"] and "team A" in rows["Cy"]
    assert "team B (partner)" in rows["Di"] and "(partner)" not in rows["Ann"]
    plain = new_game("colormatch", table="standard", players=4, seed=3)
    assert "team A" not in render_table(plain.view(1), plain.legal_actions(1), "standard")


def test_the_full_screen_table_marks_teams_and_the_replay_names_no_partner():
    """A play-test saw no team on the full-screen table (only the line mode
    and the replay had the marks), and the replay, which tells no seat,
    called both opponents of the first team "(partner)"."""
    from _console import push, seated_ui, text

    from lanmatch.console.render import Words, team_tag

    g = new_game("colormatch", table="standard", players=4, seed=3, options={"teams": True})
    ui = seated_ui(g, table="standard")
    push(ui, g)
    rows = [line for line in text(ui, width=100).splitlines() if "cards" in line][:4]
    assert "team A" in rows[0] and "team B" in rows[1] and "team A (partner)" in rows[2], rows
    everyone = Words("standard", ["Ann", "Bob", "Cy", "Di"], -1, False)  # the replay's: no seat
    assert [team_tag(g.view(0), everyone, s) for s in range(4)] == ["team A", "team B", "team A", "team B"]
    assert RoomForm(name="P", game="colormatch", seats=4, options={"teams": True}).value_text("teams") \
        == "partners: seats 0+2 against 1+3"  # as the waiting room numbers them


def test_a_team_win_is_a_whole_win_for_each_partner_in_the_rooms_score():
    """A play-test read "You 0.50 won · Bob 0.50 won" after its team won,
    where the stats count a whole win for each partner; the room's running
    score (host) and the console's standing now say 1 each."""
    from _console import push, seated_ui

    from lanmatch import sim
    from lanmatch.table import Room

    room = Room("Duo", game="colormatch", table="standard", seats=4, options={"teams": True})
    ref = room.start(now=0.0, seed=5)
    for s in range(4):
        ref.set_room_bot(s, "easy", 0.0)
    sim.run_referee(ref)
    assert room.game_ended()
    winners = ref.outcome["winners"]
    assert len(winners) == 2 and winners[0] % 2 == winners[1] % 2  # the two partners
    tally = room.next_tally()
    assert [tally["wins"][s] for s in winners] == [1.0, 1.0] and sum(tally["wins"]) == 2.0
    ui = seated_ui(ref.g, table="standard")
    ui.room = {**room.public(0), "tally": {"wins": [0] * 4, "points": [0] * 4}, "games": 1}
    push(ui, ref.g)
    assert [ui.standing()[0][s] for s in winners] == [1.0, 1.0]

