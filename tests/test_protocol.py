"""The wire protocol, sans-I/O: frames, the catalogue, the checks."""

from __future__ import annotations

import struct

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanmatch.protocol import (
    MAX_FRAME,
    Decoder,
    LocalProtocolError,
    RemoteProtocolError,
    build_host,
    build_peer,
    check_host_message,
    check_peer_message,
    encode_frame,
    view_from_wire,
    view_to_wire,
)
from lanmatch.rules import GAMES, new_game


def frames(*msgs):
    return b"".join(encode_frame(m) for m in msgs)


def decode_all(data: bytes, chunk: int | None = None):
    d = Decoder()
    out = []
    step = chunk or max(1, len(data))
    for k in range(0, len(data), step):
        d.feed(data[k : k + step])
        while (m := d.next_message()) is not None:
            out.append(m)
    return out, d


# ------------------------------------------------------------------ framing

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.binary(max_size=20),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=12,
)
maps = st.dictionaries(st.text(max_size=8), values, max_size=6)


@settings(max_examples=60, deadline=None)
@given(st.lists(maps, min_size=1, max_size=3), st.integers(min_value=1, max_value=64))
def test_any_maps_round_trip_through_frames_in_any_chunking(msgs, chunk):
    data = frames(*msgs)
    out, d = decode_all(data, chunk)
    assert out == msgs
    assert not d.pending_partial()


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=1, max_size=300))
def test_garbage_bytes_give_a_remote_error_or_need_more_never_a_crash(data):
    d = Decoder()
    d.feed(data)
    try:
        while d.next_message() is not None:
            pass
    except RemoteProtocolError as e:
        assert e.code in ("bad_frame", "oversize")


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=1, max_size=200))
def test_garbage_bodies_in_a_valid_frame_are_refused_or_are_maps(body):
    d = Decoder()
    d.feed(struct.pack(">I", len(body)) + body)
    try:
        m = d.next_message()
    except RemoteProtocolError as e:
        assert e.code == "bad_frame"
    else:
        assert isinstance(m, dict)


def test_garbage_text_is_a_bad_frame():
    d = Decoder()
    d.feed(b"\x00\x00\x00\x05hello")
    with pytest.raises(RemoteProtocolError) as e:
        d.next_message()
    assert e.value.code == "bad_frame"
    with pytest.raises(RemoteProtocolError):  # broken for good: no resync inside a stream
        d.next_message()


@pytest.mark.parametrize(
    "poison",
    [msgpack.ExtType(5, b"x"), msgpack.Timestamp(1, 0)],
    ids=["ext", "timestamp"],
)
@pytest.mark.parametrize("where", ["top", "map", "list", "deep"])
def test_an_extension_type_anywhere_in_a_frame_is_a_bad_frame(poison, where):
    """docs/protocol.md: no extension types, no timestamps, at any depth: a
    fatal `bad_frame`, never a `bad_field` (msgpack decodes a timestamp itself,
    without the ext hook, so it used to pass when nested)."""
    msg = {
        "top": {"type": "hello", "v": 1, "name": poison},
        "map": {"type": "create", "room": "r", "game": "colormatch", "options": {"x": poison}},
        "list": {"type": "act", "state_id": 0, "action": {"type": "play", "card": [poison]}},
        "deep": {"type": "act", "state_id": 0, "action": {"a": [{"b": [[{"c": poison}]]}]}},
    }[where]
    d = Decoder()
    body = msgpack.packb(msg)
    d.feed(struct.pack(">I", len(body)) + body)
    with pytest.raises(RemoteProtocolError) as e:
        d.next_message()
    assert e.value.code == "bad_frame"


