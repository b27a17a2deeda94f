"""Who pays whom, and what a finished match counts for (pure).

How this works. Coins move only between accounts (see `records.Account`): the
*bank* mints each new profile's grant, the *house* posts for bots and takes
fees, odd coins and forfeits, each coin match has a *pot*, and each profile
has its own account. These functions compute the transfers; the `Store`
writes them, each once (its `key` is unique in the ledger), in the same
transaction as the event that causes them.

The rules (SPEC section 9, with the decisions it leaves open):

- every seat posts the stake into the pot when the match begins; the house
  posts for bots;
- the winner takes the pot; `k` winners share it: each gets `pot // k`, and
  the `pot % k` odd coins go to the house (no seat is favoured);
- no winner (a Dominoes draw, a drawn Color Cards round) or an abandoned
  match: every stake goes back to whoever posted it;
- a player who leaves a running coin match forfeits the stake (it stays in
  the pot; what their seat wins or gets back from then on goes to the house,
  whose bot now plays it) and pays a leaving fee of 10 % of the stake,
  rounded up to a whole coin, or all they have left when that is less (a
  balance never goes negative).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lanmatch.store.records import Account, MatchRecord, SeatRecord, Transfer

NEW_PROFILE_COINS = 1000
LEAVING_FEE_PERCENT = 10


def leaving_fee(stake: int) -> int:
    """10 % of the stake, rounded up to a whole coin (a stake of 1 costs 1)."""
    return (stake * LEAVING_FEE_PERCENT + 99) // 100


def fee_charged(stake: int, balance: int) -> int:
    """The fee actually charged: the leaving fee, or the whole balance if that is less."""
    return max(0, min(leaving_fee(stake), balance))


def poster(seat: SeatRecord) -> Account:
    """Who posts a seat's stake: its player, or the house for a bot."""
    return seat.profile_id if seat.kind == "player" and seat.profile_id is not None else "house"


def payee(seat: SeatRecord) -> Account:
    """Who receives what a seat wins or gets back: its player, unless the seat
    is a bot's or its player left (then the house)."""
    if seat.kind == "player" and seat.profile_id is not None and not seat.left:
        return seat.profile_id
    return "house"


def stake_transfers(match_id: int, stake: int, seats: tuple[SeatRecord, ...] | list[SeatRecord]) -> list[Transfer]:
    """Every seat posts the stake into the pot."""
    return [Transfer(f"stake:{match_id}:{s.seat}", "stake", poster(s), "pot", stake, s.seat) for s in seats]


def payout_transfers(record: MatchRecord, winners: list[int] | None) -> list[Transfer]:
    """The pot out: to the winners (None or [] means no winner: stakes back)."""
    if record.kind != "coins":
        return []
    m, stake, seats = record.id, record.stake, record.seats
    if not winners:
        return [Transfer(f"refund:{m}:{s.seat}", "refund", "pot", payee(s), stake, s.seat) for s in seats]
    pot = stake * len(seats)
    share, odd = divmod(pot, len(winners))
    out = [
        Transfer(f"win:{m}:{w}", "win", "pot", payee(seats[w]), share, w) for w in sorted(winners) if share
    ]
    if odd:
        out.append(Transfer(f"odd:{m}", "odd", "pot", "house", odd, None))
    return out


def check_winners(record: MatchRecord, outcome: Any) -> list[int]:
    """The outcome's `winners`, checked: distinct seats of this match.

    Raises:
        ValueError: an outcome without a proper `winners` list.
    """
    if not isinstance(outcome, dict) or not isinstance(outcome.get("winners"), list):
        raise ValueError(f"an outcome is a dict with a 'winners' list, not {outcome!r}")
    winners = outcome["winners"]
    if any(type(w) is not int or not 0 <= w < record.players for w in winners) or len(set(winners)) != len(winners):
        raise ValueError(f"winners must be distinct seats 0-{record.players - 1}, not {winners!r}")
    return list(winners)


@dataclass(frozen=True)
class ResultRow:
    """What one seat's match counts for in the stats (one row per seat per match)."""

    match_id: int
    seat: int
    profile_id: int | None
    game: str
    table: str  # the table, or the game's name where its only table is unnamed ("dominoes")
    mode: str  # single | match | daily
    kind: str  # practice | coins
    result: str  # win | loss | draw | left
    winners: int  # how many seats won (a shared win has several)
    opponents: int
    bot_level: str  # the level of the bots among the opponents: none | easy | medium | hard | mixed
    points: int | None
    turns: int | None
    daily: str | None  # the date of a daily deal
    coins: int  # the seat's net coins in this match (its player's, or the house's for a bot)
    ended: float


def bot_level_against(seats: tuple[SeatRecord, ...], me: int) -> str:
    levels = {s.bot_level or "remote" for s in seats if s.kind == "bot" and s.seat != me}
    if not levels:
        return "none"
    return levels.pop() if len(levels) == 1 else "mixed"


def result_rows(
    record: MatchRecord, outcome: dict[str, Any], transfers: list[Transfer], ended: float
) -> list[ResultRow]:
    """One stats row per seat of a finished match. A seat whose player left counts
    as `left` whatever the bot in its place did afterwards."""
    winners = outcome.get("winners") or []
    points = outcome.get("points") or []
    turns = outcome.get("turns") or []
    daily = record.options.get("date") if record.mode == "daily" else None
    rows = []
    for s in record.seats:
        if s.left:
            result = "left"
        elif not winners:
            result = "draw"
        else:
            result = "win" if s.seat in winners else "loss"
        owner = poster(s)
        net = sum(t.amount for t in transfers if t.seat == s.seat and t.dst == owner) - sum(
            t.amount for t in transfers if t.seat == s.seat and t.src == owner
        )
        rows.append(
            ResultRow(
                match_id=record.id,
                seat=s.seat,
                profile_id=s.profile_id,
                game=record.game,
                table=record.label,
                mode=record.mode,
                kind=record.kind,
                result=result,
                winners=len(winners),
                opponents=record.players - 1,
                bot_level=bot_level_against(record.seats, s.seat),
                points=points[s.seat] if s.seat < len(points) and type(points[s.seat]) is int else None,
                turns=turns[s.seat] if s.seat < len(turns) and type(turns[s.seat]) is int else None,
                daily=daily,
                coins=net,
                ended=ended,
            )
        )
    return rows


__all__ = [
    "LEAVING_FEE_PERCENT",
    "NEW_PROFILE_COINS",
    "ResultRow",
    "check_winners",
    "fee_charged",
    "leaving_fee",
    "payee",
    "payout_transfers",
    "poster",
    "result_rows",
    "stake_transfers",
]
