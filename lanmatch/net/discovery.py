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
  and hands it to trio. At its start it also takes a quick look: a legacy
  unicast PTR query (RFC 6762 section 6.7, from an ephemeral port, a fresh id
  each time, sent at 0, 0.15 and 0.4 s) on each interface, whose answers come
  straight back to that socket with every record (`answers_of`): a host is
  listed about 0.1 s after browsing starts, where ServiceBrowser's first
  multicast answer is mostly not received and its next query waits 1 s. mDNS is only a hint: a host killed with -9 is never
  withdrawn, so every host found is checked over TCP (`check_alive`: a
  `hello` answered by `welcome`) before it is listed, and listed hosts are
  checked again every `recheck` seconds; the dead are dropped.

Several interfaces (docs/protocol.md section 9). A host bound to one address
advertises that address only. A host bound to every address advertises
`local_addresses()`: every IPv4 address of this machine but loopback and the
container and VM bridges (`CONTAINER_IFACES`: docker*, br-*, veth*, virbr*,
lxcbr*, lxdbr*, cni*, podman*), link-local (169.254/16) ones last; its
zeroconf answers on those interfaces only. While it runs, `follow` polls
`local_addresses()` every `ADDRESS_POLL` (2 s); when the set changes (a Wi-Fi
roam, a cable plugged in) the advert is moved to the new set, at most once per
`READVERTISE_DAMP` (5 s), so a flapping link costs the network one
re-announcement per 5 s, not one per flap: a fresh zeroconf on the new
interfaces announces the same instance name (no probing, the name is ours),
then the old one is closed without a goodbye (a goodbye would withdraw the
name from every browser; the new announcement's cache-flush bit replaces the
old addresses instead). A peer tries the advertised addresses in turn
(`ordered`: those on one of its own subnets first) and lists the host at the
first that answers (`HostSeen.address`; all of them in `HostSeen.addresses`).

The instance name is the host's name made safe for DNS (`instance_label`):
control characters dropped, empty dot-separated parts dropped (a dot inside a
name is kept: "Kitchen.v2"), cut to 60 bytes of UTF-8 so that zeroconf's
renaming ("-2") still fits a DNS label.

