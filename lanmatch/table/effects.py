"""What the host's session layer asks of the I/O layer: effects (pure values).

How this works. The lobby (`lobby.py`) and the room sessions (`session.py`)
never send, close, start a task or write a log line themselves. Each of
their entry points takes a message (or a clock) and `now`, changes their
state, and returns the list of effects it decided, in the order they must
happen; the host (`lanmatch.net.host`) carries them out at once, in that
order, before it awaits anything. Nothing here can fail: an effect is a
value, and a test reads it as one.

Every entry point appends to one `Outbox` (the lobby's, shared by its
rooms) and returns `Outbox.drain()`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

INFO, WARNING, ERROR = 20, 30, 40  # the `logging` levels, for `Log`


@dataclass(slots=True)
class Send:
    """Queue `msg` for `peer` (never waits: a full outbox drops the peer)."""

    peer: Any
    msg: dict[str, Any]


@dataclass(slots=True)
class Close:
    """Send `msg` (a fatal error) to `peer` if its outbox has room, then close
    its connection (`code` is the reason logged)."""

    peer: Any
    code: str
    msg: dict[str, Any]


@dataclass(slots=True)
class Views:
    """Send each of `peers` its view of `room`'s current state: a seat its own
    view with its legal actions, a spectator the spectators' view. The I/O
    layer builds them as it sends (`RoomSession.view_message(seat, now)`),
    with the time left on each clock then."""

    room: Any
    peers: list[Any]


@dataclass(slots=True)
class Post:
    """Hand `item` (`(type, peer, msg)`) to `room`'s inbox: the room's task
    handles it in turn (`RoomSession.handle`)."""

    room: Any
    item: tuple[str, Any, Any]


@dataclass(slots=True)
class StartRoom:
    """A room was made (or resumed): start the task that owns it."""

    room: Any


@dataclass(slots=True)
class StopRoom:
    """The room closed: its task ends; what is posted to it now is refused."""

    room: Any


@dataclass(slots=True)
class Notify:
    """The room list changed (the mDNS advertiser updates its record)."""


@dataclass(slots=True)
class Log:
    """A line for the host's log: `level` (`INFO`...), `%`-format and arguments."""

    level: int
    fmt: str
    args: tuple[Any, ...] = ()


NOTIFY = Notify()


def error_message(code: str, message: str, *, fatal: bool = False, ref: str | None = None) -> dict[str, Any]:
    """An `error` message (docs/protocol.md section 6); the sentence is cut at 400 characters."""
    return {"type": "error", "code": code, "message": message[:400], "fatal": fatal, "ref": ref}


class Outbox:
    """The effects decided so far, in order (see the module docstring)."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[Any] = []

    def drain(self) -> list[Any]:
        """Everything decided since the last drain, oldest first."""
        items, self.items = self.items, []
        return items

    def add(self, effect: Any) -> None:
        self.items.append(effect)

    def send(self, peer: Any, msg: dict[str, Any]) -> None:
        self.items.append(Send(peer, msg))

    def tell(self, peer: Any, typ: str, **fields: Any) -> None:
        """Send `peer` a message of type `typ` with `fields`."""
        self.items.append(Send(peer, {"type": typ, **fields}))

    def error(self, peer: Any, code: str, message: str, *, fatal: bool = False, ref: str | None = None) -> None:
        """An `error` for `peer`; a `fatal` one closes its connection after it
        (and the peer counts as closed from now on)."""
        msg = error_message(code, message, fatal=fatal, ref=ref)
        if fatal:
            peer.closed = True
            self.items.append(Close(peer, code, msg))
        else:
            self.items.append(Send(peer, msg))

    def log(self, level: int, fmt: str, *args: Any) -> None:
        self.items.append(Log(level, fmt, args))
