"""The line mode of `lanmatch play` (`--lines`, or no terminal): one person
against bots, the engine in-process, no clock, no network. (In a terminal
`lanmatch play` opens the full-screen console, `app.py`, at a host.)

How this works. No host node and no network: the console holds the game
(`lanmatch.rules.new_game`) itself, the person sits in seat 0 and bots
(`lanmatch.bots.make_bot`) in the others. `QuickGame.play` loops one step at
a time until the game has an outcome; each step lets exactly one seat act:

1. a bot whose own last-card window is open (and that is not the seat whose
   turn it is) calls it, or fails to (see "Last-card windows" below);
2. the person, when they may call their own last card or catch a bot, is
   asked at once (a short prompt, not the whole table);
3. otherwise the seat whose turn it is acts: the person is shown the whole
   table and the numbered legal actions and types a number; a bot chooses
   (`observe(view)`, then `choose(view, legal_actions)`), and its events are
   printed in words with a short pause so the person can follow.

Input goes through prompt_toolkit's `PromptSession` (a completer lists the
actions under the arrow keys; a validator answers bad input with one line)
when stdin is a terminal, else through plain `input()` lines.

Last-card windows. This console has no clock, so the timed windows are
turned into turns: at `cards`, after the person's play leaves one card they
are offered `call`; any other input (except `?` and `q`) is a missed call,
acted as `{"type": "expire", "penalty": true}` for seat 0 (they draw 2). A
bot's window: the bot is asked `declines(view, legal_actions)` (out of turn,
may it let the chance pass? Easy forgets now and then, Medium and Hard always
call) and, if not, `choose`; a bot that did not call gets `expire` with
`penalty: false`, the person is offered `catch`, and after
the person's next input the second `expire` closes the window. At `standard`
the engine closes windows itself on the next player's action. The PLAY/KEEP
window (`classic`, `daynight`, `siege`) has no timer here: the person chooses.

Errors never reach the screen as a traceback: `run_quick` writes unexpected
exceptions to a log file (`$XDG_CACHE_HOME/lanmatch/console.log`, default
`~/.cache/lanmatch/console.log`) and prints one line naming it.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any, TextIO

from lanmatch.bots import make_bot
from lanmatch.console.logfile import log_path, write_log
from lanmatch.console.render import (
    Words,
    action_label,
    decline_index,
    describe_events,
    render_outcome,
    render_table,
)
from lanmatch.rules import IllegalAction, new_game

PAUSE = 0.4
"""Seconds between the bots' moves (0 with `--fast`)."""

FORGET_CALL = {"easy": 1 / 3, "medium": 0.0, "hard": 0.0}
"""How often a bot without `declines` lets its own last-card call pass."""

MAX_STEPS = 20_000
"""A game that has not ended after this many actions is a bug, not a game."""