Tests and benchmarks pass `interfaces=["127.0.0.1"]` (or an address inside
their own network namespace); the default (every interface) is for real use.
"""

from __future__ import annotations

import contextlib
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


CONTAINER_IFACES = ("docker", "br-", "veth", "virbr", "lxcbr", "lxdbr", "cni", "podman")
ADDRESS_POLL = 2.0  # seconds between two looks at this machine's addresses
READVERTISE_DAMP = 5.0  # at most one re-announcement of new addresses per this many seconds
QUICK_LOOK = 1.0  # seconds a browser listens to the answers of its legacy unicast queries
LABEL_BYTES = 60  # a DNS label holds 63 bytes: room for zeroconf's "-2" .. "-99"


def serving_addresses(interfaces: Any) -> list[str]:
    """The IPv4 addresses a host bound to every address advertises, from
    `(interface name, address)` pairs: not loopback, not on a container or VM
    bridge (`CONTAINER_IFACES`), link-local ones last, each once;
    `["127.0.0.1"]` if none is left."""
    out: list[str] = []
    for ifname, ip in interfaces:
        if not isinstance(ip, str) or ip.startswith("127.") or ip in out:
            continue
        if ifname == "lo" or ifname.startswith(CONTAINER_IFACES):
            continue
        out.append(ip)
    out.sort(key=lambda a: a.startswith("169.254."))  # stable: the rest keep the system's order
    return out or ["127.0.0.1"]


def _interface_addresses() -> list[tuple[str, str, int]]:
    """(interface name, IPv4 address, prefix length) of every interface here."""
    import ifaddr

    return [(a.name, ip.ip, ip.network_prefix) for a in ifaddr.get_adapters() for ip in a.ips
            if isinstance(ip.ip, str)]


def local_addresses() -> list[str]:
    """The IPv4 addresses this machine's host advertises when it is bound to
    every address (`serving_addresses` of its interfaces)."""
    return serving_addresses((name, ip) for name, ip, _ in _interface_addresses())


def ordered(addresses: list[str], mine: list[tuple[str, int]] | None = None) -> list[str]:
    """`addresses` in the order a peer tries them: those inside one of its own
    networks (`mine`: (address, prefix length); default this machine's) first,
    the rest in the advertised order."""
    import ipaddress

    if mine is None:
        mine = [(ip, prefix) for _, ip, prefix in _interface_addresses()]
    nets = []
    for ip, prefix in mine:
        try:
            nets.append(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))
        except ValueError:
            continue

    def near(a: str) -> bool:
        try:
            addr = ipaddress.ip_address(a)
        except ValueError:
            return False
        return any(addr in n for n in nets)

    return sorted(dict.fromkeys(addresses), key=lambda a: not near(a))


def instance_label(name: str) -> str:
    """The host's name as an mDNS instance label (see the module docstring)."""
    clean = "".join(c for c in name if c.isprintable())
    clean = ".".join(part.strip() for part in clean.split(".") if part.strip())
    raw = clean.encode()
    if len(raw) > LABEL_BYTES:
        clean = raw[:LABEL_BYTES].decode(errors="ignore").rstrip(". ")
    return clean or "lanmatch host"


async def reach(addresses: list[str], port: int, timeout: float = 1.5) -> str | None:
    """The first of `addresses` (tried in `ordered` order) where a lanmatch
    host answers on `port`, or None."""
    for address in ordered(addresses):
        if await check_alive(address, port, timeout):
            return address
    return None


def _zeroconf(interfaces: list[str] | None):
    from zeroconf import InterfaceChoice, IPVersion, Zeroconf

    return Zeroconf(
        interfaces=interfaces if interfaces else InterfaceChoice.All,
        ip_version=IPVersion.V4Only,
        use_asyncio=False,
    )


class Advertiser:
    """Registers a host over mDNS, keeps its TXT record up to date and its
    addresses in step with this machine's (see the module docstring)."""

    def __init__(self, name: str, port: int, *, bind: str | None = None, rng: Any = None,
                 poll: float = ADDRESS_POLL, damp: float = READVERTISE_DAMP):
        self.wanted = instance_label(name)
        self.name: str | None = None  # the instance name registered (after a clash: renamed)
        self.port = port
        self.bound = bind if bind and bind not in ("0.0.0.0", "") else None
        self.addresses = [self.bound] if self.bound else local_addresses()
        self.poll = poll
        self.damp = damp
        self.readvertised = 0  # how many times the addresses moved (`move`)
        rng = rng or random.SystemRandom()
        self.server = f"lanmatch-{rng.getrandbits(32):08x}.local."
        self._zc: Any = None
        self._info: Any = None
        self._txt: dict[str, str] | None = None
        self._lock = trio.Lock()  # one zeroconf call at a time (updates, moves, close)

    @property
    def interfaces(self) -> list[str]:
        """Where zeroconf listens and answers: the advertised addresses."""
        return list(self.addresses)

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
        async with self._lock:
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
        async with self._lock:
            if self._zc is None or txt == self._txt:
                return False
            self._txt = txt
            self._info = self._make_info(txt)
            await trio.to_thread.run_sync(self._zc.update_service, self._info)
        return True

    async def follow(self, host: Any, settle: float = 0.3) -> None:
        """Update the record whenever the host's rooms change, and (a host bound
        to every address) move it when this machine's addresses change, until
        cancelled."""
        async with trio.open_nursery() as nursery:
            if self.bound is None:
                nursery.start_soon(self.follow_addresses)
            while True:
                await host.changed.wait()
                await trio.sleep(settle)  # let a burst of changes settle into one update
                await self.update(host.summary())

    async def follow_addresses(self, addresses: Any = None) -> None:
        """Every `poll` seconds compare `addresses()` (default `local_addresses`)
        with the advertised ones; move the advert when they differ, at most once
        per `damp` seconds (the start counts as a move)."""
        addresses = addresses or local_addresses
        last = trio.current_time()
        while True:
            await trio.sleep(self.poll)
            now = addresses()
            if set(now) == set(self.addresses):
                continue
            wait = last + self.damp - trio.current_time()
            if wait > 0:  # damped: look again when the next move is allowed
                await trio.sleep(wait)
                now = addresses()
                if set(now) == set(self.addresses):
                    continue
            try:
                await self.move(now)
            except (OSError, RuntimeError) as e:  # an interface gone again mid-move: the next poll retries
                log.warning("mDNS: cannot advertise on %s (%r); trying again", ",".join(now), e)
            last = trio.current_time()

    async def move(self, addresses: list[str]) -> None:
        """Advertise on `addresses` from now on, under the same instance name."""
        async with self._lock:
            if self._zc is None or self.name is None:  # not advertised (yet, or any more)
                self.addresses = list(addresses)
                self.readvertised += 1
                return
            old_zc, old_info, old_addresses = self._zc, self._info, self.addresses
            self.addresses = list(addresses)
            try:
                new_zc = await trio.to_thread.run_sync(_zeroconf, self.interfaces)
            except BaseException:
                self.addresses = old_addresses
                raise
            info = self._make_info(self._txt or {})
            try:
                # the name is ours already: announce at once, no probing (cache-flush replaces the old addresses)
                await trio.to_thread.run_sync(lambda: new_zc.register_service(info, cooperating_responders=True))
            except BaseException:
                self.addresses = old_addresses
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(new_zc.close)
                raise
            self._zc, self._info = new_zc, info
            self.readvertised += 1
            with trio.CancelScope(shield=True), trio.move_on_after(3.0):
                if not await trio.to_thread.run_sync(_close_quietly, old_zc, old_info):
                    await trio.to_thread.run_sync(new_zc.update_service, info)  # after the old one's goodbye
        log.info("addresses changed: %r now advertised on %s (was %s)", self.name, ",".join(self.addresses),
                 ",".join(old_addresses))

    async def close(self) -> None:
        """Unregister and stop (shielded: runs during Ctrl-C too)."""
        with trio.CancelScope(shield=True), trio.move_on_after(3.0):
            async with self._lock:
                zc, self._zc = self._zc, None
                if zc is None:
                    return

                def _stop() -> None:
                    try:
                        zc.unregister_service(self._info)
                    finally:
                        zc.close()

                await trio.to_thread.run_sync(_stop)
        log.info("unregistered %r", self.name)


def _close_quietly(zc: Any, info: Any) -> bool:
    """Close a zeroconf without its goodbye for `info` (another zeroconf of
    this process now answers for that name)."""
    import asyncio

    async def _forget() -> None:
        zc.registry.async_remove(info)

    quiet = True
    try:
        asyncio.run_coroutine_threadsafe(_forget(), zc.loop).result(1.0)
    except Exception as e:  # then close() says goodbye: the caller announces again after it
        log.debug("could not drop %s quietly: %r", info.name, e)
        quiet = False
    zc.close()
    return quiet


def answers_of(packet: bytes) -> list[HostSeen]:
    """The lanmatch hosts fully described (SRV, TXT, A) in one mDNS answer."""
    from zeroconf import DNSAddress, DNSIncoming, DNSPointer, DNSService, DNSText

    try:
        msg = DNSIncoming(packet)
        if not msg.is_response() or not msg.valid:
            return []
        records = msg.answers()
    except Exception:  # noqa: BLE001 -- a stranger's packet: nothing in it for us
        return []
    names = [r.alias for r in records if isinstance(r, DNSPointer) and r.name.lower() == SERVICE.lower()]
    srv = {r.name.lower(): r for r in records if isinstance(r, DNSService)}
    txt = {r.name.lower(): r for r in records if isinstance(r, DNSText)}
    ips: dict[str, list[str]] = {}
    for r in records:
        if isinstance(r, DNSAddress) and len(r.address) == 4:
            ips.setdefault(r.name.lower(), []).append(socket.inet_ntoa(r.address))
    out = []
    for name in names:
        s, t = srv.get(name.lower()), txt.get(name.lower())
        addrs = ips.get(s.server.lower(), []) if s is not None else []
        if s is None or t is None or not addrs:
            continue  # the ServiceBrowser resolves it
        addrs = ordered(addrs)
        out.append(HostSeen(name, addrs[0], s.port, _txt_of(t.text), addrs))
    return out


def _txt_of(text: bytes) -> dict[str, str]:
    """A TXT record's `key=value` strings (each length-prefixed)."""
    out: dict[str, str] = {}
    i = 0
    while i < len(text):
        n = text[i]
        item = text[i + 1:i + 1 + n]
        i += 1 + n
        key, _, value = item.partition(b"=")
        if key:
            out.setdefault(key.decode(errors="replace"), value.decode(errors="replace"))
    return out


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
    address: str  # where it answered (the first of `addresses` that did), or the first advertised
    port: int
    txt: dict[str, str] = field(default_factory=dict)
    addresses: list[str] = field(default_factory=list)  # every advertised address, in the order tried

    def __post_init__(self) -> None:
        if not self.addresses:
            self.addresses = [self.address]

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
        from zeroconf import DNSQuestionType, IPVersion, ServiceBrowser, ServiceStateChange

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
                    addrs = info.parsed_addresses(IPVersion.V4Only)
                    if not addrs:
                        return
                    txt = {k.decode(errors="replace"): (v or b"").decode(errors="replace") for k, v in info.properties.items()}
                    addrs = ordered(addrs)
                    item = ("seen", HostSeen(name, addrs[0], info.port, txt, addrs))
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
        self._nursery.start_soon(self._quick_look)

    async def _quick_look(self) -> None:
        """Ask once more at the start, as a legacy unicast query (RFC 6762
        section 6.7: from an ephemeral port, a fresh id each time): the
        hosts answer straight to this socket, at once and with every record
        (PTR, SRV, TXT, A). ServiceBrowser's first multicast answer often
        does not arrive, and its next query goes out 1 s later."""
        addrs = self.interfaces or [ip for _, ip, _ in _interface_addresses()] or ["127.0.0.1"]
        socks = []
        try:
            for addr in addrs:
                sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
                socks.append(sock)
                try:
                    await sock.bind((addr, 0))
                    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(addr))
                    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
                except OSError as e:
                    log.debug("quick look on %s: %r", addr, e)
                    sock.close()
                    socks.pop()
            async with trio.open_nursery() as nursery:
                for sock in socks:
                    nursery.start_soon(self._ask, sock)
                    nursery.start_soon(self._hear, sock)
                await trio.sleep(QUICK_LOOK)
                nursery.cancel_scope.cancel()
        finally:
            for sock in socks:
                sock.close()

    async def _ask(self, sock: Any) -> None:
        from zeroconf import DNSOutgoing, DNSQuestion
        from zeroconf.const import _CLASS_IN, _FLAGS_QR_QUERY, _TYPE_PTR

        for wait in (0.15, 0.25, 0.5):  # a lost query or answer is asked again
            out = DNSOutgoing(_FLAGS_QR_QUERY, multicast=False, id_=random.getrandbits(16))
            out.add_question(DNSQuestion(SERVICE, _TYPE_PTR, _CLASS_IN))
            try:
                await sock.sendto(out.packets()[0], ("224.0.0.251", 5353))
            except OSError as e:
                log.debug("quick look: %r", e)
                return
            await trio.sleep(wait)

    async def _hear(self, sock: Any) -> None:
        while True:
            try:
                data, _ = await sock.recvfrom(9000)
            except OSError:
                return
            for seen in answers_of(data):
                with contextlib.suppress(trio.WouldBlock):
                    self._send.send_nowait(("seen", seen))

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
            if old is not None and (old.addresses, old.port) == (item.addresses, item.port):
                item.address = old.address
                self.hosts[item.name] = item  # a TXT update of a host known to be alive
                self._changed()
            else:
                self._nursery.start_soon(self._admit, item, n, latest)

    async def _admit(self, seen: HostSeen, n: int, latest: dict[str, int]) -> None:
        if seen.txt.get("proto") not in (None, *map(str, PROTOCOL_VERSIONS)):
            log.info("%s speaks protocol %s, not %d", seen.label, seen.txt.get("proto"), PROTOCOL_VERSION)
        address = await reach(seen.addresses, seen.port)
        if address is not None and latest.get(seen.name) == n:
            seen.address = address
            self.hosts[seen.name] = seen
            self._changed()

    async def _rechecker(self) -> None:
        while True:
            await trio.sleep(self.recheck)
            for name, h in list(self.hosts.items()):
                await self._refresh(name, h)
                if await check_alive(h.address, h.port):
                    continue
                # its address stopped answering (a roam?): another advertised one may
                others = [a for a in h.addresses if a != h.address]
                address = await reach(others, h.port) if others else None
                if self.hosts.get(name) is not h:
                    continue
                if address is not None:
                    log.info("%s: %s:%d does not answer, %s does", h.label, h.address, h.port, address)
                    h.address = address
                else:
                    log.info("%s at %s:%d does not answer: dropped", h.label, h.address, h.port)
                    del self.hosts[name]
                self._changed()

    async def _refresh(self, name: str, h: HostSeen) -> None:
        """Read a listed host's addresses again (zeroconf's cache keeps an address
        replaced by a newer announcement for one more second, and says nothing
        when it expires)."""
        from zeroconf import DNSQuestionType, IPVersion

        zc = self._zc
        if zc is None:
            return
        info = await trio.to_thread.run_sync(
            lambda: zc.get_service_info(SERVICE, name, timeout=500, question_type=DNSQuestionType.QM))
        if info is None or info.port != h.port:
            return
        addrs = ordered(info.parsed_addresses(IPVersion.V4Only))
        if addrs and addrs != h.addresses and self.hosts.get(name) is h:
            h.addresses = addrs
            if h.address not in addrs:
                h.address = addrs[0]  # checked at once by the caller
            self._changed()