@pytest.mark.parametrize("stamp", [
    bytes.fromhex("d6ff00000001"),  # fixext 4: 32-bit seconds
    bytes.fromhex("d7ff0000001600000000"),  # fixext 8: 64-bit
    bytes.fromhex("c70cff00000000ffffffffffffffff"),  # ext 8, 12 bytes: 96-bit
    bytes.fromhex("c704ff00000001"),  # ext 8 holding 4 bytes
    bytes.fromhex("c80008ff0000000000000001"),  # ext 16 holding 8
    bytes.fromhex("c90000000cff") + bytes(12),  # ext 32 holding 12
])
def test_a_timestamp_in_any_encoding_is_a_bad_frame(stamp):
    """msgpack decodes a timestamp from every ext encoding of type -1 (its
    type byte 0xff), which the decoder looks for before walking the message."""
    body = b"\x82\xa4type\xa3act\xa8state_id" + stamp
    d = Decoder()
    d.feed(struct.pack(">I", len(body)) + body)
    with pytest.raises(RemoteProtocolError) as e:
        d.next_message()
    assert e.value.code == "bad_frame"


def test_truncated_frame_waits_for_more_and_is_seen_at_eof():
    data = encode_frame({"type": "ping"})
    d = Decoder()
    d.feed(data[:-1])
    assert d.next_message() is None
    assert d.pending_partial()
    d.feed(data[-1:])
    assert d.next_message() == {"type": "ping"}
    assert not d.pending_partial()


def test_oversize_length_is_refused_from_the_header_alone():
    d = Decoder()
    d.feed(struct.pack(">I", MAX_FRAME + 1))  # no body at all
    with pytest.raises(RemoteProtocolError) as e:
        d.next_message()
    assert e.value.code == "oversize"


def test_frame_at_the_cap_is_accepted():
    body = msgpack.packb({"type": "x", "pad": "a" * (MAX_FRAME - 20)})
    body = msgpack.packb({"type": "x", "pad": "a" * (MAX_FRAME - 20 - (len(body) - MAX_FRAME))})
    assert len(body) == MAX_FRAME
    d = Decoder()
    d.feed(struct.pack(">I", len(body)) + body)
    assert d.next_message()["type"] == "x"


def test_zero_length_frame_is_refused():
    d = Decoder()
    d.feed(b"\x00\x00\x00\x00")
    with pytest.raises(RemoteProtocolError):
        d.next_message()


@pytest.mark.parametrize(
    "body",
    [
        msgpack.packb([1, 2, 3]),  # not a map
        msgpack.packb({1: 2}),  # int key
        msgpack.packb({"a": 1}) + b"\x01",  # trailing bytes
        msgpack.packb({"a": msgpack.ExtType(5, b"x")}),  # extension
        msgpack.packb({"a": b"\xff"})[:-1],  # truncated body
        b"\xa3\xff\xfe\xfd",  # invalid UTF-8
        b"\x81\xa1a" + b"\x91" * 2000 + b"\x00",  # deep nesting
    ],
    ids=["list", "int_key", "trailing", "ext", "truncated_body", "bad_utf8", "deep"],
)
def test_malformed_bodies_are_bad_frames(body):
    d = Decoder()
    d.feed(struct.pack(">I", len(body)) + body)
    with pytest.raises(RemoteProtocolError) as e:
        d.next_message()
    assert e.value.code == "bad_frame"


def test_we_never_send_an_oversize_or_unencodable_message():
    with pytest.raises(LocalProtocolError):
        encode_frame({"type": "x", "pad": "a" * MAX_FRAME})
    with pytest.raises(LocalProtocolError):
        encode_frame({"type": "x", "v": object()})
    with pytest.raises(LocalProtocolError):
        encode_frame(["not", "a", "map"])  # type: ignore[arg-type]


_PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False)
    | st.text(max_size=12) | st.binary(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=8), _PLAIN, max_size=6))
def test_frames_hold_the_reference_encoders_bytes(msg):
    """We encode with ormsgpack (half the time) and every frame body is the
    bytes `msgpack.packb(..., use_bin_type=True)` makes, which decode to the
    message again: peers in any language read what they read before."""
    frame = encode_frame(msg)
    assert frame[4:] == msgpack.packb(msg, use_bin_type=True)
    d = Decoder()
    d.feed(frame)
    assert d.next_message() == msg


