"""The replay viewer of `lanmatch history --replay` (full screen), and the
match file of `lanmatch history --export` that it plays back on any machine.

How this works. A match is a plain dict, the export format (docs/store.md
"Match files"): game, table, players, options, seed, first seat, the seats'
names, every engine action in order and the outcome. `match_from_json`
checks such a dict field by field (a bad file is one `MatchFileError`
sentence, never a traceback); `replay_steps` deals the game again with the
engine (`lanmatch.rules.new_game`: same seed, same options, same actions =
same game) and applies every action, keeping every seat's view after each
step, then checks that the game ends in the outcome the file (or the store)
recorded. The console may not read the store (tests/test_layers.py): the
command line turns a stored match into this dict (`lanmatch.cli`), so a
stored match and a file take the same road.

`ReplayModel` is the pure viewer: the steps, a cursor, a scroll offset and
the digits typed so far; `key(name)` moves it, `screen(width, height)`
draws exactly `height` lines of at most `width` characters. Every hand is
shown (the match is over), each from its own seat's view. `run_viewer`
puts the model in a prompt_toolkit Application.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from typing import Any

from lanmatch.console.render import (
    Words,
    action_label,
    describe_events,
    pieces_of,
    plural,
    render_outcome,
    render_table,
    shown,
    wrap_items,
)
from lanmatch.rules import GAMES, IllegalAction, get_game, new_game, title_of
from lanmatch.table.referee import BY_WORDS

FORMAT = "lanmatch-match"
VERSION = 1
MAX_ACTIONS = 100_000
"""A match file with more actions than this is refused (no real match is that long)."""

PAGE = 10
"""Steps that PgUp/PgDn jump."""


class MatchFileError(ValueError):
    """A match file (or stored match) that cannot be replayed; the message is
    one sentence for the person."""


# ---------------------------------------------------------------- the match file


def _need(cond: bool, what: str) -> None:
    if not cond:
        raise MatchFileError(f"This is not a lanmatch match file: {what}.")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def match_from_json(data: Any) -> dict[str, Any]:
    """Check a decoded match file; return it with its defaults filled in.

    Raises:
        MatchFileError: a missing or ill-typed field, an unknown game or
            table, a seat count the game does not seat (one sentence).
    """
    _need(isinstance(data, dict), "it holds no JSON object")
    _need(data.get("format") == FORMAT, f'"format" is not "{FORMAT}"')
    version = data.get("version")
    _need(_is_int(version), '"version" is not a number')
    if version > VERSION:
        raise MatchFileError(f"This match file is version {version}; this lanmatch reads version {VERSION}. "
                             "Update lanmatch to replay it.")
    game = data.get("game")
    _need(isinstance(game, str), '"game" is missing')
    if game not in GAMES:
        raise MatchFileError(f"This match is of the game {game!r}, which this lanmatch does not know "
                             f"(it knows {', '.join(GAMES)}).")
    declared = get_game(game)
    table = data.get("table")
    _need(table is None or isinstance(table, str), '"table" is neither a name nor null')
    try:
        table = declared.table_name(table)
    except ValueError as e:
        raise MatchFileError(f"This match cannot be dealt here: {e}.") from None
    players = data.get("players")
    _need(_is_int(players), '"players" is not a number')
    if not declared.seats_ok(players):
        raise MatchFileError(f"{declared.title} seats {declared.min_players} to {declared.max_players} players, "
                             f"not {players}.")
    options = data.get("options", {})
    _need(isinstance(options, dict), '"options" is not an object')
    seed = data.get("seed")
    _need(_is_int(seed), '"seed" is not a number')
    first = data.get("first_seat")
    _need(first is None or (_is_int(first) and 0 <= first < players), '"first_seat" is not a seat')
    seats = data.get("seats")
    if seats is None:
        seats = [{"seat": s, "name": f"Seat {s}"} for s in range(players)]
    _need(isinstance(seats, list) and len(seats) == players, f'"seats" does not list {players} seats')
    names = []
    for s, seat in enumerate(seats):
        _need(isinstance(seat, dict) and isinstance(seat.get("name"), str), f"seat {s} has no name")
        name = " ".join(shown(seat["name"]).split())[:32]  # a file's text never reaches the terminal raw
        names.append(name or f"Seat {s}")
    actions = data.get("actions")
    _need(isinstance(actions, list), '"actions" is not a list')
    _need(len(actions) <= MAX_ACTIONS, f"more than {MAX_ACTIONS} actions")
    checked = []
    for i, a in enumerate(actions):
        _need(isinstance(a, dict) and _is_int(a.get("seat")) and 0 <= a["seat"] < players
              and isinstance(a.get("action"), dict) and isinstance(a["action"].get("type"), str)
              and (a.get("by") is None or isinstance(a.get("by"), str)),
              f"action {i} is not {{seat, action: {{type, ...}}, by}}")
        checked.append({"seat": a["seat"], "action": a["action"], "by": a.get("by")})
    outcome = data.get("outcome")
    _need(outcome is None or isinstance(outcome, dict), '"outcome" is neither an object nor null')
    return {
        **{k: v for k, v in data.items() if k not in ("seats", "actions")},
        "format": FORMAT, "version": VERSION, "game": game, "table": table, "players": players,
        "options": options, "seed": seed, "first_seat": first, "seats": seats, "names": names,
        "actions": checked, "outcome": outcome, "status": data.get("status", "finished"),
    }


def load_match_file(path: str) -> dict[str, Any]:
    """Read and check a match file.

    Raises:
        MatchFileError: the file cannot be read, is not JSON, or is not a match file.
    """
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(64 * 1024 * 1024 + 1)
    except FileNotFoundError:
        raise MatchFileError(f"There is no file {path!r}.") from None
    except IsADirectoryError:
        raise MatchFileError(f"{path!r} is a directory, not a match file.") from None
    except (OSError, UnicodeDecodeError) as e:
        raise MatchFileError(f"{path!r} cannot be read: {getattr(e, 'strerror', None) or e}.") from None
    if len(text) > 64 * 1024 * 1024:
        raise MatchFileError(f"{path!r} is larger than 64 MiB: not a match file.")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise MatchFileError(f"{path!r} is not JSON ({str(e)[:80]}).") from None
    return match_from_json(data)


def dump_match(match: dict[str, Any]) -> str:
    """A match dict as the file's text: JSON, one field a line, one action a line."""
    def js(v: Any) -> str:
        return json.dumps(v, sort_keys=True, ensure_ascii=False, separators=(",", ": "))

    head = [f" {js(k)}: {js(v)}" for k, v in sorted(match.items()) if k not in ("actions", "names")]
    acts = ",\n".join(f"  {js(a)}" for a in match["actions"])
    head.append(' "actions": [\n' + acts + "\n ]" if acts else ' "actions": []')
    return "{\n" + ",\n".join(head) + "\n}\n"


