"""mDNS discovery with zeroconf, from trio (SPEC section 1, RECIPES).

How this works. zeroconf runs its own thread; we use its sync API through
`trio.to_thread.run_sync`, always with `use_asyncio=False` (under the
console's asyncio loop zeroconf would otherwise attach to it) and IPv4 only.

- `Advertiser` registers `_lanmatch._tcp.local.` with the host's name as the
  instance name (a clash with a host on another machine is resolved by
  zeroconf renaming it, "Kitchen-2"; docs/protocol.md section 9),
  a small TXT record (`txtvers`, `proto`, `rooms`, `free`, `games`, `pw`), and
  `follow(host)` updates the record as rooms change (coalesced: an update costs
  about 0.45 s). `close()` unregisters (browsers see it at once).
- `Browser` asks with QM questions (with several mDNS sockets on one machine,
  QU answers reach only one of them), resolves each name in zeroconf's thread
  and hands it to trio. mDNS is only a hint: a host killed with -9 is never
  withdrawn, so every host found is checked over TCP (`check_alive`: a
  `hello` answered by `welcome`) before it is listed, and listed hosts are
  checked again every `recheck` seconds; the dead are dropped.

Tests and benchmarks pass `interfaces=["127.0.0.1"]` (or an address inside
their own network namespace); the default (every interface) is for real use.
"""

from __future__ import annotations

import logging
import random
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import trio

from lanmatch.protocol import PROTOCOL_VERSION, PROTOCOL_VERSIONS

log = logging.getLogger("lanmatch.discovery")

SERVICE = "_lanmatch._tcp.local."
TXT_VERSION = "1"


def txt_record(summary: dict[str, Any]) -> dict[str, str]:
    """The TXT record of a host summary (`Host.summary()`)."""
    return {
        "txtvers": TXT_VERSION,
        "proto": str(PROTOCOL_VERSIONS[0]),  # the oldest version it speaks: protocol-1 browsers list it
        "protos": ",".join(map(str, PROTOCOL_VERSIONS)),
        "rooms": str(summary.get("rooms", 0)),
        "playing": str(summary.get("playing", 0)),
        "free": str(summary.get("free", 0)),
        "games": ",".join(summary.get("games", ())),
        "pw": "1" if summary.get("password") else "0",
        **({"fp": summary["fp"]} if summary.get("fp") else {}),  # the host's certificate (docs/protocol.md 9)
    }


def local_addresses() -> list[str]:
    """Every IPv4 address of this machine except loopback (loopback if none)."""
    import ifaddr

    out = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ip.ip.startswith("127."):
                out.append(ip.ip)
    return out or ["127.0.0.1"]


def _zeroconf(interfaces: list[str] | None):
    from zeroconf import InterfaceChoice, IPVersion, Zeroconf

    return Zeroconf(
        interfaces=interfaces if interfaces else InterfaceChoice.All,
        ip_version=IPVersion.V4Only,
        use_asyncio=False,
    )