def test_a_games_views_and_deltas_encode_as_the_reference_encoder_does():
    from lanmatch.protocol import DeltaSender, view_to_wire

    for table in ("classic", "daynight", "siege"):
        g = new_game("colormatch", table=table, players=4, seed=3)
        senders = [DeltaSender() for _ in range(4)]
        for _ in range(60):
            for s, sender in enumerate(senders):
                msg = {"type": "view", "room": "r", "state_id": g.view(0)["step"], "view": view_to_wire(g.view(s)),
                       "legal": g.legal_actions(s), "timers": [{"seat": s, "kind": "move", "left": 12.5}],
                       "autopilot": []}
                for out in (msg, sender.next(msg)):
                    assert encode_frame(out)[4:] == msgpack.packb(out, use_bin_type=True)
            if g.outcome is not None:
                break
            seat = g.to_act[0]
            g.act(seat, g.legal_actions(seat)[0])


@pytest.mark.parametrize("bad", [{1: "int key"}, {"n": 2**64}, {"n": -(2**63) - 1}, {"o": object()}, "deep"])
def test_what_the_protocol_has_no_use_for_is_refused_before_it_is_sent(bad):
    if bad == "deep":
        bad = inner = {}
        for _ in range(300):
            inner["x"] = inner = {}
    with pytest.raises(LocalProtocolError) as e:
        encode_frame(bad)
    assert e.value.code == "unencodable"


def test_local_and_remote_errors_are_distinct_classes():
    assert not issubclass(LocalProtocolError, RemoteProtocolError)
    assert not issubclass(RemoteProtocolError, LocalProtocolError)


# ------------------------------------------------------------------ catalogue

GOOD_PEER = [
    {"type": "hello", "protocol": 1, "name": "Ann"},
    {"type": "hello", "protocol": 1, "name": "Bot 3", "agent": "bot", "token": "a" * 32},
    {"type": "hello", "protocol": 1, "name": "Ann", "profile": {"name": "Ann", "key": "0f" * 16}},
    {"type": "ping"},
    {"type": "list"},
    {"type": "create", "room": "Kitchen", "game": "colormatch", "table": "siege", "seats": 4, "clock": 60},
    {"type": "create", "room": "D", "game": "dominoes", "options": {"target": 50}, "password": "pw", "bots": "hard"},
    {"type": "create", "room": "C", "game": "colormatch", "seats": 6, "stake": 50},
    {"type": "join", "room": "Kitchen", "seat": 2},
    {"type": "join", "room": "Kitchen", "seat": None, "password": "x"},
    {"type": "watch", "room": "Kitchen"},
    {"type": "leave"},
    {"type": "start"},
    {"type": "rematch"},
    {"type": "kick", "seat": 3},
    {"type": "act", "state_id": 12, "action": {"type": "play", "card": "W", "color": "G"}},
    {"type": "act", "state_id": 0, "action": {"type": "catch", "seat": 1}, "seat": 0},
    {"type": "act", "state_id": 5, "action": {"type": "play", "tile": "6-4", "end": "left"}},
    {"type": "resync"},
]


@pytest.mark.parametrize("msg", GOOD_PEER, ids=[m["type"] for m in GOOD_PEER])
def test_valid_peer_messages_pass_and_round_trip(msg):
    out, _ = decode_all(encode_frame(msg))
    assert check_peer_message(out[0]) == msg
    assert build_peer(msg["type"], **{k: v for k, v in msg.items() if k != "type"}) == msg


