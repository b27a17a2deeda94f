"""The text of `lanmatch stats` and `lanmatch history` (and `--replay`): the edge, beside cli.py.

Reads a host's store (never writes to it, beyond migrating an old file) and
prints plain-text tables. A replay steps through a stored match with every
seat's view, rendered by the console's pure text functions
(`lanmatch.console.render`): the match is over, so nothing is hidden. This
module may import the store and the console's words; neither imports it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any, TextIO

from lanmatch.console.render import (
    Words,
    action_label,
    describe_events,
    render_outcome,
    render_table,
)
from lanmatch.rules import game_title, get_game, title_of
from lanmatch.store import (
    MatchRecord,
    MatchSummary,
    ReplayStep,
    Store,
    StoreError,
    Tally,
    db_path,
    default_data_dir,
    held_by_a_host,
    iter_replay,
)
from lanmatch.table.referee import BY_WORDS
from lanmatch.table.tournament import Tournament


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], right: Sequence[int] = ()) -> str:
    """Rows under headers in aligned columns (columns listed in `right` align right)."""
    cells = [[str(h) for h in headers]] + [["-" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for n, r in enumerate(cells):
        parts = [c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(r)]
        lines.append("  ".join(parts).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def when(ts: float | None) -> str:
    """Wall-clock seconds as local `YYYY-MM-DD HH:MM`."""
    return "-" if ts is None else datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def _tally_cells(t: Tally) -> list[Any]:
    return [t.played, t.won, t.lost, t.drawn, t.left, signed(t.coins)]


_TALLY_HEADERS = ["played", "won", "lost", "drawn", "left", "net coins"]


def table_title(game: str, table: str) -> str:
    return title_of(game, table)


# ------------------------------------------------------------------ stats


def stats_text(store: Store, profile: str | None = None) -> str:
    """Every profile in one table, or one profile in detail.

    Raises:
        UnknownProfile: no profile called `profile`.
    """
    if profile is not None:
        return _profile_text(store, profile)
    summaries = store.summaries()
    head = (
        f"Store {store.path} · {len(summaries)} profile{'' if len(summaries) == 1 else 's'} · "
        f"{store.coins_issued()} play coins issued · the house holds {store.house_balance()}"
    )
    if not summaries:
        return head + "\nNo profiles yet: a profile is made when a player first connects to this host with one."
    rows = [
        [s.profile.name, s.balance, *_tally_cells(s.total), s.daily_best]
        for s in summaries
    ]
    return head + "\n\n" + format_table(
        ["profile", "coins", *_TALLY_HEADERS, "daily best"], rows, right=range(1, 9)
    )


def _profile_text(store: Store, name: str) -> str:
    st = store.stats(name)
    t = st.total
    lines = [
        f"{st.profile.name}: {st.balance} coins · {t.played} played, {t.won} won, {t.lost} lost, "
        f"{t.drawn} drawn, {t.left} left · net {signed(t.coins)} coins"
        + (f" · daily best {st.daily_best} turns" if st.daily_best is not None else ""),
        f"(profile since {when(st.profile.created)}; a first-to-N match counts once, at its end)",
    ]
    if not t.played:
        lines.append("No finished matches yet.")
        return "\n".join(lines)
    right = range(1, 7)
    sections: list[tuple[str, list[str], list[list[Any]]]] = [
        ("By table", ["table"], [[table_title(g, tb), *_tally_cells(x)] for g, tb, x in st.by_table]),
        ("By bot level of the opponents", ["bots"], [[lv, *_tally_cells(x)] for lv, x in st.by_bots]),
        ("By number of opponents", ["opponents"], [[n, *_tally_cells(x)] for n, x in st.by_opponents]),
        ("By room", ["room"], [[k, *_tally_cells(x)] for k, x in st.by_kind]),
    ]
    for title, first, rows in sections:
        lines += ["", title, format_table([*first, *_TALLY_HEADERS], rows, right=right)]
    if st.ratings:  # Glicko-2, per game (docs/store.md, "Ratings")
        lines += ["", "Ratings (Glicko-2: rating ± twice the deviation)",
                  format_table(["game", "rating", "±", "rated matches"],
                               [[game_title(r.game), r.shown, round(2 * r.rating.rd), r.matches] for r in st.ratings],
                               right=[1, 2, 3])]
    if st.daily:
        lines += ["", "Daily bests (fewest turns among daily wins)",
                  format_table(["date", "turns"], [list(d) for d in st.daily], right=[1])]
    return "\n".join(lines)


# ------------------------------------------------------------------ history


def _result(m: MatchSummary, hosted: bool = False) -> str:
    if m.status == "live":  # `hosted`: a host holds the store now
        return "being played now" if hosted else "unfinished (resumes when the host starts)"
    if m.status == "abandoned":
        return "abandoned, stakes returned"
    if not m.winners:
        return "draw"
    # a seat whose person left was played on by a bot: its win is the seat's, not theirs
    # (a play-test read "Ivy won" for a match Ivy had left, her stake forfeit)
    names = [f"{m.names[w]}'s seat (a bot, after {m.names[w]} left)" if w in m.left else m.names[w]
             for w in m.winners if w < len(m.names)]
    return (" and ".join(names) + (" won" if len(names) == 1 else " shared the win"))


def history_text(store: Store, limit: int = 20, profile: str | None = None) -> str:
    """The latest matches, newest first (a match not finished is "being
    played now" while a host holds the store, else it waits for the host).

    Raises:
        UnknownProfile.
    """
    matches = store.history(limit, profile=profile)
    if not matches:
        return "No matches stored yet."
    hosted = held_by_a_host(store.path)
    rows = [
        [
            m.id,
            when(m.ended if m.ended is not None else m.started),
            table_title(m.game, m.table),
            m.mode,
            m.room,
            f"{m.stake} coins" if m.kind == "coins" else "practice",
            ", ".join(m.names),
            _result(m, hosted),
            m.actions,
        ]
        for m in matches
    ]
    out = format_table(["id", "when", "table", "mode", "room", "stake", "seats", "result", "actions"], rows,
                       right=[0, 8])
    out += "\n\nlanmatch history --replay ID steps through one of them."
    tournaments = store.tournaments(limit) if profile is None else []
    return out + "".join("\n\n" + tournament_text(t) for t in tournaments)


def tournament_text(kept: dict[str, Any]) -> str:
    """A kept tournament (`Store.tournaments`'s): its matches and its standings."""
    t = Tournament(kept["name"], kept["matches"], tuple(kept["rooms"]))
    for r in kept["results"]:
        t.played += 1
        for seat in r["seats"]:
            t.add(seat["name"], seat["points"], seat["place"] == 1)
    state = "over" if t.over else f"{t.played} of {t.matches} matches played"
    head = (f"Tournament {t.name!r} ({when(kept['created'])}, {len(t.rooms)} room"
            f"{'s' if len(t.rooms) != 1 else ''}, {t.matches} matches): {state}")
    rows = [[k + 1, s.name, s.points, s.wins, s.played] for k, s in enumerate(t.table())]
    body = format_table(["#", "player", "points", "wins", "played"], rows, right=[0, 2, 3, 4]) if rows else "  no match yet"
    return head + "\n" + body


# ------------------------------------------------------------------ replay


def display_names(record: MatchRecord) -> list[str]:
    """Seat names, made distinct (`Bot (easy) #2`) where two are the same."""
    names = record.names()
    return [f"{n} #{i}" if names.count(n) > 1 else n for i, n in enumerate(names)]


def palette_table(record: MatchRecord) -> str | None:
    """The table whose palette writes the match's cards (the renderer's
    `palette_table`), or None for a game that writes its own pieces (its
    table declares no palette) or one no longer registered."""
    try:
        spec = get_game(record.game).table(record.table)
    except ValueError:
        return None
    return spec.name if spec.palette is not None else None


def step_text(record: MatchRecord, step: ReplayStep, total: int, names: list[str],
              seats: Sequence[int] | None = None, width: int = 80) -> str:
    """One replay step in words: what happened, then the chosen seats' views."""
    palette = palette_table(record)
    title = f"Match {record.id} · {table_title(record.game, record.label)} · step {step.number} of {total}"
    lines = [f"=== {title} ==="]
    if step.action is None:
        lines.append("The deal. Seats: " + ", ".join(f"{names[s]} (seat {s})" for s in range(record.players)))
    else:
        assert step.seat is not None and step.before is not None
        w = Words(palette, names, -1)
        label = action_label(step.action, step.before, w)
        if step.action.get("type") == "expire":
            label = "the host ended a timed window" + (" with a penalty" if step.action.get("penalty") else "")
        by = BY_WORDS.get(step.by or "")
        lines.append(f"{names[step.seat]}: {label}" + (f"  ({by})" if by else ""))
        told = describe_events(step.events, palette, names=names, seat=-1, game=record.game)
        lines += ["  " + t for t in told]
    for s in seats if seats is not None else range(record.players):
        lines.append(f"--- {names[s]}'s view (seat {s}) ---")
        lines.append(render_table(step.views[s], [], palette, names=names, width=width, recent=0, watcher=True))
    if step.outcome is not None:
        nobody = {**step.views[0], "seat": None}  # told from no seat's side: "Ann won", not "You won"
        lines += ["", render_outcome(step.outcome, nobody, palette, names=names, width=width)]
    return "\n".join(lines)


def replay_texts(store: Store, match_id: int, seats: Sequence[int] | None = None, width: int = 80) -> Iterator[str]:
    """Every step of a stored match as text.

    Raises:
        UnknownMatch; ReplayError when a step cannot be replayed.
        ValueError: a seat that is not at the table.
    """
    record = store.match(match_id)
    if seats is not None:
        for s in seats:
            if not 0 <= s < record.players:
                raise ValueError(f"match {match_id} has seats 0-{record.players - 1}, not {s}")
    names = display_names(record)
    total = len(record.actions)
    for step in iter_replay(record):
        yield step_text(record, step, total, names, seats, width)


def step_through(texts: Iterator[str], out: TextIO, ask: Callable[[], str] | None) -> int:
    """Print each text; with `ask` (a terminal), wait for Enter between them, q quits.
    Returns how many were shown."""
    shown = 0
    for text in texts:
        if shown and ask is not None:
            try:
                answer = ask()
            except (EOFError, KeyboardInterrupt):
                out.write("\n")
                break
            if answer.strip().lower() in ("q", "quit"):
                break
        out.write(text + "\n\n")
        out.flush()
        shown += 1
    return shown


# ------------------------------------------------------------------ commands


def _open(args: Any) -> Store:
    data = args.data if args.data is not None else default_data_dir()
    return Store.open(db_path(data), create=False)


def main_report(args: Any, out: TextIO | None = None) -> int:
    """`lanmatch stats` and `lanmatch history`: 0 on success, 1 when the store
    refuses (no store, unknown profile or match), 2 for a bad number."""
    out = out or sys.stdout
    command = args.command
    limit = getattr(args, "limit", 20)
    if limit is not None and limit < 1:
        print(f"lanmatch {command}: --limit must be at least 1, not {limit} (see --help)", file=sys.stderr)
        return 2
    try:
        store = _open(args)
    except StoreError as e:
        print(f"lanmatch {command}: {e}", file=sys.stderr)
        return 1
    try:
        if command == "stats":
            out.write(stats_text(store, args.profile) + "\n")
            return 0
        if getattr(args, "replay", None) is None:
            out.write(history_text(store, limit, getattr(args, "profile", None)) + "\n")
            return 0
        seats = None if getattr(args, "seat", None) is None else [args.seat]
        texts = replay_texts(store, args.replay, seats)
        interactive = sys.stdin.isatty() and out.isatty()

        def ask() -> str:
            return input("Enter: next step · q: quit ")

        step_through(texts, out, ask if interactive else None)
        return 0
    except StoreError as e:
        print(f"lanmatch {command}: {e}", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"lanmatch {command}: {e} (see --help)", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `lanmatch history --replay 3 | head`
        return 0
    finally:
        store.close()


__all__ = [
    "display_names",
    "format_table",
    "history_text",
    "main_report",
    "palette_table",
    "replay_texts",
    "stats_text",
    "step_text",
    "step_through",
    "tournament_text",
]
