"""TLS 1.3 on every connection (docs/protocol.md section 1): the host's key
and self-signed certificate, fingerprints, and the contexts of both sides.

How this works. A host has an `Identity`: an EC P-256 key and a self-signed
certificate, made with the `cryptography` package at its first start and
kept in its data directory (`host-key.pem` mode 0600, `host-cert.pem`;
`Identity.load_or_make`), or made in memory for a host that keeps nothing
(`Identity.ephemeral`, one per process). Its **fingerprint** is the
lowercase hex SHA-256 of the certificate's DER bytes; the mDNS TXT record
carries it as `fp=`, and `short_fingerprint` is the form friends compare by
eye. Peers do not check the certificate against any authority (there is
none on a LAN): they take the fingerprint the handshake shows
(`fingerprint_of`) and compare it with the one they pinned for that host
(`lanmatch.net.hostbook`), as SSH does. Every secret (passwords, profile
proofs) travels only after the handshake.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import hashlib
import os
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

KEY_FILE = "host-key.pem"
CERT_FILE = "host-cert.pem"
VALID_DAYS = 3650  # a pinned certificate is its identity: it does not expire under a friend's feet
HANDSHAKE_WAIT = 5.0  # seconds either side gives the other to finish the TLS handshake


def fingerprint(der: bytes) -> str:
    """The fingerprint of a certificate: lowercase hex SHA-256 of its DER bytes."""
    return hashlib.sha256(der).hexdigest()


def short_fingerprint(fp: str) -> str:
    """The first 80 bits of a fingerprint in five groups of four, for eyes:
    `3f2a 91c0 7d44 e8b1 0c5d`."""
    return " ".join(fp[i:i + 4] for i in range(0, 20, 4))


@dataclass(frozen=True)
class Identity:
    """A host's TLS key and certificate (PEM), and the certificate's fingerprint."""

    key_pem: bytes
    cert_pem: bytes
    fingerprint: str

    @classmethod
    def make(cls, name: str = "lanmatch host") -> Identity:
        """A new key and a self-signed certificate for it."""
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name[:64] or "lanmatch host")])
        now = datetime.datetime.now(datetime.UTC)
        cert = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
            .sign(key, hashes.SHA256())
        )
        key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
        return cls(key_pem, cert.public_bytes(serialization.Encoding.PEM),
                   fingerprint(cert.public_bytes(serialization.Encoding.DER)))

    @classmethod
    @functools.cache
    def ephemeral(cls) -> Identity:
        """This process's identity for hosts that keep nothing (tests, `--no-store`
        hosts without a data directory): made once, never written."""
        return cls.make()

    @classmethod
    def load_or_make(cls, directory: str | os.PathLike[str], name: str = "lanmatch host") -> tuple[Identity, bool]:
        """The identity kept in `directory`, or a new one written there (the key
        0600, the directory 0700 when made); returns it and whether it was made.

        Raises:
            OSError: the directory or its files cannot be read or written.
            ValueError: a kept file is not a key or certificate (said with its path).
        """
        d = Path(directory)
        key_path, cert_path = d / KEY_FILE, d / CERT_FILE
        if key_path.exists() and cert_path.exists():
            key_pem, cert_pem = key_path.read_bytes(), cert_path.read_bytes()
            try:
                cert = x509.load_pem_x509_certificate(cert_pem)
                serialization.load_pem_private_key(key_pem, password=None)
            except ValueError as e:
                raise ValueError(f"{key_path} or {cert_path} is not a lanmatch host key: {e}") from None
            return cls(key_pem, cert_pem, fingerprint(cert.public_bytes(serialization.Encoding.DER))), False
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        made = cls.make(name)
        fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(made.key_pem)
        cert_path.write_bytes(made.cert_pem)
        return made, True

    @functools.cached_property
    def server_context(self) -> ssl.SSLContext:
        """A TLS 1.3-only server context holding this key and certificate."""
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_3
        with tempfile.TemporaryDirectory() as tmp:  # ssl loads a chain from files only
            key, cert = Path(tmp) / KEY_FILE, Path(tmp) / CERT_FILE
            fd = os.open(key, os.O_WRONLY | os.O_CREAT, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(self.key_pem)
            cert.write_bytes(self.cert_pem)
            ctx.load_cert_chain(cert, key)
        return ctx


def machine_identity(name: str = "lanmatch host", directory: str | os.PathLike[str] | None = None) -> tuple[Identity, bool]:
    """This machine's host identity, kept in `directory` (default: the host's
    data directory, `lanmatch.store.paths.default_data_dir()`), made at the
    first start: `Identity.load_or_make`'s answer (and its errors)."""
    from lanmatch.store.paths import default_data_dir

    return Identity.load_or_make(directory if directory is not None else default_data_dir(), name)


