"""One framed connection: a reader, a writer with a bounded outbox, heartbeats.

How this works. `Connection.run(handler)` runs three tasks on one stream:

- the reader feeds received bytes to a `Decoder` and calls `handler(msg)`
  (synchronously: the handler never awaits, it routes) for every message;
- the writer is the only caller of `send_all`: it takes messages from the
  outbox (a bounded trio memory channel), numbers them (`seq`) when asked to,
  frames them and sends them, several per `send_all` when they queue up;
- the heartbeat sends `ping` after `HEARTBEAT` seconds without sending, and
  closes the connection when nothing at all was received for `DEAD_AFTER`
  seconds (a dead peer is noticed within a few seconds).

`send(msg)` never waits: a full outbox means the peer cannot keep up, and the
connection is dropped (`slow_reader`), so a slow reader never delays anyone
else. A `send_all` stuck for `SEND_TIMEOUT` seconds drops it too (the
heartbeat watches it: a cancel scope around every send would cost more than
the send's own Python work).

While the writer is idle (nothing queued, nothing being sent), `send` writes
the frame itself, at once: numbered, framed, encrypted and handed to the
socket without waiting (`tls.write_nowait`), so a message costs no task
switch and no trip through trio's scheduler; whatever the kernel does not
take at once goes to the writer, and everything after it queues behind it.

The peer's garbage (`RemoteProtocolError` from the decoder) gets an `error`
reply and closes the connection; the handler may raise it too.

Deadlines (the host's side, docs/protocol.md "Connections and frames"): a
connection that has not been marked `greeted` within `hello_timeout` seconds
gets a fatal `hello_timeout` (until then it is neither pinged nor dropped for
silence); a frame whose first byte came more than
`frame_timeout` seconds ago and is still incomplete gets a fatal
`slow_frame`. The heartbeat task checks both (infinite: never).

A host serves its connections with one `Sweeper` (`Connection(sweeper=...)`)
instead: one task for every connection's clocks, not a heartbeat task per
connection. It sleeps until the next deadline (heaps of the hello and frame
deadlines, ordered by when they fall due), and once a beat it pings and
drops for silence the connections that said `hello`. A thousand idle
strangers then cost no task and no wake-up each, and their deadlines, which
fall due in the order they connected, are handled a few at a time between
everyone else's turns (docs/protocol.md, "Connections and frames").
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import logging
import math
import ssl
from collections import deque
from collections.abc import Callable
from typing import Any

import trio

from lanmatch.net.tls import TLSStream, write_nowait
from lanmatch.protocol import (
    MAX_FRAME,
    Decoder,
    LocalProtocolError,
    RemoteProtocolError,
    encode_frame,
)

log = logging.getLogger("lanmatch.net")

HEARTBEAT = 1.0
DEAD_AFTER = 4.0
SEND_TIMEOUT = 5.0
FAREWELL = 0.5  # seconds a cancelled connection's last message may take to go out
OUTBOX = 256
RECV_CHUNK = 65536
HELLO_TIMEOUT = 5.0  # seconds a new connection has to say `hello` (the host's side)
FRAME_TIMEOUT = 10.0  # seconds a frame may take from its first byte to its last
GRACE = 1.0  # seconds a fatal deadline `error` may take to go out before the connection is cut off
SWEEP_BATCH = 64  # deadlines a sweeper handles before it lets the other tasks run

_ids = itertools.count(1)


class _Escaped(str):
    """Escaped text: `%s` shows it as it is, `%r` quoted (not escaped again)."""

    def __repr__(self) -> str:
        return f"'{self}'"


def escape(v: Any) -> Any:
    """Peer text as the log shows it: printable ASCII as it is, anything else
    (non-ASCII, controls, line separators, backslashes) `unicode_escape`d,
    so that no peer can forge a line of the log. Not text: unchanged."""
    if not isinstance(v, str) or (v.isascii() and v.isprintable() and "\\" not in v):
        return v
    return _Escaped(v.encode("unicode_escape").decode("ascii"))

_CLOSE = object()


class _Rest(bytes):
    """The bytes of a direct write that the socket did not take (already encrypted)."""


def _direct_writes(stream: trio.abc.Stream) -> tuple[Callable[[bytes], bytes] | None, Callable[[bytes], Any] | None]:
    """How `send` writes a frame to `stream` itself (returning what the
    socket did not take) and how the writer sends that rest; (None, None):
    `stream` takes no direct writes (no socket under it, or Windows)."""
    if isinstance(stream, TLSStream):
        return stream.send_nowait, stream.send_raw
    write = write_nowait(stream) if isinstance(stream, trio.SocketStream) else None
    if write is None:
        return None, None
    return (lambda frame: frame[write(frame):]), stream.send_all


class Connection:
    """A framed msgpack connection. `numbered` adds `seq` to what it sends (the host's side)."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        *,
        numbered: bool,
        outbox: int = OUTBOX,
        heartbeat: float = HEARTBEAT,
        dead_after: float = DEAD_AFTER,
        max_frame: int = MAX_FRAME,
        label: str = "",
        hello_timeout: float = math.inf,
        frame_timeout: float = math.inf,
        tls: ssl.SSLContext | None = None,
        sweeper: Sweeper | None = None,
    ):
        self.id = next(_ids)
        self.stream = stream
        self.tls = tls  # a server context: `run` first does the TLS handshake (within `hello_timeout`)
        self.secure = tls is None  # False until the handshake is done: nothing is written in clear
        self.numbered = numbered
        self.heartbeat = heartbeat
        self.dead_after = dead_after
        self.max_frame = max_frame
        self.label = label or f"conn{self.id}"
        self.hello_timeout = hello_timeout
        self.frame_timeout = frame_timeout
        self.sweeper = sweeper  # None: this connection's own heartbeat task keeps its clocks
        self.address: str | None = None  # the peer's IP address (the host sets it)
        self.greeted = False  # set by the host once the peer said `hello`
        self.opened_at = 0.0
        self._partial_since: float | None = None  # when the incomplete frame's first byte came
        self._send, self._recv = trio.open_memory_channel[Any](outbox)
        self.seq = 0
        self.closed = False
        self.close_reason: str | None = None
        self._scope: trio.CancelScope | None = None
        self.last_recv = 0.0
        self.last_sent = 0.0
        self._sending_since: float | None = None
        self.sent_frames = 0
        self.recv_frames = 0
        self.on_frame_sent: Callable[[dict[str, Any]], None] | None = None  # tests watch the wire
        self.strict = False  # re-raise our own bugs (tests) instead of dropping the connection
        self.on_close: Callable[[], None] | None = None  # told once, as soon as the connection closes (either side)
        self.farewell: Callable[[], dict[str, Any] | None] | None = None  # the last message when cancelled (the host's `bye`)
        self._idle = False  # the writer waits on an empty outbox: `send` may write directly
        self._nowait: Callable[[bytes], bytes] | None = None  # a frame's direct write; returns the rest
        self._send_rest: Callable[[bytes], Any] | None = None  # the writer's send of such a rest

    # ------------------------------------------------------------ sending

    def send(self, msg: dict[str, Any]) -> bool:
        """Queue `msg` without waiting. False (and the connection dropped) if
        the outbox is full; False if already closed."""
        if self.closed:
            return False
        if self._idle:
            return self._send_now(msg)
        try:
            self._send.send_nowait(msg)
        except trio.WouldBlock:
            self.close("slow_reader")
            return False
        return True

    @property
    def idle(self) -> bool:
        """Nothing waits in the outbox and nothing is being sent: what was sent
        is with the kernel (the next `send` writes directly)."""
        return self._idle

    def _send_now(self, msg: dict[str, Any]) -> bool:
        """`send` while the writer is idle: the frame goes to the socket from
        here; what the socket does not take, the writer sends next."""
        frame = self._frame(msg)
        if frame is None:
            return False
        try:
            rest = self._nowait(frame)
        except (trio.BrokenResourceError, trio.ClosedResourceError, trio.BusyResourceError, OSError):
            self.close("reset")
            return False
        self.sent_frames += 1
        self.last_sent = trio.current_time()
        if rest:
            self._idle = False
            self._send.send_nowait(_Rest(rest))  # the outbox is empty: room for it
        return True

    def _frame(self, m: dict[str, Any]) -> bytes | None:
        """`m` numbered (the host's side) and framed; None (the connection
        dropped: `local_error`) if it cannot be sent."""
        if self.numbered:
            self.seq += 1
            m = {"seq": self.seq, **m}
        try:
            if self.on_frame_sent is not None:
                self.on_frame_sent(m)
            return encode_frame(m, self.max_frame)
        except LocalProtocolError:
            # our bug: loud in the log, and only this connection pays
            log.exception("%s: refusing to send an invalid message %.200r", escape(self.label), m)
            if self.strict:
                raise
            self.close("local_error")
            return None

    def close(self, reason: str, final: dict[str, Any] | None = None) -> None:
        """Close: after sending `final` (if the outbox has room and the TLS
        handshake is done), or at once."""
        if self.closed:
            return
        self._closed()
        self.close_reason = reason
        self._idle = False
        if final is not None and self.secure:
            try:
                self._send.send_nowait(final)
                self._send.send_nowait(_CLOSE)
                return  # the writer sends `final`, then ends the connection
            except trio.WouldBlock:
                pass
        if self._scope is not None:
            self._scope.cancel()

    def _closed(self) -> None:
        self.closed = True
        if self.on_close is not None:
            self.on_close()

    # ------------------------------------------------------------ running

    async def run(self, handler: Callable[[dict[str, Any]], None]) -> None:
        """Serve the connection until it closes (either side) or is dropped."""
        now = trio.current_time()
        self.last_recv = self.last_sent = self.opened_at = now
        try:
            async with trio.open_nursery() as nursery:
                self._scope = nursery.cancel_scope
                if self.closed:  # closed before it ran
                    nursery.cancel_scope.cancel()
                if self.tls is not None and not await self._handshake():
                    return
                nursery.start_soon(self._reader, handler)
                nursery.start_soon(self._writer)
                if self.sweeper is not None:
                    self.sweeper.add(self)
                else:
                    nursery.start_soon(self._heartbeat)
        finally:
            if self.sweeper is not None:
                self.sweeper.discard(self)
            cancelled = not self.closed  # nobody closed it: cancelled from outside (the host stops)
            if not self.closed:
                self._closed()
            if self.close_reason is None:
                self.close_reason = "closed"
            with trio.CancelScope(shield=True), trio.move_on_after(1.0):
                if cancelled and self.farewell is not None and self._sending_since is None and self.secure:
                    await self._say_farewell()
                await trio.aclose_forcefully(self.stream)

    async def _handshake(self) -> bool:
        """The server's side of the TLS handshake, within `hello_timeout`; False
        (the connection closed: `tls_failed`, `hello_timeout`) if it fails. A
        peer speaking plain TCP gets at most the TLS library's alert."""
        tls = TLSStream(self.stream, self.tls, server_side=True)
        with trio.move_on_after(self.hello_timeout) as scope:
            try:
                await tls.do_handshake()
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                self.close("tls_failed")
                return False
        if scope.cancelled_caught:
            self.close("hello_timeout")
            return False
        self.stream, self.secure = tls, True
        return True

    async def _say_farewell(self) -> None:
        """The last message of a connection cancelled from outside, written
        directly (the writer has ended), within a short grace (`FAREWELL`)."""
        last = self.farewell()
        if last is None:
            return
        queued = []  # what the writer had not sent yet goes first
        while True:
            try:
                queued.append(self._recv.receive_nowait())
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                break
        frames = []
        with trio.move_on_after(FAREWELL):
            try:
                for msg in [*queued, last]:
                    if self.numbered:
                        self.seq += 1
                        msg = {"seq": self.seq, **msg}
                    if self.on_frame_sent is not None:
                        self.on_frame_sent(msg)
                    frames.append(encode_frame(msg, self.max_frame))
                await self.stream.send_all(b"".join(frames))
                self.sent_frames += len(frames)
            except (trio.BrokenResourceError, trio.ClosedResourceError, trio.BusyResourceError, OSError,
                    LocalProtocolError):
                pass

    def _error(self, code: str, message: str, fatal: bool, ref: str | None = None) -> dict[str, Any]:
        return {"type": "error", "code": code, "message": message[:400], "fatal": fatal, "ref": ref}

    async def _reader(self, handler: Callable[[dict[str, Any]], None]) -> None:
        dec = Decoder(self.max_frame)
        try:
            while not self.closed:
                try:
                    data = await self.stream.receive_some(RECV_CHUNK)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    self.close("reset")
                    return
                if not data:
                    self.close("truncated" if dec.pending_partial() else "eof")
                    return
                self.last_recv = trio.current_time()
                dec.feed(data)
                done = 0
                while not self.closed:
                    msg = dec.next_message()
                    if msg is None:
                        break
                    done += 1
                    self.recv_frames += 1
                    handler(msg)
                if not dec.pending_partial():
                    self._partial_since = None
                elif done or self._partial_since is None:  # a new frame began in this chunk
                    self._partial_since = self.last_recv
                    if self.sweeper is not None:
                        self.sweeper.frame_begun(self)
        except RemoteProtocolError as e:
            log.info("%s: dropped: %s (%s)", escape(self.label), escape(e.message), e.code)
            if self.numbered:
                self.close(e.code, self._error(e.code, e.message, True))
            else:
                self.close(e.code)

    async def _writer(self) -> None:
        self._nowait, self._send_rest = _direct_writes(self.stream)
        try:
            while True:
                try:
                    msg = self._recv.receive_nowait()
                except trio.WouldBlock:
                    self._idle = self._nowait is not None and not self.closed
                    msg = await self._recv.receive()
                    self._idle = False
                if type(msg) is _Rest:
                    self._sending_since = trio.current_time()
                    await self._send_rest(msg)
                    self._sending_since = None
                    self.last_sent = trio.current_time()
                    continue
                batch = [msg]
                while len(batch) < 64:
                    try:
                        batch.append(self._recv.receive_nowait())
                    except trio.WouldBlock:
                        break
                frames = []
                end = False
                for m in batch:
                    if m is _CLOSE:
                        end = True
                        break
                    frame = self._frame(m)
                    if frame is None:
                        return
                    frames.append(frame)
                if frames:
                    # no cancel scope per send (it costs): the heartbeat drops a
                    # connection whose send_all has been stuck for SEND_TIMEOUT
                    self._sending_since = trio.current_time()
                    await self.stream.send_all(b"".join(frames))
                    self._sending_since = None
                    self.sent_frames += len(frames)
                    self.last_sent = trio.current_time()
                if end:
                    break
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            self.close("reset")
        finally:
            self._idle = False
            if self._scope is not None:
                self._scope.cancel()

    def _deadline(self, code: str, message: str) -> None:
        """Close with a fatal `error` (a deadline passed)."""
        log.info("%s: dropped: %s (%s)", escape(self.label), message, code)
        self.close(code, self._error(code, message, True) if self.numbered else None)

    def _cut_off(self) -> None:
        """End the connection now (a closed one whose last message did not go out in time)."""
        if self._scope is not None:
            self._scope.cancel()

    def _hello_late(self, now: float) -> bool:
        return not self.greeted and now - self.opened_at > self.hello_timeout

    def _frame_late(self, now: float) -> bool:
        return self._partial_since is not None and now - self._partial_since > self.frame_timeout

    def _hello_pending(self, deadline: float) -> bool:
        """The sweeper's entry (hello by `deadline`) still stands."""
        return not self.greeted

    def _frame_pending(self, deadline: float) -> bool:
        """The sweeper's entry (this frame complete by `deadline`) still stands."""
        return self._partial_since is not None and self._partial_since + self.frame_timeout <= deadline

    def _hello_expired(self) -> None:
        self._deadline("hello_timeout", f"no hello within {self.hello_timeout:g} s")

    def _frame_expired(self) -> None:
        self._deadline("slow_frame", f"a frame not completed within {self.frame_timeout:g} s")

    def _beat(self, now: float) -> None:
        """The heartbeat's turn: drop a silent or stuck peer, or ping an idle one."""
        if self.closed or not math.isfinite(self.heartbeat):
            return
        if not self.greeted and math.isfinite(self.hello_timeout):
            return  # before hello: no ping (the host's first frame comes first), the hello deadline governs
        if now - self.last_recv > self.dead_after:
            log.info("%s: nothing heard for %.1f s: dropped", escape(self.label), now - self.last_recv)
            self.close("timeout")
            self._cut_off()
            return
        if self._sending_since is not None and now - self._sending_since > SEND_TIMEOUT:
            log.info("%s: a send stuck for %.1f s: dropped (slow reader)", escape(self.label), now - self._sending_since)
            self.close("slow_reader")
            return
        if now - self.last_sent >= self.heartbeat:
            self.last_sent = now
            self.send({"type": "ping"})

    async def _heartbeat(self) -> None:
        """This connection's clocks, on its own (without a `Sweeper`)."""
        tick = min(self.heartbeat, self.hello_timeout, self.frame_timeout) / 2
        while not self.closed:
            await trio.sleep(tick)
            now = trio.current_time()
            if self._hello_late(now) or self._frame_late(now):
                (self._hello_expired if self._hello_late(now) else self._frame_expired)()
                await trio.sleep(GRACE)  # a peer that does not read its error is cut off anyway
                self._cut_off()
                return
            self._beat(now)


