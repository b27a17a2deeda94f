"""Partners (2 against 2): the team rules every game shares, in one place.

How this works. A room's option `teams: true` seats four players as two
teams, partners opposite: seats 0 and 2 against seats 1 and 3 (`TEAMS`). A
game whose table declares the option (`"teams"` in its `options`, read by
`teams_ok`) validates it with `check` and then asks this module who wins and
what each seat scores:

* going out: the seat's team wins (`winners_of`: both partners);
* a blocked round: the team whose partners hold the fewest points together
  wins (`lowest_team`; equal totals: no team does);
* scores are the team's: both partners carry the same score, the team's
  (`spread`), so a match ends for both partners at once.

The pot of a coin room is split between the winning partners by the store's
settlement (every winner takes `pot // winners`), and a rating counts a team
win as each partner beating each opponent (`store/rating.py`, `partners`).
The view carries `teams`: [[0, 2], [1, 3]] (docs/protocol.md). Partners see
nothing of each other's hands: a view holds its own seat's cards only.
"""

from __future__ import annotations

from typing import Any

SEATS = 4
TEAMS: tuple[tuple[int, int], tuple[int, int]] = ((0, 2), (1, 3))


def teams_ok(spec: Any) -> bool:
    """Does a table declaration accept the `teams` option?"""
    return "teams" in getattr(spec, "options", ())


def check(value: Any, players: int) -> bool:
    """The `teams` option's value checked: True plays partners.

    Raises:
        ValueError: not true/false, or partners without exactly four seats.
    """
    if not isinstance(value, bool):
        raise ValueError(f"option 'teams' takes true or false, not {value!r}")
    if value and players != SEATS:
        raise ValueError(f"partners are played by exactly {SEATS} players (2 against 2), not {players}")
    return value


def team_of(seat: int) -> int:
    """The team (0 or 1) of a seat."""
    return seat % 2


def partner(seat: int) -> int:
    """The seat opposite: the partner."""
    return (seat + 2) % SEATS


def winners_of(seat: int) -> list[int]:
    """Both seats of `seat`'s team, in seat order."""
    return list(TEAMS[team_of(seat)])


def win_share(winners: list[int], teams: bool) -> float:
    """What a game counts for each of its `winners` in a room's running
    score: 1/k for k winning sides, partners (`teams`) being one side, so a
    team's win is a whole win for each partner, as the stats count it."""
    sides = {team_of(s) for s in winners} if teams else set(winners)
    return 1 / len(sides) if sides else 0.0


def team_sums(values: list[int]) -> list[int]:
    """Per team (0, 1): the partners' values added."""
    return [sum(values[s] for s in team) for team in TEAMS]


def lowest_team(held: list[int]) -> int | None:
    """The team holding the fewest points together; None when both hold the same."""
    a, b = team_sums(held)
    return None if a == b else (0 if a < b else 1)


def spread(team_points: list[int]) -> list[int]:
    """Per seat: its team's points (both partners carry the same)."""
    return [team_points[team_of(s)] for s in range(SEATS)]


def view_key() -> list[list[int]]:
    """The view's `teams` value: [[0, 2], [1, 3]]."""
    return [list(t) for t in TEAMS]


def of_options(options: Any) -> bool:
    """Did a room's (or a stored match's) options ask for partners?"""
    return isinstance(options, dict) and options.get("teams") is True