@functools.cache
def client_context() -> ssl.SSLContext:
    """The peers' TLS 1.3-only context: no authority to check against, so no
    verification here; the caller pins the fingerprint (`fingerprint_of`)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def fingerprint_of(stream: Any) -> str:
    """The fingerprint of the certificate the other side showed in the handshake."""
    der = stream.getpeercert(binary_form=True)
    if not der:
        raise ssl.SSLError("the host showed no certificate")
    return fingerprint(der)


async def client_handshake(stream: trio.abc.Stream, wait: float = HANDSHAKE_WAIT) -> TLSStream:
    """TLS over `stream` as a peer; the handshake done within `wait` seconds.

    Raises:
        trio.TooSlowError: no handshake within `wait`.
        trio.BrokenResourceError: the other side does not speak TLS 1.3 (or
            closed); its `__cause__` is the `ssl.SSLError`, if any.
    """
    tls = TLSStream(stream, client_context(), server_side=False)
    with trio.fail_after(wait):
        await tls.do_handshake()
    return tls


def _socket_under(stream: Any) -> Any:
    """The trio socket under `stream` (a `SocketStream`), or None: no socket,
    or Windows (where a socket is no file: no `read` or `write` on it)."""
    sock = getattr(stream, "socket", None)
    return None if sock is None or not hasattr(sock, "fileno") or os.name == "nt" else sock


def _fd(sock: Any) -> int:
    fd = sock.fileno()
    if fd < 0:
        raise trio.ClosedResourceError("the socket is closed")
    return fd


def write_nowait(stream: Any) -> Any:
    """A function that writes bytes to the socket under the trio `stream` (a
    `SocketStream`) at once, without waiting, and returns how many the kernel
    took (0 when its buffer is full); None when there is no such socket
    (`_socket_under`). It goes around trio's `send` (two checkpoints and a
    trip through the scheduler for every frame): the caller must be the
    stream's only writer at that moment, with nothing of its own still
    waiting to go out.

    The function raises `trio.ClosedResourceError` once the socket is closed
    and `OSError` (`BrokenPipeError`, `ConnectionResetError`) when the
    connection broke.
    """
    sock = _socket_under(stream)
    if sock is None:
        return None
    write = os.write

    def now(data: bytes | bytearray | memoryview) -> int:
        try:
            return write(_fd(sock), data)
        except BlockingIOError:
            return 0

    return now


def read_when_ready(stream: Any) -> Any:
    """An async function that waits until the socket under the trio `stream`
    (a `SocketStream`) is readable, then reads at most `n` bytes (b"" at the
    end); None when there is no such socket (`_socket_under`). One read a
    wakeup, where trio's `receive_some` first tries a read that finds nothing
    (the reader drained the socket last time), then waits, then reads again.

    The function raises `trio.ClosedResourceError` once the socket is closed
    and `OSError` when the connection broke.
    """
    sock = _socket_under(stream)
    if sock is None:
        return None
    read, wait = os.read, trio.lowlevel.wait_readable

    async def when_ready(n: int) -> bytes:
        while True:
            _fd(sock)
            await wait(sock)
            try:
                return read(_fd(sock), n)
            except BlockingIOError:
                continue

    return when_ready


class TLSStream(trio.abc.Stream):
    """TLS over a trio stream, lean: `ssl.SSLObject` between two memory BIOs,
    one `send_all` of the transport per `send_all`, one read of the
    transport per `receive_some` that needs bytes. It serves this protocol's
    shape (one task receiving, one sending; trio's `SSLStream` guards far
    more, and costs about a third of a round trip here: bench/README.md,
    "TLS beside plain TCP"). TLS 1.3 only: no renegotiation; what the TLS
    library wants to say while reading (a key update's answer) goes out
    with the next `send_all`.

    `do_handshake()` first (within the caller's deadline); then
    `receive_some` returns b"" at the peer's close_notify and raises
    `trio.BrokenResourceError` at a TCP end without one, or at a TLS error.
    """

    def __init__(self, transport: trio.abc.Stream, context: ssl.SSLContext, *, server_side: bool):
        self.transport_stream = transport
        self._in = ssl.MemoryBIO()
        self._out = ssl.MemoryBIO()
        self._obj = context.wrap_bio(self._in, self._out, server_side=server_side, server_hostname=None)
        self._sending = False
        self._closed = False
        self._write: Any = None  # the transport's `write_nowait`, found at the first `send_nowait`
        self._read: Any = None  # the transport's `read_when_ready`, found at the first read

    async def _flush(self) -> None:
        data = self._out.read()
        if data:
            await self.transport_stream.send_all(data)

    async def _fill(self) -> None:
        if self._read is None:
            self._read = read_when_ready(self.transport_stream) or self.transport_stream.receive_some
        try:
            data = await self._read(65536)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as e:
            raise trio.BrokenResourceError("the connection broke") from e
        if data:
            self._in.write(data)
        else:
            self._in.write_eof()

    async def do_handshake(self) -> None:
        """Raises: trio.BrokenResourceError (not TLS 1.3, or the connection ended)."""
        while True:
            try:
                self._obj.do_handshake()
                break
            except ssl.SSLWantReadError:
                await self._flush_or_break()
                if self._in.eof:
                    raise trio.BrokenResourceError("the connection ended in the TLS handshake") from None
                await self._fill()
            except ssl.SSLError as e:
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    await self._flush()  # the alert
                raise trio.BrokenResourceError(f"TLS handshake failed: {e}") from e
        await self._flush_or_break()

    async def _flush_or_break(self) -> None:
        try:
            await self._flush()
        except (trio.ClosedResourceError, OSError) as e:
            raise trio.BrokenResourceError("the connection broke") from e

    def getpeercert(self, binary_form: bool = False) -> Any:
        return self._obj.getpeercert(binary_form)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self._closed:
            raise trio.ClosedResourceError("this TLS stream is closed")
        if self._sending:
            raise trio.BusyResourceError("another task is sending on this TLS stream")
        self._sending = True
        try:
            try:
                self._obj.write(data)
            except ssl.SSLError as e:
                raise trio.BrokenResourceError(f"TLS: {e}") from e
            await self._flush_or_break()
        finally:
            self._sending = False

    def send_nowait(self, data: bytes | bytearray | memoryview) -> bytes:
        """Encrypt `data` and write to the socket what it takes now, without
        waiting (`write_nowait`); returns the encrypted rest, for `send_raw`.
        Only while no `send_all` or `send_raw` is under way (the caller's
        writer is idle).

        Raises:
            trio.BrokenResourceError: a TLS error, or the connection broke.
            trio.ClosedResourceError: this stream is closed.
        """
        if self._closed:
            raise trio.ClosedResourceError("this TLS stream is closed")
        if self._sending:
            raise trio.BusyResourceError("another task is sending on this TLS stream")
        try:
            self._obj.write(data)
        except ssl.SSLError as e:
            raise trio.BrokenResourceError(f"TLS: {e}") from e
        out = self._out.read()
        if self._write is None:
            self._write = write_nowait(self.transport_stream) or (lambda data: 0)
        return out[self._write(out):]

    async def send_raw(self, data: bytes) -> None:
        """Send bytes already encrypted (the rest `send_nowait` returned)."""
        if self._sending:
            raise trio.BusyResourceError("another task is sending on this TLS stream")
        self._sending = True
        try:
            await self.transport_stream.send_all(data)
        except (trio.ClosedResourceError, OSError) as e:
            raise trio.BrokenResourceError("the connection broke") from e
        finally:
            self._sending = False

    async def wait_send_all_might_not_block(self) -> None:
        await self.transport_stream.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self._closed:
            raise trio.ClosedResourceError("this TLS stream is closed")
        n = max_bytes or 65536
        if not self._in.pending and not self._obj.pending() and not self._in.eof:
            await self._fill()  # nothing buffered: read the transport first (no WantRead to raise and catch)
        while True:
            try:
                return self._obj.read(n)
            except ssl.SSLWantReadError:
                if self._in.eof:
                    raise trio.BrokenResourceError("the connection ended without TLS close_notify") from None
                await self._fill()
            except ssl.SSLZeroReturnError:
                return b""
            except ssl.SSLError as e:
                raise trio.BrokenResourceError(f"TLS: {e}") from e

    async def aclose(self) -> None:
        """Say close_notify (without waiting for the other side's), then close."""
        if self._closed:
            await trio.lowlevel.checkpoint()
            return
        self._closed = True
        try:
            with contextlib.suppress(ssl.SSLError):
                self._obj.unwrap()
            if not self._sending:
                with trio.move_on_after(1.0), contextlib.suppress(trio.BrokenResourceError,
                                                                 trio.ClosedResourceError, OSError):
                    await self._flush()
        finally:
            await self.transport_stream.aclose()
