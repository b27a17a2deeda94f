"""The line mode of `lanmatch play` (`--lines`, or no terminal): one person
against bots, the host's referee in-process, no clock, no network. (In a
terminal `lanmatch play` opens the full-screen console, `app.py`, at a host.)

How this works. No host node and no network, but the host's own referee
(`lanmatch.table.Referee`): the person sits in seat 0, a person seat, and the
referee's room bots in the others, so the bots' moves, their out-of-turn
chances (`declines`, then `choose`), their illegal choices and the timed
windows are the host's. Only the clock differs: the referee's `now` is
virtual and never has to move. The person has no move clock (their `clock`
and PLAY/KEEP window are endless), a bot moves at once (`bot_delay` 0), and a
timed last-card window ends as soon as every seat has had its chance at it
(`call_window` 0): the referee orders timers due together as a window
owner's call, other chances, window ends, then the turn.

`QuickGame.play` loops one step at a time until the game has an outcome; a
step applies what the referee has due (one action), or asks the person:

1. a bot with its own last-card call open is asked first (it calls, or lets
   it pass);
2. the person, when they may call their own last card or catch a bot and
   have not let that chance pass, is asked before anything else happens (a
   short prompt, or the whole table when it is their turn);
3. otherwise the referee's next due timer fires (a bot's move or chance, a
   window's end); the bots' events are printed in words with a short pause
   so the person can follow;
4. with nothing due, it is the person's turn: they are shown the whole table
   and the numbered legal actions and type a number.

Input goes through prompt_toolkit's `PromptSession` (a completer lists the
actions under the arrow keys; a validator answers bad input with one line)
when stdin is a terminal, else through plain `input()` lines.

Last-card windows. Where the host times them (the table's `timed_calls`),
the person's answer is their window's time: after a play leaves them one
card they are offered `call`, and any other input (except `?` and `q`) lets
the window end, which the referee acts as `{"type": "expire", "penalty":
true}` (they draw 2). A bot that let its call pass gets `expire` with
`penalty: false`, which opens the catch window; the person is offered
`catch`, and once they have answered, the second `expire` closes it. Where
the engine closes windows itself, the next player's action does. The
PLAY/KEEP window (`timed_keep`) has no timer here: the person chooses.

Errors never reach the screen as a traceback: `run_quick` writes unexpected
exceptions to a log file (`$XDG_CACHE_HOME/lanmatch/console.log`, default
`~/.cache/lanmatch/console.log`) and prints one line naming it.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import shutil
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any, TextIO

from lanmatch.console.logfile import log_path, write_log
from lanmatch.console.render import (
    Words,
    action_label,
    decline_index,
    describe_events,
    render_outcome,
    render_table,
)
from lanmatch.rules import get_game
from lanmatch.table.referee import Due, Referee

PAUSE = 0.4
"""Seconds between the bots' moves (0 with `--fast`)."""

MAX_STEPS = 20_000
"""A game that has not ended after this many actions is a bug, not a game."""

LINE_CLOCK = {"clock": math.inf, "keep_window": math.inf, "bot_delay": 0.0, "call_window": 0.0}
"""The referee's clock in the line mode (see the module docstring)."""


class QuitGame(Exception):
    """The person asked to leave the table (`q`)."""


class BadInput(ValueError):
    """Input that means nothing here; the message is one line for the person."""


# ---------------------------------------------------------------- input


def parse_choice(text: str, legal: list[dict[str, Any]], *, window: bool = False) -> tuple[str, int | None]:
    """What the person typed: `("action", index)`, `("help", None)`, `("quit", None)`,
    or, in a window prompt only, `("other", None)` for anything else.

    Raises:
        BadInput: at a turn prompt, input that names no action (one line says why).
    """
    t = text.strip().lower()
    if t in ("?", "h", "help"):
        return ("help", None)
    if t in ("q", "quit", "exit"):
        return ("quit", None)
    if t.isdigit() and 1 <= int(t) <= len(legal):
        return ("action", int(t) - 1)
    if t == "d":
        i = decline_index(legal)
        if i is not None:
            return ("action", i)
    if window:
        return ("other", None)
    if t == "d":
        raise BadInput("There is nothing to draw, pass or keep now: type the number of an action.")
    if t.isdigit():
        raise BadInput(f"There is no action {t}: type a number from 1 to {len(legal)}.")
    if not t:
        raise BadInput(f"Type the number of an action (1-{len(legal)}), d to draw, ? for help, q to quit.")
    raise BadInput(f"{text.strip()[:20]!r} is not an action: type 1-{len(legal)}, d, ? or q.")


