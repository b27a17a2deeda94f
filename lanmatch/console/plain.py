"""The plain mode of `lanmatch play --plain` (and of `lanmatch play` when
`TERM=dumb`): for screen readers and simple terminals.

How this works. No full screen, no colors, no cursor movement, no
completion menu: every line is a sentence, written once, in order. The game
is the line mode's (`quick.QuickGame`: the host's referee in-process, the
person in seat 0, the referee's bots in the others, no clock); `PlainGame`
changes only how it speaks:

- every event is one sentence (`Bot 1 played red 5.`);
- when a decision comes to the person, the table is told in a few
  sentences (whose turn, the top card or the line's open ends, the counts,
  the person's hand), then every legal action the engine offers is listed
  on its own line, numbered (`3: play Wild, name blue.`), and the prompt
  says which numbers it takes (`Your move, 1 to 7: `). Colour choices,
  swaps, calls, catches, challenges, PLAY/KEEP, Dominoes' ends, draw and
  pass are all entries of that list: nothing needs a key of its own;
- a colour is said by its word only (the shape after it, `●`, is left out:
  a screen reader would spell it);
- the game ends with one sentence saying who won, then one with the points.

Input is plain lines (`input()`-style, no prompt_toolkit), so a pipe plays
as well as a person. `q` leaves, `?` tells the table's rules.
"""

from __future__ import annotations

import re
from typing import Any, TextIO

from lanmatch.console.quick import BadInput, LineAsker, QuickGame, run_quick
from lanmatch.console.render import Words, action_label, pieces_of, plural, render_outcome
from lanmatch.rules.cards import PALETTES

WIDTH = 10_000
"""No wrapping: one sentence is one line, however long."""

_SHAPES = sorted({shape for p in PALETTES.values() for _, shape in p["colors"].values()}, key=len, reverse=True)
_SHAPE_RE = re.compile(r"([A-Za-z]) (?:" + "|".join(re.escape(s) for s in _SHAPES) + r")(?=$|[\s,.;:!)])")
_GLYPHS_RE = re.compile(r"\s*[↻↺▶]\s*")


def unshaped(text: str) -> str:
    """`red ● 5` -> `red 5`: a colour's word without its shape (and no arrows)."""
    return _GLYPHS_RE.sub(" ", _SHAPE_RE.sub(r"\1", text)).strip()


def sentence(text: str) -> str:
    """One line of words as a sentence: shapes out, runs of spaces and `·`
    separators made commas and semicolons, a full stop at the end."""
    t = unshaped(text).strip().strip("*").strip()
    t = t.replace(" · ", "; ")
    t = re.sub(r"\s{2,}", ", ", t)
    if t and t[-1] not in ".!?:":
        t += "."
    return t


class PlainAsker(LineAsker):
    """Plain lines from stdin; when stdin is not a terminal (nothing echoes
    what was typed), the answer is written after the prompt, so that what was
    chosen stays in the transcript."""

    def ask(self, message: str, options: list[tuple[str, str]], check: Any) -> str:
        """Ask until `check(text)` accepts the line; return it.

        Raises:
            EOFError: stdin ended.
        """
        import sys

        try:
            echo = not sys.stdin.isatty()
        except (AttributeError, ValueError):
            echo = True
        while True:
            self.out.write(message)
            self.out.flush()
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            if echo:
                self.out.write(line.strip() + "\n")
            try:
                check(line)
            except BadInput as e:
                self.out.write(f"{e}\n")
                continue
            return line


