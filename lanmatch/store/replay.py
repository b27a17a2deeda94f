"""Deal a stored match again and replay its actions (pure: the engine only).

Same seed + same options + same actions = same game (SPEC section 3), so a
`MatchRecord` is enough to rebuild a running table after a crash
(`rebuild_game`) or to step through a finished one (`iter_replay`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from lanmatch.rules import IllegalAction, new_game
from lanmatch.store.errors import ReplayError
from lanmatch.store.records import MatchRecord


def deal(record: MatchRecord) -> Any:
    """A fresh engine game dealt as the match was (no action applied).

    Raises:
        ReplayError: the engine refuses the stored settings.
    """
    try:
        return new_game(record.game, table=record.table, players=record.players, seed=record.seed,
                        options=dict(record.options), first_seat=record.first_seat)
    except ValueError as e:  # includes a game or table no longer (or not yet) registered
        raise ReplayError(f"Match {record.id} cannot be dealt again: {e}") from None


def rebuild_game(record: MatchRecord, upto: int | None = None) -> Any:
    """The engine game after the first `upto` recorded actions (default: all).

    Raises:
        ReplayError: the engine refuses a recorded action (the log does not
            belong to this deal, or the engine changed its rules).
    """
    g = deal(record)
    for a in record.actions[:upto]:
        _apply(record, g, a.index, a.seat, a.action)
    return g


def _apply(record: MatchRecord, g: Any, index: int, seat: int, action: dict[str, Any]) -> list[dict[str, Any]]:
    try:
        return g.act(seat, dict(action))
    except IllegalAction as e:
        raise ReplayError(
            f"Match {record.id} cannot be replayed: action {index} ({action!r} by seat {seat}) "
            f"is refused by the engine: {e.reason}"
        ) from None


@dataclass(frozen=True)
class ReplayStep:
    """One step of a replay. Step 0 is the deal (no action); step `i` shows the
    table after the `i`-th recorded action.

    `views` holds every seat's view after the step (the match is over:
    nothing is hidden any more), `before` the acting seat's view just
    before it acted (what it chose from), `events` the engine's events.
    """

    number: int
    seat: int | None
    action: dict[str, Any] | None
    by: str | None
    events: list[dict[str, Any]]
    before: dict[str, Any] | None
    views: list[dict[str, Any]]
    outcome: dict[str, Any] | None


def iter_replay(record: MatchRecord) -> Iterator[ReplayStep]:
    """The deal, then one step per recorded action.

    Raises:
        ReplayError: as `rebuild_game` (raised when the bad step is reached).
    """
    g = deal(record)
    n = record.players
    yield ReplayStep(0, None, None, None, [], None, [g.view(s) for s in range(n)], g.outcome)
    for number, a in enumerate(record.actions, 1):
        before = g.view(a.seat)
        events = _apply(record, g, a.index, a.seat, a.action)
        yield ReplayStep(number, a.seat, dict(a.action), a.by, events, before, [g.view(s) for s in range(n)], g.outcome)


__all__ = ["ReplayStep", "deal", "iter_replay", "rebuild_game"]