class Advertiser:
    """Registers a host over mDNS and keeps its TXT record up to date."""

    def __init__(self, name: str, port: int, *, bind: str | None = None, rng: Any = None):
        self.wanted = name
        self.name: str | None = None  # the instance name registered (after a clash: renamed)
        self.port = port
        self.interfaces = [bind] if bind and bind not in ("0.0.0.0", "") else None
        self.addresses = [bind] if self.interfaces else local_addresses()
        rng = rng or random.SystemRandom()
        self.server = f"lanmatch-{rng.getrandbits(32):08x}.local."
        self._zc: Any = None
        self._info: Any = None
        self._txt: dict[str, str] | None = None

    def _make_info(self, txt: dict[str, str]):
        from zeroconf import ServiceInfo

        instance = (self.name or f"{self.wanted}.{SERVICE}")
        return ServiceInfo(
            SERVICE,
            instance,
            addresses=[socket.inet_aton(a) for a in self.addresses],
            port=self.port,
            properties=txt,
            server=self.server,
        )

    async def start(self, summary: dict[str, Any]) -> str:
        """Register (probing takes about 1.6 s); returns the instance name used."""
        self._zc = await trio.to_thread.run_sync(_zeroconf, self.interfaces)
        self._txt = txt_record(summary)
        self._info = self._make_info(self._txt)
        await trio.to_thread.run_sync(lambda: self._zc.register_service(self._info, allow_name_change=True))
        self.name = self._info.name
        log.info("advertised as %r on %s port %d", self.name, ",".join(self.addresses), self.port)
        return self.name

    async def update(self, summary: dict[str, Any]) -> bool:
        """Update the TXT record if it changed; True when it did."""
        txt = txt_record(summary)
        if self._zc is None or txt == self._txt:
            return False
        self._txt = txt
        self._info = self._make_info(txt)
        await trio.to_thread.run_sync(self._zc.update_service, self._info)
        return True

    async def follow(self, host: Any, settle: float = 0.3) -> None:
        """Update the record whenever the host's rooms change, until cancelled."""
        while True:
            await host.changed.wait()
            await trio.sleep(settle)  # let a burst of changes settle into one update
            await self.update(host.summary())

    async def close(self) -> None:
        """Unregister and stop (shielded: runs during Ctrl-C too)."""
        zc, self._zc = self._zc, None
        if zc is None:
            return
        with trio.CancelScope(shield=True), trio.move_on_after(3.0):
            def _stop() -> None:
                try:
                    zc.unregister_service(self._info)
                finally:
                    zc.close()

            await trio.to_thread.run_sync(_stop)
        log.info("unregistered %r", self.name)


async def check_alive(address: str, port: int, timeout: float = 1.5) -> bool:
    """Does a lanmatch host answer at `address:port`? (TLS, then its first
    frame is `host`, within `timeout`; nothing but a ClientHello is sent to
    it, as to any stranger)"""
    from lanmatch.net.tls import client_handshake
    from lanmatch.protocol import Decoder, RemoteProtocolError

    with trio.move_on_after(timeout):
        try:
            tcp = await trio.open_tcp_stream(address, port)
        except OSError:
            return False
        try:
            stream = await client_handshake(tcp, timeout)
        except (OSError, trio.BrokenResourceError, trio.TooSlowError):
            await trio.aclose_forcefully(tcp)
            return False
        async with stream:
            try:
                dec = Decoder()
                while True:
                    data = await stream.receive_some(65536)
                    if not data:
                        return False
                    dec.feed(data)
                    msg = dec.next_message()
                    if msg is not None:
                        return msg.get("type") == "host"
            except (OSError, trio.BrokenResourceError, RemoteProtocolError):
                return False
    return False


@dataclass
class HostSeen:
    name: str  # the mDNS instance name, e.g. "Kitchen._lanmatch._tcp.local."
    address: str
    port: int
    txt: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.name.removesuffix("." + SERVICE)


