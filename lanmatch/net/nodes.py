"""`lanmatch host` and `lanmatch bot`: the processes around Host and BotNode.

Both log to stderr. The host serves until Ctrl-C (or SIGTERM), then
unregisters from mDNS before it exits. It keeps its store (profiles, coins,
stats, every match) in `--data DIR` (default `default_data_dir()`), resumes
the matches left unfinished there when it starts (a crash, a kill, or Ctrl-C
during a game), and runs without one under `--no-store`. A bot node without
an address browses mDNS for a live host first.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
import time
from functools import partial
from typing import Any

import trio

from lanmatch.net.client import BotNode, parse_address
from lanmatch.net.discovery import Advertiser, Browser, local_addresses
from lanmatch.net.host import Host
from lanmatch.net.hostbook import HostBook
from lanmatch.net.profile import ensure_profile, profile_path
from lanmatch.net.tls import Identity, machine_identity, short_fingerprint
from lanmatch.protocol import DEFAULT_PORT
from lanmatch.store import Store, StoreError, default_data_dir
from lanmatch.table import RoomError
from lanmatch.table.tournament import MAX_ROOMS

log = logging.getLogger("lanmatch")

BROWSE_TIMEOUT = 10.0


def _logging(verbose: bool = False) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("zeroconf").setLevel(logging.WARNING)


async def _until_signal(scope: trio.CancelScope) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            log.info("%s: shutting down", signal.Signals(signum).name)
            scope.cancel()
            return


def open_store(args: Any) -> Store | None:
    """The host's store (`--data DIR`, default `default_data_dir()`), locked for
    this process, checked (problems are logged); None under `--no-store`.

    Raises:
        StoreError: a store from a newer lanmatch, not a store, held by another host, unreadable.
    """
    if getattr(args, "no_store", False):
        return None
    data = getattr(args, "data", None) or default_data_dir()
    store = Store.open_dir(data, lock=True)
    store.practice_ratings = not getattr(args, "no_practice_ratings", False)
    log.info("store: %s", store.path)
    try:
        problems = store.check()
    except Exception:
        store.close()
        raise
    for problem in problems:
        log.warning("store: %s", problem)
    return store


async def host_main(args: Any, *, task_status=trio.TASK_STATUS_IGNORED) -> int:
    """Run a host node until a signal (or cancellation). Returns the exit status:
    2 when it cannot listen (said in one line, before anything is made), 1 when
    its store cannot be used."""
    port = DEFAULT_PORT if args.port is None else args.port
    where = f"{args.bind or '*'}:{port}"
    try:
        try:
            listeners = await trio.open_tcp_listeners(port, host=args.bind)
        except OSError:
            if args.port is not None:
                raise
            # the default port is taken (another host here): any free one, said on the next lines
            listeners = await trio.open_tcp_listeners(0, host=args.bind)
            log.info("port %d is taken: serving on another one", DEFAULT_PORT)
    except OSError as e:  # the port is taken, or the address is not this machine's
        print(f"lanmatch host: cannot listen on {where}: {e.strerror or e}", file=sys.stderr)
        return 2
    try:
        store = open_store(args)
    except (StoreError, OSError) as e:
        for listener in listeners:
            await listener.aclose()
        if isinstance(e, StoreError):
            print(f"lanmatch host: {e}", file=sys.stderr)
        else:  # the data directory cannot be made
            print(f"lanmatch host: cannot use the data directory {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 1
    try:
        identity = open_identity(args)
    except (OSError, ValueError) as e:
        for listener in listeners:
            await listener.aclose()
        if store is not None:
            store.close()
        print(f"lanmatch host: cannot keep the host's TLS key: {e}", file=sys.stderr)
        return 1
    try:
        return await _serve(args, store, task_status, listeners, identity)
    finally:
        if store is not None:
            store.close()


def open_identity(args: Any) -> Identity:
    """The host's TLS key and certificate, kept in its data directory (`--data
    DIR`, default `default_data_dir()`, with or without a store: friends pin
    it), made at the first start.

    Raises:
        OSError, ValueError: the files cannot be made or read (`Identity.load_or_make`).
    """
    data = getattr(args, "data", None) or default_data_dir()
    t0 = time.perf_counter()
    identity, made = machine_identity(getattr(args, "name", None) or socket.gethostname(), data)
    if made:
        log.info("made the host's TLS key and certificate in %s (%.0f ms)", data, (time.perf_counter() - t0) * 1000)
    return identity


async def _serve(args: Any, store: Store | None, task_status: Any, listeners: list, identity: Identity) -> int:
    name = args.name or socket.gethostname()
    limits = {} if getattr(args, "new_profiles", None) is None else {"new_profiles": max(0, args.new_profiles)}
    for flag in ("max_connections", "max_per_address"):  # docs/protocol.md section 14, "Connections and frames"
        if getattr(args, flag, None) is not None:
            limits[flag] = max(1, getattr(args, flag))
    host = Host(name, bot_delay=getattr(args, "bot_delay", 0.0) or 0.0, store=store, tls=identity, **limits)
    adv: Advertiser | None = None
    code = 0  # (a `return` inside the cancelled scope would be lost with its value)
    with trio.CancelScope() as scope:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_until_signal, scope)
            await nursery.start(host.run)
            port = await nursery.start(partial(host.listen, listeners=listeners))
            log.info("host %r listening on %s:%d", name, args.bind or "*", port)
            print(f"listening {args.bind or '0.0.0.0'}:{port}", flush=True)
            print(f"fingerprint {short_fingerprint(identity.fingerprint)} (friends' lobbies show the same: "
                  "compare them)", flush=True)
            addresses = [args.bind] if args.bind else local_addresses()
            print("join from another machine: " + ", ".join(
                f"lanmatch join {a}" + ("" if port == DEFAULT_PORT else f":{port}") for a in addresses), flush=True)
            if args.room and args.room in host.rooms:
                log.info("--room %s: resumed from the store (its stored settings hold)", args.room)
            elif args.room:
                tournament = getattr(args, "tournament", None)
                count = getattr(args, "tournament_rooms", 1) if tournament else 1
                names = [args.room] + [f"{args.room}-{k}" for k in range(2, count + 1)]
                try:
                    if not 1 <= count <= MAX_ROOMS:
                        raise RoomError("bad_room", f"--tournament-rooms is 1 to {MAX_ROOMS}, not {count}")
                    for room in names:
                        host.create_room(
                            room,
                            game=args.game,
                            table=args.table,
                            seats=args.seats,
                            clock=args.clock,
                            bot_level=args.bots,
                            auto_start=True,
                            start_after=args.start_after,
                            rematch_after=getattr(args, "rematch_after", None) or 2.0,
                            stake=getattr(args, "stake", 0) or 0,
                        )
                    if tournament is not None:
                        host.lobby.create_tournament(args.room, tournament, names)
                        log.info("tournament %s: %d matches over %s", args.room, tournament, ", ".join(names))
                except RoomError as e:
                    print(f"lanmatch host: --room: {e.reason}", file=sys.stderr)
                    code = 2
                    scope.cancel()
            if code == 0 and not args.no_mdns:
                adv = Advertiser(name, port, bind=args.bind)
                try:
                    registered = await adv.start(host.summary())
                except (OSError, RuntimeError) as e:
                    log.warning("mDNS advertising failed (%s); HOST:PORT still works", e)
                    adv = None
                else:
                    print(f"advertised {registered}", flush=True)
                    nursery.start_soon(adv.follow, host)
            if code == 0:
                task_status.started(port)
    if adv is not None:
        await adv.close()
    return code


async def bot_main(args: Any) -> int:
    if args.address:
        try:
            address = parse_address(args.address)
        except ValueError as e:
            print(f"lanmatch bot: {e}", file=sys.stderr)
            return 2
    else:
        interfaces = [args.bind] if getattr(args, "bind", None) else None
        async with Browser(interfaces) as browser:
            found = await browser.first(
                args.browse_timeout,
                want=lambda h: args.room is not None or h.txt.get("free", "0") != "0",
            )
        if found is None:
            print(f"lanmatch bot: no live lanmatch host found over mDNS within {args.browse_timeout:g} s", file=sys.stderr)
            return 1
        log.info("found host %s at %s:%d", found.label, found.address, found.port)
        address = (found.address, found.port)
    retry = None if args.stay and args.retry_for is None else (args.retry_for or 60.0)
    profile = None
    if getattr(args, "profile", None):
        if any(c in args.profile for c in "/\\\0") or args.profile.startswith("."):
            print(f"lanmatch bot: {args.profile!r} cannot name a profile file", file=sys.stderr)
            return 2
        try:
            me = ensure_profile(args.profile, profile_path().with_name(f"bot-{args.profile}.json"))
        except StoreError as e:
            print(f"lanmatch bot: {e}", file=sys.stderr)
            return 2
        profile = {"name": me.name, "key": me.key}
    node = BotNode(args.level, room=args.room, stay=args.stay, name=args.name or args.profile, retry_for=retry,
                   profile=profile, hosts=HostBook())
    if not args.address:
        node.expect_fingerprint = found.txt.get("fp") or None  # the advert names the certificate
    code = await node.run(address)
    log.info("bot node done (%d matches, %d actions): exit %d", node.matches, node.actions, code)
    return code


def run_host(args: Any) -> int:
    _logging(getattr(args, "verbose", False))
    return trio.run(host_main, args)


def run_bot(args: Any) -> int:
    _logging(getattr(args, "verbose", False))
    try:
        return trio.run(bot_main, args)
    except KeyboardInterrupt:
        return 130


__all__ = ["bot_main", "host_main", "open_store", "run_bot", "run_host"]