BAD_PEER = [
    ({"type": "teleport"}, "unknown_type"),
    ({"no_type": 1}, "bad_field"),
    ({"type": 7}, "bad_field"),
    ({"type": "hello", "protocol": 1}, "bad_field"),  # missing name
    ({"type": "hello", "protocol": "1", "name": "a"}, "bad_field"),
    ({"type": "hello", "protocol": 1, "name": ""}, "bad_field"),
    ({"type": "hello", "protocol": 1, "name": "x" * 33}, "bad_field"),
    ({"type": "hello", "protocol": 1, "name": "a\x00b"}, "bad_field"),
    ({"type": "hello", "protocol": 1, "name": "a", "agent": "alien"}, "bad_field"),
    ({"type": "hello", "protocol": 1, "name": "a", "admin": True}, "bad_field"),  # unknown field
    ({"type": "ping", "x": 1}, "bad_field"),
    ({"type": "hello", "protocol": 1, "name": "a", "profile": {"name": "a"}}, "bad_field"),  # no key
    ({"type": "hello", "protocol": 1, "name": "a", "profile": {"name": "a", "key": "short"}}, "bad_field"),
    ({"type": "hello", "protocol": 1, "name": "a", "profile": {"name": "a", "key": "k" * 16, "id": 1}}, "bad_field"),
    ({"type": "hello", "protocol": 1, "name": "a", "profile": "Ann"}, "bad_field"),
    ({"type": "create", "room": "r", "game": "colormatch", "stake": -1}, "bad_field"),
    ({"type": "create", "room": "r", "game": "colormatch", "stake": 2.5}, "bad_field"),
    ({"type": "create", "room": "r", "game": "chess"}, "bad_field"),
    ({"type": "create", "room": "r", "game": "colormatch", "seats": 9}, "bad_field"),
    ({"type": "create", "room": "r", "game": "colormatch", "seats": True}, "bad_field"),
    ({"type": "create", "room": "r", "game": "colormatch", "options": {"a": [1]}}, "bad_field"),
    ({"type": "create", "room": "r", "game": "colormatch", "options": {"a": 1.5}}, "bad_field"),
    ({"type": "join", "room": "r", "seat": -1}, "bad_field"),
    ({"type": "kick"}, "bad_field"),
    ({"type": "act", "action": {"type": "draw"}}, "bad_field"),  # no state_id
    ({"type": "act", "state_id": -1, "action": {"type": "draw"}}, "bad_field"),
    ({"type": "act", "state_id": 1, "action": "draw"}, "bad_field"),
    ({"type": "act", "state_id": 1, "action": {"type": "expire", "penalty": True}}, "bad_field"),
    ({"type": "act", "state_id": 1, "action": {"type": "play", "card": "R5", "x": 1}}, "bad_field"),
    ({"type": "act", "state_id": 1, "action": {"type": "play", "card": 5}}, "bad_field"),
    ({"type": "act", "state_id": 1, "action": {"type": "catch", "seat": 9}}, "bad_field"),
    ({"type": "act", "state_id": 1, "action": {"type": "play", "tile": "6-4", "end": "up"}}, "bad_field"),
    ({"type": "act", "state_id": 2**60, "action": {"type": "draw"}}, "bad_field"),
]
# Peer text that could forge a log line or reorder what another peer reads
# (issue 13.9): C1 controls, bidi overrides, zero-width characters, line and
# paragraph separators; and names too long in bytes (28 four-byte characters).
PEER_TEXT = ["a\x85b", "a\x9bb", "\u202eAnn", "An\u200bn", "a\u2028b", "a\u2029b", "\ufeffAnn", "\U0001f600" * 17]
BAD_PEER += [({"type": "hello", "protocol": 1, "name": t}, "bad_field") for t in PEER_TEXT]
BAD_PEER += [({"type": "create", "room": t, "game": "colormatch"}, "bad_field") for t in PEER_TEXT]
BAD_PEER += [({"type": "hello", "protocol": 1, "name": "a", "client": t}, "bad_field") for t in PEER_TEXT[:-1]]


def test_names_in_any_script_pass_the_checks():
    for name in ("Ann", "Zoë", "Łukasz", "渡辺", "Аня", "🙂 Bob", "a b"):
        check_peer_message({"type": "hello", "protocol": 1, "name": name})
        check_peer_message({"type": "create", "room": name, "game": "colormatch"})


def test_every_ascii_control_is_refused_and_every_printable_passes():
    for k in range(128):
        text = f"ab{chr(k)}c"
        if k < 32 or k == 127:
            with pytest.raises(RemoteProtocolError, match=f"U\\+{k:04X}"):
                check_peer_message({"type": "hello", "protocol": 1, "name": text})
        else:
            check_peer_message({"type": "hello", "protocol": 1, "name": text})