class Sweeper:
    """Every connection's clocks in one task (the host's side; see the module
    docstring). `run` it in a nursery; a `Connection(sweeper=...)` adds itself
    when it runs and goes when it ends.

    The hello and frame deadlines sit in heaps (deadline, id, connection),
    an entry dropped lazily when its connection has said `hello`, finished
    that frame or closed; the task sleeps until the earliest, or the next
    beat, whichever comes first. Each beat (half the shortest heartbeat)
    goes over the connections once, `SWEEP_BATCH` at a time."""

    def __init__(self, tick: float = HEARTBEAT / 2):
        self.tick = tick
        self.conns: dict[int, Connection] = {}
        self._hello: list[tuple[float, int, Connection]] = []
        self._frames: list[tuple[float, int, Connection]] = []
        self._closing: deque[tuple[float, Connection]] = deque()  # given a fatal error; cut off at the time
        self._wake = trio.Event()  # set when a deadline earlier than the one slept to may have come
        self._sleeping_until = math.inf

    def add(self, conn: Connection) -> None:
        self.conns[conn.id] = conn
        if math.isfinite(conn.heartbeat):
            self.tick = min(self.tick, conn.heartbeat / 2)
        if not conn.greeted and math.isfinite(conn.hello_timeout):
            self._push(self._hello, conn.opened_at + conn.hello_timeout, conn)

    def discard(self, conn: Connection) -> None:
        self.conns.pop(conn.id, None)

    def frame_begun(self, conn: Connection) -> None:
        """`conn` holds the first bytes of a frame since `conn._partial_since`."""
        if math.isfinite(conn.frame_timeout):
            self._push(self._frames, conn._partial_since + conn.frame_timeout, conn)

    def _push(self, heap: list, when: float, conn: Connection) -> None:
        heapq.heappush(heap, (when, conn.id, conn))
        if when < self._sleeping_until:
            self._wake.set()

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        task_status.started(self)
        next_beat = trio.current_time() + self.tick
        while True:
            when = min(next_beat, self._hello[0][0] if self._hello else math.inf,
                       self._frames[0][0] if self._frames else math.inf,
                       self._closing[0][0] if self._closing else math.inf)
            if when > trio.current_time():
                self._sleeping_until = when
                self._wake = trio.Event()
                with trio.move_on_at(when):
                    await self._wake.wait()
                self._sleeping_until = math.inf
            now = trio.current_time()
            await self._expire(self._hello, now, Connection._hello_pending, Connection._hello_expired)
            await self._expire(self._frames, now, Connection._frame_pending, Connection._frame_expired)
            while self._closing and self._closing[0][0] <= now:
                self._closing.popleft()[1]._cut_off()
            if now >= next_beat:
                await self._beats()
                next_beat = max(next_beat + self.tick, trio.current_time())

    async def _expire(self, heap: list, now: float, pending: Callable, expired: Callable) -> None:
        """Expire the connections whose deadline in `heap` has come, and whose
        entry still stands (`pending(conn, deadline)`)."""
        done = 0
        while heap and heap[0][0] <= now:
            when, _, conn = heapq.heappop(heap)
            if conn.closed or not pending(conn, when):
                continue  # greeted, frame completed (a newer frame has its own entry), or gone
            expired(conn)
            self._closing.append((now + GRACE, conn))
            done += 1
            if done % SWEEP_BATCH == 0:
                await trio.sleep(0)  # the other tasks' turn (a thousand strangers time out together)

    async def _beats(self) -> None:
        conns = list(self.conns.values())
        for k in range(0, len(conns), SWEEP_BATCH * 4):
            if k:
                await trio.sleep(0)
            now = trio.current_time()
            for conn in conns[k:k + SWEEP_BATCH * 4]:
                conn._beat(now)


async def refuse(stream: trio.abc.Stream, code: str, message: str, *, timeout: float = 1.0,
                 tls: ssl.SSLContext | None = None) -> None:
    """Answer a connection the host will not serve with one fatal `error`
    (numbered 1, as the first message of a host's connection is; inside TLS
    when `tls` is the host's context) and close it, all within `timeout`."""
    frame = encode_frame({"seq": 1, "type": "error", "code": code, "message": message, "fatal": True, "ref": None})
    with trio.move_on_after(timeout), contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        if tls is not None:
            stream = TLSStream(stream, tls, server_side=True)
            await stream.do_handshake()
        await stream.send_all(frame)
    with trio.CancelScope(shield=True), trio.move_on_after(timeout):
        await trio.aclose_forcefully(stream)
