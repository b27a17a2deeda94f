"""The wire protocol, sans-I/O: frames, the message catalogue, checks.

    from lanmatch.protocol import Decoder, encode_frame, check_peer_message
    dec = Decoder(); dec.feed(chunk)
    while (msg := dec.next_message()) is not None:
        check_peer_message(msg)

No sockets, no clocks: bytes in, messages out. docs/protocol.md is the
contract.
"""

from lanmatch.protocol.delta import DeltaHolder, DeltaSender, apply_delta, make_delta
from lanmatch.protocol.framing import (
    MAX_FRAME,
    Decoder,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
    decode_body,
    encode_frame,
    pack,
)
from lanmatch.protocol.messages import (
    ACTION_TYPES,
    CLOCKS,
    DEFAULT_PORT,
    PROTOCOL_VERSION,
    PROTOCOL_VERSIONS,
    build_host,
    build_peer,
    check_host_message,
    check_outgoing_host,
    check_peer_message,
    view_from_wire,
    view_to_wire,
)

__all__ = [
    "DeltaHolder",
    "DeltaSender",
    "apply_delta",
    "make_delta",
    "ACTION_TYPES",
    "CLOCKS",
    "MAX_FRAME",
    "PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "DEFAULT_PORT",
    "Decoder",
    "LocalProtocolError",
    "ProtocolError",
    "RemoteProtocolError",
    "build_host",
    "build_peer",
    "check_host_message",
    "check_outgoing_host",
    "check_peer_message",
    "decode_body",
    "encode_frame",
    "pack",
    "view_from_wire",
    "view_to_wire",
]