# ---------------------------------------------------------------- replaying


@dataclass(frozen=True)
class Step:
    """One step: number 0 is the deal; step `i` is the table after the
    `i`-th action (`before`: the acting seat's view just before it)."""

    number: int
    seat: int | None
    action: dict[str, Any] | None
    by: str | None
    events: list[dict[str, Any]]
    before: dict[str, Any] | None
    views: list[dict[str, Any]]
    outcome: dict[str, Any] | None


def _same(a: Any, b: Any) -> bool:
    """Equal once both have been through JSON (tuples are lists, keys strings)."""
    return json.loads(json.dumps(a, sort_keys=True)) == json.loads(json.dumps(b, sort_keys=True))


def replay_steps(match: dict[str, Any]) -> list[Step]:
    """Deal the match again and apply every action; check the outcome.

    Raises:
        MatchFileError: the engine refuses the deal or an action, or the game
            does not end in the recorded outcome (the file does not belong to
            this lanmatch's rules, or was edited).
    """
    n = match["players"]
    label = f"Match {match['id']}" if match.get("id") is not None else "This match"
    try:
        g = new_game(match["game"], table=match["table"], players=n, seed=match["seed"],
                     options=dict(match["options"]), first_seat=match["first_seat"])
    except (ValueError, TypeError) as e:
        raise MatchFileError(f"{label} cannot be dealt again: {e}.") from None
    steps = [Step(0, None, None, None, [], None, [g.view(s) for s in range(n)], g.outcome)]
    for i, a in enumerate(match["actions"]):
        seat = a["seat"]
        before = g.view(seat)
        try:
            events = g.act(seat, dict(a["action"]))
        except IllegalAction as e:
            raise MatchFileError(f"{label} cannot be replayed: action {i} ({a['action']!r} by seat {seat}) "
                                 f"is refused by the rules: {e.reason}") from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            raise MatchFileError(f"{label} cannot be replayed: action {i} ({a['action']!r} by seat {seat}) "
                                 "is not an action of this game.") from None
        steps.append(Step(i + 1, seat, dict(a["action"]), a.get("by"), events, before,
                          [g.view(s) for s in range(n)], g.outcome))
    recorded = match.get("outcome")
    if recorded is not None:
        if g.outcome is None:
            raise MatchFileError(f"{label} does not replay to its end: after {len(match['actions'])} actions "
                                 "the game is still on, but the record says it ended.")
        if not _same(g.outcome, recorded):
            raise MatchFileError(f"{label} replays to another outcome than the one recorded "
                                 f"(winners {g.outcome.get('winners')}, recorded {recorded.get('winners')}).")
    return steps