class Browser:
    """Browses `_lanmatch._tcp.local.`; `hosts` holds the live ones.

    `async with Browser(interfaces) as b:` then `await b.changed()` or
    `await b.first(timeout)`.
    """

    def __init__(self, interfaces: list[str] | None = None, *, recheck: float = 3.0):
        self.interfaces = interfaces
        self.recheck = recheck
        self.hosts: dict[str, HostSeen] = {}
        self._send, self._recv = trio.open_memory_channel[Any](256)
        self._event = trio.Event()
        self._zc: Any = None
        self._browser: Any = None
        self._nursery: trio.Nursery | None = None
        self._cm: Any = None

    async def __aenter__(self) -> Browser:
        self._cm = trio.open_nursery()
        self._nursery = await self._cm.__aenter__()
        try:
            await self._start()
        except BaseException:
            self._nursery.cancel_scope.cancel()
            await self._cm.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *exc: Any) -> bool:
        assert self._nursery is not None
        self._nursery.cancel_scope.cancel()
        zc, self._zc = self._zc, None
        with trio.CancelScope(shield=True), trio.move_on_after(3.0):
            def _stop() -> None:
                if self._browser is not None:
                    self._browser.cancel()
                zc.close()

            await trio.to_thread.run_sync(_stop)
        return await self._cm.__aexit__(*exc)

    async def _start(self) -> None:
        from zeroconf import DNSQuestionType, ServiceBrowser, ServiceStateChange

        token = trio.lowlevel.current_trio_token()
        self._zc = await trio.to_thread.run_sync(_zeroconf, self.interfaces)
        zc = self._zc
        send = self._send

        def handler(zeroconf: Any, service_type: str, name: str, state_change: Any) -> None:
            # zeroconf's thread: resolve here, then hand the result to trio
            try:
                if state_change is ServiceStateChange.Removed:
                    item: Any = ("gone", name)
                else:
                    _t = time.perf_counter()
                    info = zeroconf.get_service_info(service_type, name, timeout=3000, question_type=DNSQuestionType.QM)
                    log.debug("resolved %s in %.0f ms", name, (time.perf_counter() - _t) * 1000)
                    if info is None:
                        return
                    addrs = info.parsed_addresses()
                    if not addrs:
                        return
                    txt = {k.decode(errors="replace"): (v or b"").decode(errors="replace") for k, v in info.properties.items()}
                    item = ("seen", HostSeen(name, addrs[0], info.port, txt))
                    log.debug("mDNS %s %s: %s", state_change, name, txt)
                trio.from_thread.run_sync(send.send_nowait, item, trio_token=token)
            except (trio.RunFinishedError, trio.WouldBlock, trio.Cancelled):
                pass
            except Exception:  # zeroconf's thread must not die of our bug; say it loudly
                log.exception("mDNS handler failed")

        self._browser = await trio.to_thread.run_sync(
            lambda: ServiceBrowser(zc, SERVICE, handlers=[handler], question_type=DNSQuestionType.QM)
        )
        assert self._nursery is not None
        self._nursery.start_soon(self._collect)
        self._nursery.start_soon(self._rechecker)

    def _changed(self) -> None:
        self._event.set()
        self._event = trio.Event()

    async def changed(self) -> None:
        """Wait until the list of live hosts changes."""
        await self._event.wait()

    async def first(self, timeout: float, want: Any = None) -> HostSeen | None:
        """The first live host (for which `want(host)` holds), or None after `timeout`."""
        with trio.move_on_after(timeout):
            while True:
                for h in self.hosts.values():
                    if want is None or want(h):
                        return h
                await self.changed()
        return None

    async def _collect(self) -> None:
        assert self._nursery is not None
        latest: dict[str, int] = {}
        n = 0
        async for kind, item in self._recv:
            n += 1
            if kind == "gone":
                latest[item] = n
                if self.hosts.pop(item, None) is not None:
                    self._changed()
                continue
            latest[item.name] = n
            old = self.hosts.get(item.name)
            if old is not None and (old.address, old.port) == (item.address, item.port):
                self.hosts[item.name] = item  # a TXT update of a host known to be alive
                self._changed()
            else:
                self._nursery.start_soon(self._admit, item, n, latest)

    async def _admit(self, seen: HostSeen, n: int, latest: dict[str, int]) -> None:
        if seen.txt.get("proto") not in (None, *map(str, PROTOCOL_VERSIONS)):
            log.info("%s speaks protocol %s, not %d", seen.label, seen.txt.get("proto"), PROTOCOL_VERSION)
        if await check_alive(seen.address, seen.port) and latest.get(seen.name) == n:
            self.hosts[seen.name] = seen
            self._changed()

    async def _rechecker(self) -> None:
        while True:
            await trio.sleep(self.recheck)
            for name, h in list(self.hosts.items()):
                if not await check_alive(h.address, h.port):
                    log.info("%s at %s:%d does not answer: dropped", h.label, h.address, h.port)
                    if self.hosts.get(name) is h:
                        del self.hosts[name]
                        self._changed()
