"""Length-prefixed msgpack frames: bytes in, messages out (sans-I/O).

How this works. A frame is a 4-byte big-endian unsigned length N followed by N
bytes holding one msgpack map. `encode_frame(msg)` builds one. A `Decoder` is
fed whatever bytes arrive (`feed`) and hands out whole messages
(`next_message`, None when it needs more bytes). The length is checked against
the cap as soon as the 4 header bytes are in, before any body byte is waited
for, so a peer announcing a huge frame is refused at once.

Errors are split by who is at fault (h11's habit):

- `RemoteProtocolError`: the peer sent garbage (oversize, undecodable, not a
  map, an unknown type, a bad field). Drop that peer, reply first if possible.
  Its `code` is the machine-readable code sent back in an `error` message.
- `LocalProtocolError`: we tried to send something that is not a valid
  message (a bug of ours). It must surface loudly, never be sent.

Map keys on the wire are strings only (`strict_map_key=True`): a peer written
in any language (or a JSON-minded one) can read every message. The one engine
structure with integer keys, Day & Night's `far`, is converted by
`lanmatch.protocol.messages.view_to_wire` / `view_from_wire`.
"""

from __future__ import annotations

import struct
from typing import Any

import msgpack
import ormsgpack

MAX_FRAME = 64 * 1024
"""Largest frame body accepted or sent, in bytes (the length prefix excluded)."""

HEADER = struct.Struct(">I")


class ProtocolError(Exception):
    """Base of the protocol errors. `code` is machine-readable, `str()` a sentence."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class RemoteProtocolError(ProtocolError):
    """The peer broke the protocol: drop it (after an `error` reply if possible)."""


class LocalProtocolError(ProtocolError):
    """We broke the protocol: a bug of ours, to surface loudly."""


def _no_ext(code: int, data: bytes) -> Any:
    raise RemoteProtocolError("bad_frame", f"msgpack extension type {code} is not part of the protocol")


def pack(obj: Any) -> bytes:
    """msgpack bytes of `obj` (str keys, no extension types).

    Encoded by `ormsgpack`, whose bytes are `msgpack.packb(obj,
    use_bin_type=True)`'s for every message we send (`tests/test_protocol.py`)
    in half the time; it refuses a map key that is not a string, an integer
    beyond 64 bits and nesting deeper than 255, all of which the protocol
    has no use for. Frames are decoded by `msgpack` (`decode_body`), whose
    hooks make it strict.

    Raises:
        LocalProtocolError: `obj` holds something msgpack cannot encode.
    """
    try:
        return ormsgpack.packb(obj)
    except (TypeError, ValueError, OverflowError) as e:
        raise LocalProtocolError("unencodable", f"cannot encode message: {e}") from e


def encode_frame(msg: dict[str, Any], max_frame: int = MAX_FRAME) -> bytes:
    """One frame (length prefix + msgpack body) holding `msg`.

    Raises:
        LocalProtocolError: `msg` is not a map, cannot be encoded, or is larger
            than the frame cap.
    """
    if not isinstance(msg, dict):
        raise LocalProtocolError("not_a_map", f"a message is a map, not {type(msg).__name__}")
    body = pack(msg)
    if len(body) > max_frame:
        raise LocalProtocolError(
            "oversize", f"message of type {msg.get('type')!r} is {len(body)} bytes, over the {max_frame}-byte cap"
        )
    return HEADER.pack(len(body)) + body


def decode_body(body: bytes) -> dict[str, Any]:
    """The message in one frame body.

    Raises:
        RemoteProtocolError: (code `bad_frame`) not msgpack, trailing bytes,
            non-string map keys, extension types, or not a map.
    """
    try:
        msg = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            ext_hook=_no_ext,
            timestamp=0,
        )
    except RemoteProtocolError:
        raise
    except (ValueError, TypeError, UnicodeDecodeError, msgpack.StackError) as e:
        # FormatError, ExtraData, StackError, int map keys, truncation ...
        raise RemoteProtocolError("bad_frame", f"undecodable frame: {type(e).__name__}: {e}") from None
    if not isinstance(msg, dict):
        raise RemoteProtocolError("bad_frame", f"a message is a map, not {type(msg).__name__}")
    if b"\xff" in body and _holds_timestamp(msg):  # (a timestamp's type byte, -1, is 0xff)
        raise RemoteProtocolError("bad_frame", "msgpack timestamps are not part of the protocol")
    return msg


def _holds_timestamp(msg: dict[str, Any]) -> bool:
    """Whether a msgpack timestamp (extension -1, which msgpack decodes itself
    instead of calling `ext_hook`) stands anywhere in `msg`, however deep."""
    todo: list[Any] = [msg]
    while todo:  # bounded: every item of the frame is visited once
        x = todo.pop()
        if type(x) is dict:
            todo.extend(x.values())
        elif type(x) is list:
            todo.extend(x)
        elif type(x) is msgpack.Timestamp:
            return True
    return False


class Decoder:
    """Incremental frame decoder: `feed(data)`, then `next_message()` until None.

    The buffer never holds more than one frame's cap plus what was fed since
    the last `next_message` calls; the caller drains after every feed.
    """

    def __init__(self, max_frame: int = MAX_FRAME):
        self.max_frame = max_frame
        self._buf = bytearray()
        self._need: int | None = None  # body length once the header is read
        self.broken = False
        self.last_frame = 0  # bytes of the frame `next_message` last returned (length prefix included)

    def feed(self, data: bytes) -> None:
        """Append received bytes (b"" is allowed and changes nothing)."""
        self._buf += data

    @property
    def buffered(self) -> int:
        """Bytes received and not yet handed out as messages."""
        return len(self._buf)

    def next_message(self) -> dict[str, Any] | None:
        """The next whole message, or None if more bytes are needed.

        Raises:
            RemoteProtocolError: an oversize length (code `oversize`) or a
                body that is not a valid message map (code `bad_frame`). The
                decoder is then broken: the stream cannot be resynchronised.
        """
        if self.broken:
            raise RemoteProtocolError("bad_frame", "the stream was already broken by an earlier error")
        if self._need is None:
            if len(self._buf) < HEADER.size:
                return None
            (n,) = HEADER.unpack_from(self._buf)
            if n > self.max_frame:
                self.broken = True
                raise RemoteProtocolError("oversize", f"frame of {n} bytes announced, over the {self.max_frame}-byte cap")
            if n == 0:
                self.broken = True
                raise RemoteProtocolError("bad_frame", "empty frame")
            del self._buf[: HEADER.size]
            self._need = n
        n = self._need
        if len(self._buf) < n:
            return None
        body = bytes(self._buf[:n])
        del self._buf[:n]
        self._need = None
        self.last_frame = HEADER.size + n
        try:
            return decode_body(body)
        except RemoteProtocolError:
            self.broken = True
            raise

    def pending_partial(self) -> bool:
        """True when the stream stopped inside a frame (a truncated frame at EOF)."""
        return bool(self._buf) or self._need is not None