class LineAsker:
    """Input as plain lines from stdin (used when stdin is not a terminal)."""

    echo = False  # write each answer after its prompt (a transcript shows what was chosen)

    def __init__(self, out: TextIO):
        self.out = out

    def ask(self, message: str, options: list[tuple[str, str]], check: Callable[[str], Any]) -> str:
        """Ask until `check(text)` accepts the line; return it.

        Raises:
            EOFError: stdin ended.
        """
        while True:
            self.out.write(message)
            self.out.flush()
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            if self.echo:
                self.out.write(line.strip() + "\n")
            try:
                check(line)
            except BadInput as e:
                self.out.write(f"{e}\n")
                continue
            return line


class PromptAsker:
    """Input through prompt_toolkit: a completer for the actions, a validator for mistakes."""

    def __init__(self) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.filters import has_completions
        from prompt_toolkit.key_binding import KeyBindings

        kb = KeyBindings()

        @kb.add("down", filter=~has_completions)
        def _open_down(event) -> None:
            event.current_buffer.start_completion(select_first=True)

        @kb.add("up", filter=~has_completions)
        def _open_up(event) -> None:
            event.current_buffer.start_completion(select_last=True)

        self.session: Any = PromptSession(
            key_bindings=kb,
            complete_while_typing=False,
            validate_while_typing=False,
            reserve_space_for_menu=0,
        )

    def ask(self, message: str, options: list[tuple[str, str]], check: Callable[[str], Any]) -> str:
        """Prompt until `check(text)` accepts the line; return it.

        Raises:
            KeyboardInterrupt: Ctrl-C.  EOFError: Ctrl-D or the input closed.
        """
        from prompt_toolkit.completion import Completer, Completion
        from prompt_toolkit.validation import ValidationError, Validator

        class _Options(Completer):
            def get_completions(self, document, complete_event):
                typed = document.text_before_cursor.strip().lower()
                for text, meta in options:
                    if text.startswith(typed):
                        yield Completion(text, start_position=-len(document.text_before_cursor), display_meta=meta)

        class _Check(Validator):
            def validate(self, document) -> None:
                try:
                    check(document.text)
                except BadInput as e:
                    raise ValidationError(message=str(e), cursor_position=len(document.text)) from None

        return self.session.prompt(message, completer=_Options(), validator=_Check())


# ---------------------------------------------------------------- the game