def distinct_names(names: list[str]) -> list[str]:
    """Seat names, made distinct (`Bot (easy) #2`) where two are the same."""
    return [f"{x} #{i}" if names.count(x) > 1 else x for i, x in enumerate(names)]


# ---------------------------------------------------------------- the model


def _palette_table(match: dict[str, Any]) -> str | None:
    spec = get_game(match["game"]).table(match["table"])
    return spec.name if spec.palette is not None else None


def _wrap(lines: list[str], width: int) -> list[str]:
    out = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        indent = " " * min(len(line) - len(line.lstrip(" ")) + 2, width // 2)
        out += textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False) or [""]
    return out


class ReplayModel:
    """The viewer's state: the steps, which one is shown, the body's scroll and
    the digits typed (Enter jumps to that step). Pure: no terminal."""

    def __init__(self, match: dict[str, Any], steps: list[Step]):
        self.match = match
        self.steps = steps
        self.names = distinct_names(match["names"])
        self.palette = _palette_table(match)
        self.pieces = pieces_of(match["game"])
        self.cursor = 0
        self.scroll = 0
        self.typed = ""
        self.note = ""
        self.done = False

    @property
    def last(self) -> int:
        return len(self.steps) - 1

    # ----------------------------------------------------------- moving

    def go(self, number: int) -> None:
        """Show step `number` (clamped to the match)."""
        number = max(0, min(self.last, number))
        if number != self.cursor:
            self.scroll = 0
        self.cursor = number

    def key(self, name: str) -> None:
        """One key: right/n/space next, left/p/backspace back, pageup/pagedown
        10 steps, home/end, up/down scroll, digits then enter jump, escape
        forgets the digits, q quits."""
        self.note = ""
        if name.isdigit() and len(name) == 1:
            self.typed = (self.typed + name)[-7:]
            return
        if name == "enter" and self.typed:
            want = int(self.typed)
            self.typed = ""
            if want > self.last:
                self.note = f"There is no step {want}: the match has steps 0 to {self.last}."
            self.go(want)
            return
        if name in ("backspace",) and self.typed:
            self.typed = self.typed[:-1]
            return
        if name == "escape" and self.typed:  # forgets the digits; a second escape quits
            self.typed = ""
            return
        self.typed = ""
        if name in ("right", "n", "space", "enter", "l"):
            self.go(self.cursor + 1)
        elif name in ("left", "p", "backspace", "h"):
            self.go(self.cursor - 1)
        elif name == "pagedown":
            self.go(self.cursor + PAGE)
        elif name == "pageup":
            self.go(self.cursor - PAGE)
        elif name in ("home", "g"):
            self.go(0)
        elif name in ("end", "G"):
            self.go(self.last)
        elif name in ("down", "j"):
            self.scroll += 1
        elif name in ("up", "k"):
            self.scroll = max(0, self.scroll - 1)
        elif name in ("q", "escape", "c-c"):
            self.done = True

    # ----------------------------------------------------------- drawing

    def title(self) -> str:
        m = self.match
        what = title_of(m["game"], m["table"])
        ident = f"match {m['id']}" if m.get("id") is not None else "match file"
        return f"Replay of {ident} · {what} · step {self.cursor} of {self.last}"

    def _hand_line(self, s: int, view: dict[str, Any], w: Words, width: int) -> list[str]:
        hand = self.pieces.order(list(view.get("hand") or []))
        mark = "▶ " if view.get("turn") == s and view.get("phase") != "over" else "  "
        head = f"{mark}{self.names[s]}'s {self.pieces.hand} ({plural(len(hand), self.pieces.unit)}): "
        return wrap_items(head, [self.pieces.piece(c, w) for c in hand] or ["empty"], width)

    def body(self, width: int) -> list[str]:
        """The shown step in words: what happened, the table, every hand, the outcome."""
        step = self.steps[self.cursor]
        game = self.match["game"]
        w = Words(self.palette, self.names, -1)
        lines: list[str] = []
        if step.action is None:
            lines.append("The deal. Seats: " + ", ".join(f"{x} (seat {s})" for s, x in enumerate(self.names)) + ".")
        else:
            assert step.seat is not None and step.before is not None
            label = action_label(step.action, step.before, w)
            if step.action.get("type") == "expire":
                label = "the host ended a timed window" + (" with a penalty" if step.action.get("penalty") else "")
            by = BY_WORDS.get(step.by or "")
            lines.append(f"Move {step.number}: {self.names[step.seat]}: {label}" + (f" ({by})" if by else ""))
            lines += ["  " + t for t in describe_events(step.events, self.palette, names=self.names, seat=-1,
                                                         game=game)]
        lines.append("")
        table = render_table(step.views[0], [], self.palette, names=self.names, width=width, recent=0,
                             watcher=True).splitlines()
        own = f"{self.names[0]}'s {self.pieces.hand} ("
        cut = next((i for i, x in enumerate(table) if x.startswith(own)), len(table))
        lines += table[:cut]
        lines.append("")
        for s, view in enumerate(step.views):
            lines += self._hand_line(s, view, w, width)
        if step.outcome is not None:
            nobody = {**step.views[0], "seat": None}  # told from no seat's side: "Ann won", not "You won"
            lines += ["", *render_outcome(step.outcome, nobody, self.palette, names=self.names,
                                          width=width).splitlines()]
        elif self.cursor == self.last and self.match.get("status") != "finished":
            lines += ["", f"The record ends here: the match is {self.match.get('status') or 'unfinished'}."]
        return _wrap(lines, width)

    def footer(self) -> str:
        if self.typed:
            return f"Go to step: {self.typed}_  (Enter: go · Esc: cancel)"
        if self.note:
            return self.note
        return "←/→ step · PgUp/PgDn 10 · Home/End · digits+Enter: step · ↑/↓ scroll · q quit"

    def screen(self, width: int = 80, height: int = 24) -> list[str]:
        """Exactly `height` lines of at most `width` characters."""
        width = max(20, width)
        rows = max(1, height - 2)
        body = self.body(width)
        self.scroll = max(0, min(self.scroll, len(body) - rows))
        shown = body[self.scroll:self.scroll + rows]
        more = self.scroll + rows < len(body)
        if more and shown:
            shown[-1] = f"… {len(body) - self.scroll - rows + 1} more lines (↓)"
        shown += [""] * (rows - len(shown))
        out = [self.title(), *shown, self.footer()][:height]
        return [x[:width] for x in out]


