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