class QuickGame:
    """One game at one table: the person in seat 0, the referee's bots in the others."""

    def __init__(
        self,
        game: str,
        table: str | None,
        seats: int,
        level: str,
        seed: int,
        *,
        out: TextIO,
        asker: Any,
        pause: float = PAUSE,
        color: bool = False,
        clear: bool = False,
        width: int = 80,
    ):
        """Deal the game and seat the bots.

        Raises:
            ValueError: unknown game, table or level, or a seat count the game does not seat.
        """
        self.declared = get_game(game)
        self.game = game
        self.table = self.declared.table_name(table)  # None for a game whose one table is unnamed
        self.spec = self.declared.table(table)  # the table's declaration
        self.seed = seed
        self.level = level
        self.n = seats
        self.now = 0.0  # the referee's virtual clock (see the module docstring)
        self.referee = Referee(
            game, self.table, seats, seed, now=self.now, bots={s: level for s in range(1, seats)}, **LINE_CLOCK
        )
        self.names = ["You"] + [f"Bot {s} ({level})" for s in range(1, seats)]
        self.out = out
        self.asker = asker
        self.pause = pause
        self.color = color
        self.clear = clear
        self.width = width
        self.words = Words(self.table, self.names, 0, color)
        self.seen = 0  # the last event number told
        self.offered: set[int] = set()  # seats whose open windows the person has let pass
        self.log_note: Callable[[str], Any] = _note  # odd things that do not stop the game

    @property
    def g(self) -> Any:
        """The engine's game (read it; actions go through `referee`)."""
        return self.referee.g

    @g.setter
    def g(self, engine: Any) -> None:
        """Take over a game already dealt (a rigged one): the same bots play on."""
        self.referee = Referee(
            self.game, self.table, self.n, self.seed, now=self.now, engine=engine, bots=dict(self.bots), **LINE_CLOCK
        )

    @property
    def bots(self) -> dict[int, Any]:
        """The referee's room bots by seat."""
        return self.referee.bots

    # ----------------------------------------------------------- output

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def _events_since(self) -> list[str]:
        events = [e for e in self.referee.view(0)["events"] if e["n"] > self.seen]
        if events:
            self.seen = events[-1]["n"]
        return describe_events(
            events, self.table, names=self.names, seat=0, color=self.color, game=self.game
        )

    def _mark_seen(self) -> None:
        events = self.referee.view(0)["events"]
        if events:
            self.seen = events[-1]["n"]

    def show_table(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> None:
        if self.clear:
            self.out.write("\x1b[H\x1b[2J")
        else:
            self.say("─" * min(self.width, 60))
        bots = f"{self.n - 1} {self.level} bot{'s' if self.n > 2 else ''}"
        self.say(f"lanmatch play · you + {bots} · seed {self.seed}")
        rows = shutil.get_terminal_size((80, 24)).lines if self.clear else 0
        for recent in (5, 4, 3, 2, 1):  # a short terminal tells fewer recent events
            text = render_table(
                view, legal, self.table, names=self.names, color=self.color, width=self.width, recent=recent
            )
            if not rows or text.count("\n") + 3 <= rows:
                break
        self.say(text)
        self._mark_seen()

    def show_help(self) -> None:
        for line in self.declared.brief:
            self.say(line)
        if self.spec.brief:
            self.say(self.spec.brief)
        self.say(
            "Keys: a number then Enter takes that action · d draws (or passes, or keeps a drawn card) · "
            "Down/Up arrows list the actions · ? this help · q, Ctrl-C or Ctrl-D leave the table."
        )
        self.say(f"The full rules of this table: {self.declared.rules_doc(self.spec.name)}")

    # ----------------------------------------------------------- acting

    def _tell(self) -> list[str]:
        """After an action: print its events, log the bots' illegal choices the
        referee replaced, forget the windows that closed."""
        while self.referee.notes:
            self.log_note(self.referee.notes.pop(0))
        self.offered &= set(self._windows())
        lines = self._events_since()
        for line in lines:
            self.tell_event(line)
        return lines

    def tell_event(self, line: str) -> None:
        """One event in words (the plain mode, `plain.py`, says it as a sentence)."""
        self.say("  · " + line)

    def _act(self, seat: int, action: dict[str, Any]) -> list[str]:
        """A seat's own action through the referee (the person's); prints its events.

        Raises:
            Rejected: the referee refused it.
        """
        self.referee.act(seat, action, self.referee.state_id, self.now)
        return self._tell()

    def _resolve(self, job: Due) -> tuple[int, dict[str, Any], str] | None:
        """Let the referee apply what `job` decides (a bot's choice, an
        `expire`); prints the events, then pauses after a bot's move."""
        played = self.referee.resolve(job, job.choose(), self.now)
        if played is None:
            return None
        lines = self._tell()
        seat, action, kind = played
        if lines and self.pause and kind in ("bot", "chance"):
            time.sleep(self.pause / 3 if action.get("type") == "draw" else self.pause)
        return played

    def _windows(self) -> dict[int, dict[str, Any]]:
        return {w["seat"]: w for w in self.referee.view(0).get("windows") or []}

    def _chances(self) -> tuple[bool, list[int]]:
        """The person's window chances not let pass: their own call, and the
        bots they may catch."""
        wins = self._windows()
        own = wins.get(0)
        own_call = own is not None and own["call"] and 0 not in self.offered
        catchable = [s for s, w in wins.items() if s != 0 and w["catch"] and s not in self.offered]
        return own_call, catchable

    def _person_first(self, job: Due | None) -> bool:
        """Is the person asked before `job` (the referee's next due timer) fires?"""
        view = self.referee.view(0)
        if 0 not in view["to_act"]:
            return False
        if job is not None and job.action is None and self._windows().get(job.timer.seat, {}).get("call"):
            return False  # a bot with its own call open comes first (out of turn, or in its turn)
        own_call, catchable = self._chances()
        return bool(own_call or catchable) or job is None

    def _let_pass(self, seats: list[int]) -> None:
        """The person let these seats' windows go: the ones the referee times
        end now (a missed call costs 2 cards; a catch not taken, nothing)."""
        self.offered.update(seats)
        for _ in range(2 * len(seats) + 1):
            job = self.referee.due(self.now)
            if job is None or job.action is None or job.timer.seat not in self.offered:
                return
            self._resolve(job)

    def play(self) -> dict[str, Any]:
        """Play until the game has an outcome and return it.

        Raises:
            QuitGame: the person typed `q`.
            KeyboardInterrupt, EOFError: Ctrl-C, Ctrl-D (or the input ended).
            RuntimeError: the game did not end within MAX_STEPS steps (a bug).
        """
        steps = 0
        while not self.referee.over:
            steps += 1
            if steps > MAX_STEPS:
                raise RuntimeError(f"the game did not end after {MAX_STEPS} steps")
            self.step()
        return self.referee.outcome

    def step(self) -> None:
        """Apply one action the referee has due, or ask the person."""
        ref = self.referee
        for _ in range(self.n + 2):  # a chance let pass changes nothing: at most one per seat
            job = ref.due(self.now)
            if self._person_first(job):
                if ref.view(0).get("turn") == 0:
                    self.ask_turn()
                else:
                    self.ask_window()
                return
            if job is None:
                deadline = ref.next_deadline()
                if deadline is None or deadline == math.inf:
                    raise RuntimeError("nobody may act, and it is not the person's turn")
                self.now = deadline
            elif self._resolve(job) is not None:
                return

    # ----------------------------------------------------------- the person

    def _options(self, legal: list[dict[str, Any]], view: dict[str, Any]) -> list[tuple[str, str]]:
        opts = [(str(i), action_label(a, view, Words(self.table, self.names, 0))) for i, a in enumerate(legal, 1)]
        d = decline_index(legal)
        if d is not None:
            opts.append(("d", legal[d]["type"]))
        return opts + [("?", "help"), ("q", "quit")]

    def _ask(self, message: str, legal: list[dict[str, Any]], view: dict[str, Any], window: bool) -> tuple[str, int | None]:
        """Ask until the person names an action (or, in a window, anything); handles `?` and `q`."""
        while True:
            text = self.asker.ask(
                message, self._options(legal, view), lambda t: parse_choice(t, legal, window=window)
            )
            kind, idx = parse_choice(text, legal, window=window)
            if kind == "help":
                self.show_help()
                continue
            if kind == "quit":
                raise QuitGame
            return kind, idx

    def ask_turn(self) -> None:
        ref = self.referee
        view = ref.view(0)
        legal = ref.legal(0)
        self.show_table(view, legal)
        own_call, catchable = self._chances()
        _, idx = self._ask(self.turn_prompt(legal), legal, view, window=False)
        action = legal[idx]
        if own_call and action["type"] != "call":
            self._let_pass([0])  # the call was missed: where it is timed, 2 cards
            if action not in ref.legal(0):
                return
        self._act(0, action)
        self._let_pass(catchable)

    # the words of the prompts (the plain mode, `plain.py`, has its own)

    def turn_prompt(self, legal: list[dict[str, Any]]) -> str:
        return f"Your move [1-{len(legal)}]: "

    def window_prompt(self, legal: list[dict[str, Any]]) -> str:
        return f"Your choice [1-{len(legal)}, Enter to let it go]: "

    def list_choices(self, legal: list[dict[str, Any]], view: dict[str, Any]) -> None:
        w = Words(self.table, self.names, 0, self.color)
        for i, a in enumerate(legal, 1):
            self.say(f"  {i:>2}  {action_label(a, view, w)}")

    def tell_outcome(self, outcome: dict[str, Any]) -> None:
        self.out.write("\n" + render_outcome(outcome, self.g.view(0), self.table, names=self.names, color=self.color,
                                             width=self.width) + "\n")
        self.out.flush()

    again_prompt = "Play again? [y/N] "
    again_options = [("y", "a new deal"), ("n", "leave")]

    def wants_again(self, text: str) -> bool:
        return text.strip().lower() in ("y", "yes")

    def ask_window(self) -> None:
        ref = self.referee
        view = ref.view(0)
        legal = ref.legal(0)
        own_call, catchable = self._chances()
        if own_call:
            if self.spec.timed_calls:
                self.say("You have ONE card left! Call it now; anything else misses the call (2 cards).")
            else:
                self.say("You have ONE card left! Call it before the next player acts, or be caught.")
        for s in catchable:
            self.say(f"{self.names[s]} has ONE card and did not call last card!")
        self.list_choices(legal, view)
        kind, idx = self._ask(self.window_prompt(legal), legal, view, window=True)
        if kind == "action" and idx is not None:
            self._act(0, legal[idx])
            self._let_pass(catchable)
        else:
            self._let_pass(([0] if own_call else []) + catchable)


# ---------------------------------------------------------------- running


def _note(text: str) -> None:
    """Log something odd that did not stop the game (a bot's illegal choice)."""
    with contextlib.suppress(OSError):
        write_log(text)


def _want_color(out: TextIO) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False


def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def run_quick(
    game: str = "colormatch",
    table: str | None = "classic",
    seats: int = 3,
    level: str = "medium",
    seed: int | None = None,
    *,
    fast: bool = False,
    out: TextIO | None = None,
    asker: Any = None,
    color: bool | None = None,
    kind: type[QuickGame] | None = None,
) -> int:
    """Play quick games until the person stops; return the exit status.

    0 after a finished game, `q`, Ctrl-C or Ctrl-D; 1 after an unexpected
    error, which is logged (see `log_path`) and told in one line. `asker`
    defaults to prompt_toolkit when stdin is a terminal, plain lines otherwise.
    `kind` is the game's class (default `QuickGame`; the plain mode's `PlainGame`).
    """
    kind = kind or QuickGame
    out = out or sys.stdout
    try:
        if asker is None:
            asker = PromptAsker() if _is_tty(sys.stdin) else LineAsker(out)
        if color is None:
            color = _want_color(out)
        clear = _is_tty(out)
        width = max(40, min(shutil.get_terminal_size((80, 24)).columns, 110)) if clear else 80
        if seed is None:
            seed = random.SystemRandom().randrange(1, 1_000_000)
        while True:
            q = kind(
                game,
                table,
                seats,
                level,
                seed,
                out=out,
                asker=asker,
                pause=0.0 if fast else PAUSE,
                color=color,
                clear=clear,
                width=width,
            )
            outcome = q.play()
            q.tell_outcome(outcome)
            again = asker.ask(q.again_prompt, q.again_options, lambda t: None)
            if not q.wants_again(again):
                out.write("Thanks for playing.\n")
                return 0
            seed += 1
    except QuitGame:
        out.write("\nYou left the table. Bye!\n")
        return 0
    except KeyboardInterrupt:
        out.write("\nYou left the table (Ctrl-C). Bye!\n")
        return 0
    except EOFError:
        out.write("\nYou left the table (Ctrl-D, or the input ended). Bye!\n")
        return 0
    except Exception as e:  # the last line of defence: one line on screen, details in the log
        try:
            path = write_log(traceback.format_exc())
        except OSError as log_err:
            out.write(f"\nlanmatch play: something went wrong ({type(e).__name__}: {e}); could not write a log ({log_err}).\n")
        else:
            out.write(f"\nlanmatch play: something went wrong ({type(e).__name__}); the details are in {path}\n")
        out.flush()
        return 1
    finally:
        out.flush()


def main_play(args: Any) -> int:
    """`lanmatch play` from parsed arguments (see `lanmatch.cli`)."""
    return run_quick(
        args.game,
        args.table,
        args.seats,
        args.bots,
        args.seed,
        fast=args.fast,
    )


__all__ = ["QuickGame", "log_path", "parse_choice", "render_table", "run_quick", "write_log"]