# ---------------------------------------------------------------- the terminal


_KEYS = {
    "right": "right", "left": "left", "pageup": "pageup", "pagedown": "pagedown", "home": "home", "end": "end",
    "up": "up", "down": "down", "enter": "enter", "backspace": "backspace", "escape": "escape", "c-c": "c-c",
    " ": "space",
}


def build_viewer(model: ReplayModel):
    """The prompt_toolkit Application showing `model` full screen."""
    from prompt_toolkit.application import Application, get_app
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    def text():
        size = get_app().output.get_size()
        return "\n".join(model.screen(size.columns, size.rows))

    kb = KeyBindings()

    def press(name: str):
        def handler(event) -> None:
            model.key(name)
            if model.done:
                event.app.exit(result=0)
        return handler

    for key, name in _KEYS.items():
        kb.add(key, eager=(key == "escape"))(press(name))
    for ch in "0123456789npqjklhgG":
        kb.add(ch)(press(ch))
    return Application(layout=Layout(Window(FormattedTextControl(text), wrap_lines=False)), key_bindings=kb,
                       full_screen=True, mouse_support=False)


def run_viewer(model: ReplayModel) -> int:
    """Show the replay until q; 0."""
    build_viewer(model).run()
    return 0


def step_texts(model: ReplayModel, width: int = 80) -> list[str]:
    """Every step as text (for a pipe: no terminal to step through)."""
    out = []
    for n in range(len(model.steps)):
        model.go(n)
        out.append("=== " + model.title() + " ===\n" + "\n".join(model.body(width)))
    return out


__all__ = [
    "FORMAT",
    "VERSION",
    "MatchFileError",
    "ReplayModel",
    "Step",
    "build_viewer",
    "distinct_names",
    "dump_match",
    "load_match_file",
    "match_from_json",
    "replay_steps",
    "run_viewer",
    "step_texts",
]