HELP = {
    "colormatch": (
        "Match the top card by color (the word and the shape) or by symbol, or play a Wild.",
        "The first to shed every card wins the round.",
    ),
    "dominoes": (
        "Play a tile whose pips match an open end of the line; draw from the boneyard when none fits.",
        "Empty your rack to win the round and score the pips left in the other racks; first to 100 wins.",
    ),
}
TABLE_HELP = {
    "classic": "Penalty piles wait on you: answer a +2 with a +2, or draw the pile. A Bomb blasts the "
    "seat holding the turn 3 hand-offs later. A playable drawn card: PLAY it or KEEP it.",
    "standard": "+2 and +4 are dealt at once; you may challenge a +4. With one card left, call "
    "last card before the next player acts, or be caught (2 cards).",
    "toll": "Bypass skips, Flip reverses, Toll 2 / Toll 4 make the next player draw; a Toll 4 may "
    "be challenged.",
    "daynight": "Every card has a day and a night face; a Turnover or the Midnight Clock turns the "
    "whole table over. You see your rivals' far faces.",
    "siege": "Penalty piles wait: +2 on +2, +4 on +2 or +4. A Shield cancels a pile, or stands in "
    "front of you to absorb the next one.",
    "cards": "You may draw only without a play. With one card left, call last card at once or draw "
    "2; catch a bot that forgets.",
}


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
    """One game at one table: the person in seat 0, bots in the others."""

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
        self.game = game
        self.table = table if game == "colormatch" else None
        self.seed = seed
        self.level = level
        self.g = new_game(game, table=self.table, players=seats, seed=seed)
        self.n = seats
        self.bots = {
            s: make_bot(level, game=game, table=self.table, seat=s, seed=seed) for s in range(1, seats)
        }
        self.names = ["You"] + [f"Bot {s} ({level})" for s in range(1, seats)]
        self.out = out
        self.asker = asker
        self.pause = pause
        self.color = color
        self.clear = clear
        self.width = width
        self.words = Words(self.table, self.names, 0, color)
        self.rng = random.Random(f"lanmatch-console:{seed}")
        self.seen = 0  # the last event number told
        self.bot_asked: set[int] = set()  # bots whose own window was settled
        self.offered: set[int] = set()  # windows the person has let pass
        self.log_note: Callable[[str], Any] = _note  # odd things that do not stop the game

    # ----------------------------------------------------------- output

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def _events_since(self) -> list[str]:
        events = [e for e in self.g.view(0)["events"] if e["n"] > self.seen]
        if events:
            self.seen = events[-1]["n"]
        return describe_events(
            events, self.table, names=self.names, seat=0, color=self.color, game=self.game
        )

    def _mark_seen(self) -> None:
        events = self.g.view(0)["events"]
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
        for line in HELP[self.game]:
            self.say(line)
        if self.table in TABLE_HELP:
            self.say(TABLE_HELP[self.table])
        self.say(
            "Keys: a number then Enter takes that action · d draws (or passes, or keeps a drawn card) · "
            "Down/Up arrows list the actions · ? this help · q, Ctrl-C or Ctrl-D leave the table."
        )
        page = "dominoes" if self.game == "dominoes" else self.table
        self.say(f"The full rules of this table: docs/rules/{page}.md")

    # ----------------------------------------------------------- acting

    def _act(self, seat: int, action: dict[str, Any]) -> list[str]:
        """Apply an action, let every bot observe, and print the new events."""
        self.g.act(seat, action)
        for s, bot in self.bots.items():
            bot.observe(self.g.view(s))
        lines = self._events_since()
        for line in lines:
            self.say("  · " + line)
        return lines

    def _expire(self, seat: int, penalty: bool) -> None:
        self._act(seat, {"type": "expire", "penalty": penalty})

    def _windows(self) -> dict[int, dict[str, Any]]:
        view = self.g.view(0)
        return {w["seat"]: w for w in view.get("windows") or []}

    def play(self) -> dict[str, Any]:
        """Play until the game has an outcome and return it.

        Raises:
            QuitGame: the person typed `q`.
            KeyboardInterrupt, EOFError: Ctrl-C, Ctrl-D (or the input ended).
            RuntimeError: the game did not end within MAX_STEPS actions (a bug).
        """
        for s, bot in self.bots.items():
            bot.observe(self.g.view(s))
        steps = 0
        while self.g.outcome is None:
            steps += 1
            if steps > MAX_STEPS:
                raise RuntimeError(f"the game did not end after {MAX_STEPS} steps")
            self.step()
        return self.g.outcome

    def step(self) -> None:
        """Let exactly one seat (or the console, for a window) act."""
        g = self.g
        view = g.view(0)
        wins = {w["seat"]: w for w in view.get("windows") or []}
        cur = view.get("turn")
        self.bot_asked &= set(wins)
        self.offered &= set(wins)
        # 1. bots' own last-card windows
        for s, w in sorted(wins.items()):
            if s != 0 and w["call"] and s not in self.bot_asked and s != cur:
                self.bot_asked.add(s)
                legal = g.legal_actions(s)
                if not self._bot_declines(s, legal):
                    choice = self._bot_choice(s, legal)
                    if choice is not None and choice.get("type") in ("call", "catch"):
                        self._act(s, choice)
                        if choice["type"] == "call":
                            return
                w = self._windows().get(s)
                if self.table == "cards" and w is not None and w["call"]:
                    self._expire(s, False)  # it did not call: the others may catch
                return
        # 2. the person's own call, or a catch, outside their turn
        if cur != 0 and 0 in g.to_act:
            own = wins.get(0)
            open_own = own is not None and own["call"] and 0 not in self.offered
            catchable = [s for s, w in wins.items() if s != 0 and w["catch"] and s not in self.offered]
            if open_own or catchable:
                self.ask_window()
                return
        # 3. the seat whose turn it is
        if cur == 0:
            self.ask_turn()
        else:
            self.bot_turn(cur)

    def _bot_declines(self, seat: int, legal: list[dict[str, Any]]) -> bool:
        """Out of turn, does the bot let its chance (its last-card call) pass?

        Asks the bot's `declines(view, legal_actions)`; a bot without one
        forgets as often as FORGET_CALL says for its level.
        """
        bot = self.bots[seat]
        declines = getattr(bot, "declines", None)
        if declines is None:
            return self.rng.random() < FORGET_CALL.get(self.level, 0.0)
        view = self.g.view(seat)
        bot.observe(view)
        return bool(declines(view, legal))

    def _bot_choice(self, seat: int, legal: list[dict[str, Any]]) -> dict[str, Any] | None:
        if not legal:
            return None
        view = self.g.view(seat)
        bot = self.bots[seat]
        bot.observe(view)
        return bot.choose(view, legal)

    def bot_turn(self, seat: int) -> None:
        legal = self.g.legal_actions(seat)
        choice = self._bot_choice(seat, legal)
        if choice is None:
            raise RuntimeError(f"seat {seat} has the turn but no legal action")
        try:
            lines = self._act(seat, choice)
        except IllegalAction as e:  # a bot's bug must not end the person's game
            self.log_note(f"bot {seat} chose an illegal action {choice!r}: {e}")
            lines = self._act(seat, legal[0])
        if lines and self.pause:
            quick = self.game == "dominoes" and choice.get("type") == "draw"
            time.sleep(self.pause / 3 if quick else self.pause)

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

    def _close_catch_windows(self, seats: list[int]) -> None:
        """At `cards`, the person's input ends the catch time of these windows."""
        if self.table != "cards":
            return
        for s in seats:
            w = self._windows().get(s)
            if w is not None and not w["call"]:
                self._expire(s, False)  # the second expire: the window closes

    def ask_turn(self) -> None:
        g = self.g
        view = g.view(0)
        legal = g.legal_actions(0)
        self.show_table(view, legal)
        wins = {w["seat"]: w for w in view.get("windows") or []}
        catchable = [s for s, w in wins.items() if s != 0 and not w["call"]]
        _, idx = self._ask(f"Your move [1-{len(legal)}]: ", legal, view, window=False)
        action = legal[idx]
        own = wins.get(0)
        if self.table == "cards" and own is not None and own["call"] and action["type"] != "call":
            self._expire(0, True)  # the call was missed: 2 cards
            if action not in g.legal_actions(0):
                return
        self._act(0, action)
        self._close_catch_windows(catchable)

    def ask_window(self) -> None:
        g = self.g
        view = g.view(0)
        legal = g.legal_actions(0)
        wins = {w["seat"]: w for w in view.get("windows") or []}
        own = wins.get(0)
        catchable = [s for s, w in wins.items() if s != 0 and w["catch"] and s not in self.offered]
        if own is not None and own["call"]:
            if self.table == "cards":
                self.say("You have ONE card left! Call it now; anything else misses the call (2 cards).")
            else:
                self.say("You have ONE card left! Call it before the next player acts, or be caught.")
        for s in catchable:
            self.say(f"{self.names[s]} has ONE card and did not call last card!")
        w = Words(self.table, self.names, 0, self.color)
        for i, a in enumerate(legal, 1):
            self.say(f"  {i:>2}  {action_label(a, view, w)}")
        kind, idx = self._ask(f"Your choice [1-{len(legal)}, Enter to let it go]: ", legal, view, window=True)
        if kind == "action" and idx is not None:
            self._act(0, legal[idx])
        elif own is not None and own["call"] and self.table == "cards":
            self._expire(0, True)
        else:
            if own is not None and own["call"]:
                self.offered.add(0)
            self.offered.update(catchable)
        self._close_catch_windows(catchable)


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
) -> int:
    """Play quick games until the person stops; return the exit status.

    0 after a finished game, `q`, Ctrl-C or Ctrl-D; 1 after an unexpected
    error, which is logged (see `log_path`) and told in one line. `asker`
    defaults to prompt_toolkit when stdin is a terminal, plain lines otherwise.
    """
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
            q = QuickGame(
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
            out.write("\n" + render_outcome(outcome, q.g.view(0), q.table, names=q.names, color=color, width=width) + "\n")
            out.flush()
            again = asker.ask("Play again? [y/N] ", [("y", "a new deal"), ("n", "leave")], lambda t: None)
            if again.strip().lower() not in ("y", "yes"):
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
