"""The turn bell: the terminal bell and, where the terminal shows one, a desktop notification.

How this works. The model (`Console.bells`) notes a bell when the turn comes
to this seat after others moved, and when a catch window opens for it; the
application (`app.Session.ring`) takes them and writes `BEL` (`\\a`) to the
terminal, followed by `notify_escape(...)`: a desktop notification through
the terminal's own escape where the terminal is known to show it, else
nothing. `--quiet` on `lanmatch play` and `lanmatch join` turns both off.

Which escape (docs/console.md, "The turn bell"):

- OSC 777 (`ESC ] 777 ; notify ; TITLE ; BODY ESC \\`): foot, WezTerm,
  Ghostty, rxvt-unicode, VTE terminals (GNOME Terminal, Tilix) that carry
  the notify patch;
- OSC 9 (`ESC ] 9 ; BODY ESC \\`): iTerm2;
- none elsewhere, and none inside tmux or screen (they drop escapes they do
  not know; tmux shows the bell itself, `monitor-bell`);
- `LANMATCH_NOTIFY=777`, `9` or `off` overrides the guess.

Strings end with ST (`ESC \\`), never BEL, so a notification is never taken
for a second bell. Pure: the environment is an argument.
"""

from __future__ import annotations

from collections.abc import Mapping

BEL = "\a"
ST = "\x1b\\"


def notify_kind(env: Mapping[str, str]) -> str | None:
    """`"777"`, `"9"` or None (no notification) for the terminal `env` describes."""
    forced = env.get("LANMATCH_NOTIFY", "").strip().lower()
    if forced in ("777", "9"):
        return forced
    if forced in ("off", "none", "0", "no"):
        return None
    term = env.get("TERM", "")
    if env.get("TMUX") or env.get("STY") or term.startswith(("screen", "tmux")):
        return None
    program = env.get("TERM_PROGRAM", "")
    if program == "iTerm.app":
        return "9"
    if program in ("WezTerm", "ghostty") or term.startswith(("foot", "rxvt", "xterm-ghostty")) or env.get("VTE_VERSION"):
        return "777"
    return None


def _clean(text: str) -> str:
    """A notification's text: printable, no `;` (the field separator), short."""
    return "".join(c if c.isprintable() and c != ";" else " " for c in text)[:120]


def notify_escape(title: str, body: str, env: Mapping[str, str]) -> str:
    """The escape that shows a desktop notification in this terminal ("" when none)."""
    kind = notify_kind(env)
    if kind == "777":
        return f"\x1b]777;notify;{_clean(title)};{_clean(body)}{ST}"
    if kind == "9":
        return f"\x1b]9;{_clean(title)}: {_clean(body)}{ST}"
    return ""


__all__ = ["BEL", "notify_escape", "notify_kind"]
