"""Chat, emotes, mutes and watchers in the console's words (pure: no terminal).

How this works. The host relays a room's `chat` messages (docs/protocol.md,
"Chat") to every member; `Console.on_message` turns each into one log line
with `chat_line` unless its sender is muted (`Mutes`: seats muted one by
one, and every watcher's talk at once). The key map's `t` opens a text
field (`MAX_CHAT` characters), `e` the emote picker (`EMOTES`, each on its
own key), `M` the mute picker. The table and the waiting room show who
watches in one line (`watchers_line`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lanmatch.console.render import shown
from lanmatch.protocol.messages import EMOTES, MAX_CHAT

EMOTE_WORDS = {
    "gg": "Good game!",
    "gl": "Good luck!",
    "nice": "Nice one!",
    "oops": "Oops!",
    "hurry": "Hurry up, please!",
}
"""What each quick emote says on screen (the wire carries its code: `EMOTES`)."""

EMOTE_KEYS = {"gg": "g", "gl": "l", "nice": "n", "oops": "o", "hurry": "h"}
"""The key of each emote in the emote picker (its number works too)."""

CHAT_KEEP = 50  # chat lines the waiting room can show

__all__ = ["CHAT_KEEP", "EMOTES", "EMOTE_KEYS", "EMOTE_WORDS", "MAX_CHAT", "Mutes", "chat_line", "watchers_line"]


@dataclass
class Mutes:
    """Whose talk this console hides: seats, and (`watchers`) every watcher."""

    seats: set[int] = field(default_factory=set)
    watchers: bool = False

    def hides(self, msg: dict[str, Any]) -> bool:
        seat = msg.get("seat")
        return self.watchers if seat is None else seat in self.seats

    def toggle(self, seat: int | None) -> bool:
        """Mute or unmute a seat (None: the watchers); True when now muted."""
        if seat is None:
            self.watchers = not self.watchers
            return self.watchers
        if seat in self.seats:
            self.seats.discard(seat)
            return False
        self.seats.add(seat)
        return True


def emote_words(code: Any) -> str:
    """An emote in words (one this console does not know: its code)."""
    return EMOTE_WORDS.get(code) or shown(str(code))


def chat_line(msg: dict[str, Any], my_seat: int | None, me_watching: bool = False, my_name: str = "") -> str:
    """One log line for a relayed `chat`: `Ann says: hello`, `Cat (watching):
    Good luck!`, `You say: hi` (the sender is this console: its seat, or a
    watcher's message under its own name while it watches)."""
    seat = msg.get("seat")
    name = shown(str(msg.get("name") or "?"))
    mine = (seat is not None and seat == my_seat) or (seat is None and me_watching and name == my_name)
    text = shown(str(msg["text"])) if msg.get("text") is not None else emote_words(msg.get("emote"))
    if mine:
        return f"You say: {text}"
    who = name if seat is not None else f"{name} (watching)"
    return f"{who} says: {text}"


def watchers_line(room: dict[str, Any] | None, width: int = 80, me: str | None = None) -> str:
    """`Watching: Bob, Cat` (with `+3 more` past the names the room gives or
    the width holds); "" when nobody watches. `me`: this console's name when
    it watches: it is written "You", first."""
    room = room or {}
    names = [shown(str(n)) for n in room.get("watchers") or [] if isinstance(n, str)]
    if me is not None and shown(me) in names:
        names.remove(shown(me))
        names.insert(0, "You")
    count = room.get("spectators")
    total = max(count, len(names)) if isinstance(count, int) else len(names)
    if total <= 0:
        return ""
    head: list[str] = []
    for n in names:
        rest = total - len(head) - 1
        text = "Watching: " + ", ".join([*head, n]) + (f" +{rest} more" if rest else "")
        if len(text) > width:
            break
        head.append(n)
    if not head:
        return f"Watching: {total} watcher" + ("s" if total > 1 else "")
    rest = total - len(head)
    return "Watching: " + ", ".join(head) + (f" +{rest} more" if rest else "")
