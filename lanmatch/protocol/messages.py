"""The message catalogue: every message type, every field, and its checks.

How this works. A message is a msgpack map with a string `type`. The
catalogue below gives each type its fields as `name: Field` (a checker, and
whether the field is required). `check_peer_message` checks what a peer sent
to the host: an unknown type is `unknown_type`, a missing, extra or ill-typed
field is `bad_field`, both `RemoteProtocolError`s. `check_host_message`
checks what a host sent to a peer (extra fields are allowed there, so that a
newer host can add some). `build_peer` / `build_host` make a message we send and
check it: a bad one is our bug, a `LocalProtocolError`.

The host numbers every message it sends on a connection (`seq`, 1, 2, 3 ...);
`seq` is set by the connection's writer, so `build_host` leaves it out for host
messages and `check_host_message` requires it.

docs/protocol.md is the contract; this module is its executable form.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lanmatch.protocol.framing import LocalProtocolError, RemoteProtocolError
from lanmatch.rules import GAMES, TABLE_NAMES

PROTOCOL_VERSION = 3
"""Bumped for any change a peer of the previous version could not follow."""
PROTOCOL_VERSIONS = (1, 2, 3)
"""The versions a host speaks (its `host` frame's `versions`; docs/protocol.md section 4)."""
DEFAULT_PORT = 7272
"""The TCP port a host serves unless told otherwise (`lanmatch join NAME` needs no port then)."""

TABLES = TABLE_NAMES  # the registry declares them (live: GAMES and TABLE_NAMES follow `register`)
LEVELS = ("easy", "medium", "hard")
MODES = ("single", "match", "daily")
CLOCKS = (15, 20, 30, 45, 60, 90, 600)
"""Move clocks a peer may pick for a room (SPEC section 8), in seconds."""
AGENTS = ("person", "bot")
MAX_STAKE = 1_000_000
COIN_REASONS = ("stake", "win", "loss", "draw", "fee", "refund")
"""Why a `coins` message was sent (docs/protocol.md, section 5)."""
ACTION_TYPES = ("play", "draw", "keep", "pass", "accept", "challenge", "call", "catch", "color")
"""What a peer may act. `expire` is the host's alone and is refused."""

MAX_INT = 2**53  # fits a JSON number and a double exactly
EMOTES = ("gg", "gl", "nice", "oops", "hurry")
"""The quick emotes a peer may send in a `chat` (docs/protocol.md, "Chat")."""
MAX_CHAT = 200
"""The longest chat text, in characters."""


class _Bad(Exception):
    """A field failed its check (internal; turned into a protocol error)."""


Check = Callable[[Any], Any]


REFUSED_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs")
"""Unicode categories no peer string may hold: controls (C0 and C1), format
characters (bidi overrides, zero-width), line and paragraph separators, and
surrogates (docs/protocol.md, "Limits and abuse")."""


def unprintable(text: str) -> str | None:
    """The first character of `text` a peer may not send, or None."""
    if text.isascii():
        if text.isprintable():  # (for ASCII: no C0 control and no DEL)
            return None
        for c in text:
            if ord(c) < 32 or ord(c) == 127:
                return c
        return None
    for c in text:
        if unicodedata.category(c) in REFUSED_CATEGORIES:
            return c
    return None


def s(lo: int = 0, hi: int = 64, choices: Any = None, max_bytes: int | None = None) -> Check:
    def check(v: Any) -> Any:
        if type(v) is not str:
            raise _Bad(f"a string, not {type(v).__name__}")
        if not lo <= len(v) <= hi:
            raise _Bad(f"a string of {lo}-{hi} characters, not {len(v)}")
        if choices is not None and v not in choices:
            raise _Bad(f"one of {', '.join(choices)}, not {v[:20]!r}")
        bad = unprintable(v)
        if bad is not None:
            raise _Bad(f"a string without control or format characters, not one with U+{ord(bad):04X}")
        if max_bytes is not None and len(v.encode()) > max_bytes:
            raise _Bad(f"a string of at most {max_bytes} bytes in UTF-8")
        return v

    return check


def i(lo: int = 0, hi: int = MAX_INT) -> Check:
    def check(v: Any) -> Any:
        if type(v) is not int:  # bool is not an int here
            raise _Bad(f"an integer, not {type(v).__name__}")
        if not lo <= v <= hi:
            raise _Bad(f"an integer in {lo}..{hi}, not {v}")
        return v

    return check


def num(lo: float = 0.0, hi: float = 1e9) -> Check:
    def check(v: Any) -> Any:
        if type(v) not in (int, float) or v != v:
            raise _Bad(f"a number, not {type(v).__name__}")
        if not lo <= v <= hi:
            raise _Bad(f"a number in {lo}..{hi}, not {v}")
        return v

    return check


def b() -> Check:
    def check(v: Any) -> Any:
        if type(v) is not bool:
            raise _Bad(f"true or false, not {type(v).__name__}")
        return v

    return check


def nil(inner: Check) -> Check:
    def check(v: Any) -> Any:
        return None if v is None else inner(v)

    return check


def lst(inner: Check, hi: int = 1024) -> Check:
    def check(v: Any) -> Any:
        if type(v) is not list:
            raise _Bad(f"a list, not {type(v).__name__}")
        if len(v) > hi:
            raise _Bad(f"a list of at most {hi} items, not {len(v)}")
        for k, x in enumerate(v):
            try:
                inner(x)
            except _Bad as e:
                raise _Bad(f"item {k}: {e}") from None
        return v

    return check


def mapping(hi: int = 256) -> Check:
    """Any map with string keys (contents checked elsewhere, if at all)."""

    def check(v: Any) -> Any:
        if type(v) is not dict:
            raise _Bad(f"a map, not {type(v).__name__}")
        if len(v) > hi:
            raise _Bad(f"a map of at most {hi} entries")
        return v

    return check


def scalar_map(hi: int = 16) -> Check:
    """A flat map of options: string keys, values bool, int or short string."""

    def check(v: Any) -> Any:
        mapping(hi)(v)
        for k, x in v.items():
            s(1, 32)(k)
            if type(x) not in (bool, int, str) or (type(x) is str and len(x) > 32):
                raise _Bad(f"option {k!r}: true/false, an integer or a short string")
            if type(x) is int and not -MAX_INT <= x <= MAX_INT:
                raise _Bad(f"option {k!r}: integer out of range")
        return v

    return check


@dataclass(frozen=True)
class Field:
    check: Check
    required: bool = True


def req(c: Check) -> Field:
    return Field(c, True)


def opt(c: Check) -> Field:
    return Field(c, False)


class Spec(dict):
    """A map's fields (name -> `Field`), with the names of its required ones
    (`required`, found when the spec is made: specs are never changed)."""

    __slots__ = ("required",)

    def __init__(self, fields: dict[str, Field]):
        super().__init__(fields)
        self.required = tuple(name for name, f in fields.items() if f.required)


# An action, as a peer sends it inside `act`: the engine's action dict.
ACTION_FIELDS = Spec({
    "type": req(s(1, 16, ACTION_TYPES)),
    "card": opt(s(1, 8)),
    "color": opt(s(1, 1)),
    "swap_with": opt(i(0, 5)),
    "seat": opt(i(0, 5)),
    "call": opt(b()),  # play-and-call (docs/protocol.md, "Play-and-call")
    "tile": opt(s(3, 5)),  # "HIGH-LOW" in decimal: "6-4" to "12-10" (the engine says whether its set has it)
    "end": opt(s(4, 5, ("left", "right"))),
})


def _fields(spec: Spec, v: Any, strict: bool, where: str, known: tuple[str, ...] = ()) -> None:
    """Check `v` against `spec`; with `strict`, a key neither in `spec` nor in
    `known` (checked already: a message's `type`) is refused. The map's own
    keys are walked (a message names a few of its spec's fields), then the
    spec's required ones looked for."""
    if type(v) is not dict:
        raise _Bad(f"{where} is a map, not {type(v).__name__}")
    extra = None
    for name, value in v.items():
        f = spec.get(name)
        if f is None:
            if strict and name not in known:
                if extra is None:
                    extra = [name]
                elif len(extra) < 4:  # (the error names four: a map of many unknown keys costs no more)
                    extra.append(name)
            continue
        try:
            f.check(value)
        except _Bad as e:
            raise _Bad(f"field {name!r} of {where} must be {e}") from None
    for name in spec.required:
        if name not in v:
            raise _Bad(f"{where} lacks the field {name!r}")
    if extra:
        raise _Bad(f"{where} has unknown field(s) {', '.join(repr(k)[:24] for k in extra)}")


def hex64() -> Check:
    """64 lowercase hex digits (a SHA-256 or an HMAC-SHA256)."""
    inner = s(64, 64)

    def check(v: Any) -> Any:
        inner(v)
        if v.strip("0123456789abcdef"):
            raise _Bad("64 lowercase hex digits")
        return v

    return check


def profile() -> Check:
    """A profile as a peer brings it at hello: `{name, key}` (protocol 1: the
    key travels) or `{name, proof}` (protocol 2: an HMAC of the host's nonce)."""

    spec = Spec({"name": req(s(1, 32)), "key": opt(s(16, 256)), "proof": opt(hex64())})

    def check(v: Any) -> Any:
        _fields(spec, v, True, "the profile")
        if ("key" in v) == ("proof" in v):
            raise _Bad("a profile with either a key or a proof")
        return v

    return check


def registration() -> Check:
    """The profile of a `register`: `{name, verifier}`, and (protocol 3, a
    profile the host keeps under its protocol-1/2 key) `legacy`, the proof
    that moves it to the new verifier."""

    spec = Spec({"name": req(s(1, 32)), "verifier": req(hex64()), "legacy": opt(hex64())})

    def check(v: Any) -> Any:
        _fields(spec, v, True, "the profile")
        return v

    return check


def action() -> Check:
    def check(v: Any) -> Any:
        _fields(ACTION_FIELDS, v, True, "the action")
        return v

    return check


NAME = s(1, 32, max_bytes=64)
ROOM = s(1, 32, max_bytes=64)
TOKEN = s(16, 64)
SEAT = i(0, 5)


def _specs(catalogue: dict[str, dict[str, Field]]) -> dict[str, Spec]:
    return {typ: Spec(fields) for typ, fields in catalogue.items()}


# ---------------------------------------------------------------- peer -> host

PEER: dict[str, Spec] = _specs({
    "hello": {
        "protocol": req(i(0, MAX_INT)),
        "name": req(NAME),
        "agent": opt(s(1, 8, AGENTS)),
        "token": opt(TOKEN),
        "client": opt(s(0, 64)),
        "profile": opt(nil(profile())),
        "deltas": opt(b()),  # views after the first as `delta` messages (docs/protocol.md, "Deltas")
    },
    "register": {"profile": req(registration())},
    "ping": {},
    "list": {"page": opt(i(0, MAX_INT))},
    "create": {
        "room": req(ROOM),
        "game": req(s(1, 16, GAMES)),
        "table": opt(nil(s(1, 16, TABLES))),
        "seats": opt(i(2, 6)),
        "options": opt(scalar_map()),
        "clock": opt(i(1, 600)),
        "mode": opt(s(1, 8, MODES)),
        "password": opt(s(0, 64)),
        "bots": opt(s(1, 8, LEVELS)),
        "sit": opt(b()),
        "stake": opt(i(0, MAX_STAKE)),
    },
    "join": {"room": req(ROOM), "seat": opt(nil(SEAT)), "password": opt(s(0, 64))},
    "watch": {"room": req(ROOM), "password": opt(s(0, 64))},
    "chat": {"text": opt(s(1, MAX_CHAT)), "emote": opt(s(1, 8, EMOTES))},  # exactly one of the two (the room checks)
    "leave": {},
    "start": {},
    "rematch": {},
    "kick": {"seat": req(SEAT)},
    "act": {"state_id": req(i(0, MAX_INT)), "action": req(action()), "seat": opt(SEAT)},
    "resync": {},
    "pause": {"on": req(b())},  # stop (true) or restart (false) the clocks: a person alone with bots
})

# ---------------------------------------------------------------- host -> peer

SEQ = i(1, MAX_INT)
TIMER = mapping(8)

HOST: dict[str, Spec] = _specs({
    "host": {
        "seq": req(SEQ),
        "protocol": req(i()),
        "versions": req(lst(i(), 16)),
        "name": req(s(0, 64)),
        "server": req(s(0, 64)),
        "nonce": req(s(32, 32)),
    },
    "welcome": {
        "seq": req(SEQ),
        "protocol": req(i()),
        "host": req(s(0, 64)),
        "server": req(s(0, 64)),
        "profile": opt(nil(mapping(8))),
        "coins": opt(b()),
        "name": opt(s(1, 64)),  # the name the peer sits and talks under here (a guest's may be "Ann (guest)")
    },
    "error": {
        "seq": req(SEQ),
        "code": req(s(1, 32)),
        "message": req(s(0, 400)),
        "fatal": req(b()),
        "ref": opt(nil(s(0, 16))),
        "retry_after": opt(num(0.0, 3600.0)),
    },
    "rooms": {"seq": req(SEQ), "rooms": req(lst(mapping(32), 256)), "page": opt(i()), "pages": opt(i(1, MAX_INT))},
    "room": {"seq": req(SEQ), "room": req(mapping(32))},
    "seated": {"seq": req(SEQ), "room": req(ROOM), "seat": req(SEAT), "token": req(TOKEN)},
    "watching": {"seq": req(SEQ), "room": req(ROOM)},
    "left": {"seq": req(SEQ), "room": req(ROOM), "reason": req(s(0, 200))},
    "view": {
        "seq": req(SEQ),
        "room": req(ROOM),
        "state_id": req(i()),
        "view": req(mapping(64)),
        "legal": req(lst(mapping(8), 512)),
        "timers": req(lst(TIMER, 16)),
        "autopilot": req(lst(SEAT, 6)),
        "paused": opt(b()),  # the clocks are stopped (`pause`); absent otherwise
        "vn": opt(i(1, MAX_INT)),  # a peer that asked for deltas: this view's number
    },
    "delta": {
        "seq": req(SEQ),
        "room": req(ROOM),
        "state_id": req(i()),
        "vn": req(i(1, MAX_INT)),
        "set": opt(mapping(64)),
        "unset": opt(lst(s(1, 32), 64)),
        "drop": opt(i(0, 64)),
        "events": opt(lst(mapping(16), 64)),
        "legal": opt(lst(mapping(8), 512)),
        "timers": opt(lst(TIMER, 16)),
        "autopilot": opt(lst(SEAT, 6)),
        "paused": opt(b()),  # the clocks were paused (true) or went on (false) since the last view
    },
    "rejected": {
        "seq": req(SEQ),
        "code": req(s(1, 32)),
        "reason": req(s(0, 400)),
        "state_id": req(nil(i())),
    },
    "snapshot": {
        "seq": req(SEQ),
        "room": req(nil(mapping(32))),
        "seat": req(nil(SEAT)),
        "view": req(nil(mapping(16))),
    },
    "coins": {
        "seq": req(SEQ),
        "profile": req(s(1, 32)),
        "balance": req(i()),
        "change": req(i(-MAX_INT, MAX_INT)),
        "reason": req(s(1, 16, COIN_REASONS)),
        "room": req(nil(ROOM)),
        "match": req(nil(i())),
    },
    "profile": {"seq": req(SEQ), "profile": req(mapping(8))},
    "bye": {"seq": req(SEQ), "reason": req(s(0, 200)), "host": req(s(0, 64))},
    "ping": {"seq": req(SEQ)},
    "chat": {
        "seq": req(SEQ),
        "room": req(ROOM),
        "seat": req(nil(SEAT)),
        "name": req(s(0, 64)),
        "text": opt(s(1, MAX_CHAT)),
        "emote": opt(s(1, 16)),  # a newer host may relay emotes this peer does not know: show the word
    },
})


def _check(catalogue: dict[str, Spec], msg: Any, strict: bool, exc: type) -> dict[str, Any]:
    if type(msg) is not dict:
        raise exc("bad_field", f"a message is a map, not {type(msg).__name__}")
    typ = msg.get("type")
    if type(typ) is not str:
        raise exc("bad_field", "a message needs a string field 'type'")
    spec = catalogue.get(typ)
    if spec is None:
        raise exc("unknown_type", f"unknown message type {typ[:32]!r}; expected one of {', '.join(catalogue)}")
    try:  # (`type` is one of the catalogue's names: nothing more to check in it)
        _fields(spec, msg, strict, f"a {typ!r} message", ("type",))
    except _Bad as e:
        raise exc("bad_field", str(e)) from None
    return msg


def check_peer_message(msg: Any) -> dict[str, Any]:
    """Check a message a peer sent to the host; return it.

    Raises:
        RemoteProtocolError: `unknown_type` or `bad_field` (wrong, missing or
            unknown fields).
    """
    return _check(PEER, msg, True, RemoteProtocolError)


def check_host_message(msg: Any) -> dict[str, Any]:
    """Check a message a host sent to a peer (extra fields allowed); return it.

    Raises:
        RemoteProtocolError: `unknown_type` or `bad_field`.
    """
    msg = _check(HOST, msg, False, RemoteProtocolError)
    if msg["type"] == "view":
        view_from_wire(msg["view"])
    return msg


def build_peer(typ: str, **fields: Any) -> dict[str, Any]:
    """A peer-to-host message of type `typ`, checked against the catalogue.

    Raises:
        LocalProtocolError: an unknown type or a bad field (our bug).
    """
    return _check(PEER, {"type": typ, **fields}, True, LocalProtocolError)


def build_host(typ: str, **fields: Any) -> dict[str, Any]:
    """A host-to-peer message of type `typ`, without `seq` (the writer numbers it).

    Raises:
        LocalProtocolError: an unknown type or a bad field (our bug).
    """
    msg = {"type": typ, **fields}
    _check(HOST, {"seq": 1, **msg}, False, LocalProtocolError)
    return msg


def check_outgoing_host(msg: dict[str, Any]) -> None:
    """Check a numbered host message before it is sent (our bug if bad).

    Raises:
        LocalProtocolError: not a valid host message.
    """
    _check(HOST, msg, False, LocalProtocolError)


# ---------------------------------------------------------------- views

VIEW_LISTS_OF_INT = ("counts", "to_act", "scores", "one_card", "shields")


def view_to_wire(view: dict[str, Any]) -> dict[str, Any]:
    """The engine view as sent: Day & Night's `far` gets string keys ("1").

    Everything else goes out as the engine made it. The caller passes a view
    it owns (the engine builds each fresh); it is not copied deeply.
    """
    far = view.get("far")
    if far is not None:
        view = dict(view)
        view["far"] = {str(k): v for k, v in far.items()}
    return view


def view_from_wire(view: Any) -> dict[str, Any]:
    """Check a received view's shape and restore `far`'s integer seat keys.

    Returns a new dict when it changes anything.

    Raises:
        RemoteProtocolError: (`bad_field`) the view is not shaped as documented.
    """
    try:
        if type(view) is not dict:
            raise _Bad("a view is a map")
        s(1, 16, GAMES)(view.get("game"))
        nil(SEAT)(view.get("seat"))
        i()(view.get("step"))
        lst(s(1, 8), 200)(view.get("hand"))
        lst(SEAT, 6)(view.get("to_act"))
        for key in VIEW_LISTS_OF_INT:
            if key in view and view[key] is not None:
                lst(i(0, MAX_INT), 6)(view[key])
        lst(mapping(16), 64)(view.get("events", []))
        nil(mapping(16))(view.get("outcome"))
        far = view.get("far")
        if far is not None:
            mapping(6)(far)
            out = {}
            for k, v in far.items():
                if type(k) is not str or not k.isdigit() or not 0 <= int(k) <= 5:
                    raise _Bad(f"far keys are seat numbers as strings, not {k!r}")
                out[int(k)] = lst(s(1, 8), 200)(v)
            view = dict(view)
            view["far"] = out
    except _Bad as e:
        raise RemoteProtocolError("bad_field", f"malformed view: {e}") from None
    return view