class PlainGame(QuickGame):
    """The line mode's game, told in sentences with numbered choices."""

    def __init__(self, *args: Any, **kw: Any):
        kw.update(color=False, clear=False, width=WIDTH)
        super().__init__(*args, **kw)

    # ----------------------------------------------------------- words

    def say(self, text: str = "") -> None:
        super().say(unshaped(text) if text else text)

    def tell_event(self, line: str) -> None:
        self.say(sentence(line))

    def table_sentences(self, view: dict[str, Any]) -> list[str]:
        """The table as the person needs it to decide, in sentences."""
        w = Words(self.table, self.names, 0)
        pieces = pieces_of(self.game)
        counts = view.get("counts") or []
        seats = []
        for s, n in enumerate(counts):
            tags = [unshaped(t) for t in pieces.tags(view, w, s)]
            seats.append(f"{w.name(s)} {plural(n, pieces.unit)}" + (f" ({', '.join(tags)})" if tags else ""))
        out = [f"At the table: {'; '.join(seats)}."] if seats else []
        for line in pieces.middle(view, w, WIDTH):
            out.append(sentence(line))
        far = {int(k): v for k, v in (view.get("far") or {}).items()}
        for s, faces in sorted(far.items()):
            if s != 0 and faces:
                out.append(f"{w.name(s)}'s cards show on their far side: {', '.join(w.card(c) for c in faces)}.")
        hand = pieces.order(list(view.get("hand") or []))
        held = ", ".join(pieces.piece(c, w) for c in hand) or "nothing"
        out.append(f"Your {pieces.hand}, {plural(len(hand), pieces.unit)}{pieces.hand_note(view)}: {held}.")
        if view.get("phase") == "drawn" and view.get("drawn"):
            out.append(f"You drew {w.card(view['drawn'])}: play it now, or keep it.")
        return out

    def show_table(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> None:
        self.say("")
        for line in self.table_sentences(view):
            self.say(line)
        self.list_choices(legal, view)
        self._mark_seen()

    def list_choices(self, legal: list[dict[str, Any]], view: dict[str, Any]) -> None:
        w = Words(self.table, self.names, 0)
        self.say(f"Your choices, {len(legal)}:")
        for i, a in enumerate(legal, 1):
            self.say(f"{i}: {sentence(action_label(a, view, w))}")

    def turn_prompt(self, legal: list[dict[str, Any]]) -> str:
        return f"Your move, 1 to {len(legal)}: " if len(legal) > 1 else "Your move, 1: "

    def window_prompt(self, legal: list[dict[str, Any]]) -> str:
        return f"Your choice, 1 to {len(legal)}, or Enter to let it go: "

    def tell_outcome(self, outcome: dict[str, Any]) -> None:
        self.say(plain_outcome(outcome, self.g.view(0), self.table, self.names))

    again_prompt = "Play again? 1: yes, a new deal. 2: no, leave. Choose 1 or 2: "
    again_options = [("1", "a new deal"), ("2", "leave")]

    def wants_again(self, text: str) -> bool:
        return text.strip().lower() in ("1", "y", "yes")


def plain_outcome(outcome: dict[str, Any], view: dict[str, Any], table: str | None, names: list[str]) -> str:
    """The end in two sentences: `Game over (went out). You won!` then the points."""
    lines = render_outcome(outcome, view, table, names=names, width=WIDTH).splitlines()
    head = " ".join(sentence(x) for x in lines[:2])
    w = Words(table, names, view.get("seat", 0))
    pieces = pieces_of(view.get("game"))
    hands = outcome.get("hands")
    parts = []
    for s, p in enumerate(outcome.get("points") or []):
        part = f"{w.name(s)} {p}"
        if hands is not None and s < len(hands) and hands[s]:
            part += " (held " + ", ".join(pieces.piece(c, w) for c in pieces.order(hands[s])) + ")"
        parts.append(part)
    return unshaped(head + (f" Points: {'; '.join(parts)}." if parts else ""))


def run_plain(game: str, table: str | None, seats: int, level: str, seed: int | None, *, fast: bool = False,
              out: TextIO | None = None) -> int:
    """Plain games until the person stops (see `quick.run_quick`)."""
    import sys

    out = out or sys.stdout
    return run_quick(game, table, seats, level, seed, fast=fast, out=out, asker=PlainAsker(out), color=False,
                     kind=PlainGame)


def main_play(args: Any) -> int:
    """`lanmatch play --plain` from parsed arguments (see `lanmatch.cli`)."""
    return run_plain(args.game, args.table, args.seats, args.bots, args.seed, fast=args.fast)


__all__ = ["PlainAsker", "PlainGame", "main_play", "plain_outcome", "run_plain", "sentence", "unshaped"]