@pytest.mark.parametrize(("msg", "code"), BAD_PEER, ids=[str(i) for i in range(len(BAD_PEER))])
def test_wrong_fields_and_unknown_types_are_named(msg, code):
    with pytest.raises(RemoteProtocolError) as e:
        check_peer_message(msg)
    assert e.value.code == code
    assert str(e.value)  # a sentence


def test_the_error_names_what_is_wrong_first_a_value_then_a_missing_field_then_unknown_ones():
    """A message is checked by its own keys, then for the fields it lacks,
    then for the keys no spec knows (four named, however many there are)."""
    act = {"type": "act", "state_id": 1, "action": {"type": "play", "card": 5}, "zz": 1}
    with pytest.raises(RemoteProtocolError, match="field 'card' of the action must be"):
        check_peer_message(act)
    with pytest.raises(RemoteProtocolError, match="lacks the field 'state_id'"):
        check_peer_message({"type": "act", "action": {"type": "draw"}, "zz": 1})
    many = {"type": "ping", **{f"k{i}": i for i in range(5000)}}
    with pytest.raises(RemoteProtocolError) as e:
        check_peer_message(many)
    assert e.value.code == "bad_field"
    assert str(e.value).endswith("unknown field(s) 'k0', 'k1', 'k2', 'k3'")


@settings(max_examples=100, deadline=None)
@given(maps)
def test_random_maps_are_checked_without_crashing(msg):
    try:
        check_peer_message(msg)
    except RemoteProtocolError as e:
        assert e.code in ("unknown_type", "bad_field")


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([m["type"] for m in GOOD_PEER]),
    st.dictionaries(st.sampled_from(["room", "seat", "state_id", "action", "name", "protocol", "token"]), values, max_size=4),
)
def test_random_fields_on_known_types_are_checked_without_crashing(typ, fields):
    try:
        check_peer_message({"type": typ, **fields})
    except RemoteProtocolError as e:
        assert e.code == "bad_field"


def test_building_a_bad_message_is_our_bug():
    with pytest.raises(LocalProtocolError):
        build_peer("act", state_id=-3, action={"type": "draw"})
    with pytest.raises(LocalProtocolError):
        build_host("rejected", code="stale")  # lacks reason and state_id
    with pytest.raises(LocalProtocolError):
        build_host("nonsense")


def test_host_messages_need_a_sequence_number():
    msg = build_host("ping")
    with pytest.raises(RemoteProtocolError):
        check_host_message(msg)
    assert check_host_message({**msg, "seq": 1})["type"] == "ping"
    assert check_host_message({**msg, "seq": 2, "future_field": 1})  # extra fields allowed


# ------------------------------------------------------------------ views


@pytest.mark.parametrize("table", list(GAMES["colormatch"].tables))
def test_every_engine_view_crosses_the_wire_unchanged(table):
    g = new_game("colormatch", table=table, players=4, seed=3)
    for _ in range(60):
        if g.outcome is not None:
            break
        seat = g.to_act[0]
        g.act(seat, g.legal_actions(seat)[0])
        for s in range(4):
            v = g.view(s)
            msg = build_host("view", room="r", state_id=v["step"], view=view_to_wire(v), legal=g.legal_actions(s), timers=[], autopilot=[])
            out, _ = decode_all(encode_frame({"seq": 1, **msg}))
            got = check_host_message(out[0])
            assert view_from_wire(got["view"]) == v


def test_far_goes_out_with_string_keys_and_comes_back_with_ints():
    g = new_game("colormatch", table="daynight", players=3, seed=1)
    v = g.view(0)
    w = view_to_wire(v)
    assert set(w["far"]) == {"1", "2"} and set(v["far"]) == {1, 2}
    assert view_from_wire(msgpack.unpackb(msgpack.packb(w), strict_map_key=True)) == v
    with pytest.raises(RemoteProtocolError):
        view_from_wire({**w, "far": {"x": []}})


def test_dominoes_view_crosses_the_wire():
    g = new_game("dominoes", players=3, seed=2)
    v = g.view(1)
    assert view_from_wire(msgpack.unpackb(msgpack.packb(view_to_wire(v)))) == v
