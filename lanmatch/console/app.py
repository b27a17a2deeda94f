"""The full-screen console: prompt_toolkit on asyncio, trio as its guest.

How this works. A `Session` owns three things that never reach into each
other directly:

- the **model** (`model.Console`, pure): what is shown and what keys do;
- the **Application** (prompt_toolkit): one window that draws
  `screen.render_screen(model, ...)`, redrawn four times a second for the
  clocks, and key bindings (`create_key_bindings`: every named key of the
  key map, `keymap.named_keys()`, and every printable character) that only
  call `model.press(key)` and hand the intents it returns to trio;
- the **network** (trio, run as a guest on prompt_toolkit's asyncio loop,
  RECIPES "prompt_toolkit + trio"): a `ConsoleClient` (a `Client`) whose
  messages update the model and call `app.invalidate()`, and, for `lanmatch
  play`, the `Host` itself, in-process; for `lanmatch join`, the mDNS
  `Browser`. `lanmatch join`'s client brings the player's profile
  (`join_profile`) in every `hello`; quick play brings none (practice only).

`lanmatch join` keeps the token of a seat at a running game on the player's
machine (`lanmatch.net.seats.SeatBook`, written as views arrive, forgotten
when the game ends, the room is left or the host no longer knows the token)
and, started again, says hello with it: back at the seat. A dropped connection is tried again for
`Session.reconnect_for` seconds (the title bar counts them down), then the
console says the host is gone and offers the lobby or more waiting; a host
that says `bye` is told in one line, and the lobby comes back.

Everything runs on one thread. A key handler never calls trio: it posts the
intent with `token.run_sync_soon(channel.send_nowait, intent)` and a trio task
sends it. When the app exits, trio is cancelled through its token and awaited;
when trio ends first, the app exits.

No traceback reaches the screen: an unexpected error is appended to the log
file (`quick.log_path()`), the console closes and one line names that file.
Library logs (the in-process host's warnings) go to the same file, never to
the terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import hashlib
import logging
import os
import re
import socket
import sys
import time
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from lanmatch.console import keymap
from lanmatch.console.bell import BEL, notify_escape
from lanmatch.console.logfile import log_path, write_log
from lanmatch.console.model import RECONNECT_FOR, Console, HostRow, Intent, with_known_hosts
from lanmatch.console.screen import render_screen
from lanmatch.net.client import Client, NotLanmatch, not_welcomed, parse_address, reach_error, where
from lanmatch.net.hostbook import HostBook
from lanmatch.net.seats import SavedSeat, SeatBook
from lanmatch.net.tls import Identity, machine_identity, short_fingerprint
from lanmatch.table import AUTOPILOT_PACE, SEAT_HOLD

log = logging.getLogger("lanmatch.console")

REFRESH = 0.25  # seconds between redraws (the clocks count down)
RELIST = 2.0  # seconds between room lists on the rooms screen

STYLE_RULES = {
    "title": "reverse bold",
    "sel": "reverse bold",
    "num": "fg:ansibrightblack",
    "dim": "fg:ansibrightblack",
    "rule": "fg:ansibrightblack",
    "turn": "bold",
    "warn": "bold fg:ansiyellow",
    "prompt": "bold",
    "keys": "fg:ansicyan",
    "msg": "fg:ansiyellow",
    "box": "bold",
    "field": "underline",
}


def player_name(given: str | None) -> str:
    """The name shown at the table: `--name`, else the login name (1-32 printable characters)."""
    name = given
    if not name:
        try:
            name = getpass.getuser()
        except (KeyError, OSError):
            name = ""
    name = "".join(ch for ch in (name or "") if ch.isprintable()).strip()[:32]
    return name or "Player"


def profile_file_for(name: str) -> Path:
    """Where the profile of a name other than the saved one's is kept:
    `$XDG_CONFIG_HOME/lanmatch/profiles/<name>-<hash>.json`."""
    from lanmatch.net.profile import config_dir

    folded = " ".join(name.split()).casefold()
    slug = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")[:24] or "profile"
    return config_dir() / "profiles" / f"{slug}-{hashlib.sha256(folded.encode()).hexdigest()[:8]}.json"


def join_profile(given: str | None) -> tuple[dict[str, str] | None, str, str]:
    """The profile `lanmatch join` brings in `hello`: `(profile, name at the table, note)`.

    Without `--name`: the saved profile (`$XDG_CONFIG_HOME/lanmatch/profile.json`),
    made on first use with the login name. With `--name NAME`: that file when
    it is NAME's (or does not exist yet), else NAME's own file beside it
    (`profile_file_for`), made on first use: so `--name` picks another profile,
    and the saved one is never overwritten. The table shows the profile's name.
    Without a profile (`None`) the note says why, in a few words (the console
    then plays practice rooms only).
    """
    from lanmatch.net.profile import BadName, StoreError, ensure_profile, load_profile

    name = player_name(given)
    try:
        if given is None:
            me = ensure_profile(name)
        else:
            saved = load_profile()
            path = None
            if saved is not None and saved.name.casefold() != " ".join(name.split()).casefold():
                path = profile_file_for(name)
            me = ensure_profile(name, path)
    except BadName:
        return None, name, "your name is not 1-24 characters: try --name"
    except StoreError as e:  # the profile file cannot be read or written
        log.warning("no profile: %s", e)
        return None, name, f"the profile file failed ({e})"
    return {"name": me.name, "key": me.key}, me.name, ""


# ------------------------------------------------------------------ the Application


def create_key_bindings(ui: Console, dispatch: Callable[[list[Intent]], None]):
    """Every key of the key map goes to `ui.press` (its named keys one by one,
    printable characters through `Keys.Any`); its intents go to `dispatch`."""
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.keys import Keys

    kb = KeyBindings()

    def press(key: str) -> None:
        try:
            intents = ui.press(key)
        except Exception:  # our bug: logged, one line on screen, the console goes on
            log.exception("key %r failed", key)
            ui.say(f"That key failed (a bug, logged in {log_path()}).")
            intents = []
        dispatch(intents)

    def bind(key: str, name: str) -> None:
        @kb.add(key)
        def _(event) -> None:
            press(name)

    for key in keymap.named_keys():
        bind(key, key)

    @kb.add(Keys.Any)
    def _any(event) -> None:
        data = event.data
        if len(data) == 1 and data.isprintable():
            press(data)

    return kb


def build_app(ui: Console, dispatch: Callable[[list[Intent]], None], *, clock: Callable[[], float] = time.monotonic):
    """The Application: one window drawing `render_screen(ui)` at the terminal's size."""
    from prompt_toolkit.application import Application, get_app
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl
    from prompt_toolkit.output import ColorDepth
    from prompt_toolkit.styles import Style

    failed: list[bool] = []

    def text():
        size = get_app().output.get_size()
        try:
            lines = render_screen(ui, clock(), size.columns, size.rows)
        except Exception:  # a bug of ours in drawing: logged once, never on screen as a traceback
            if not failed:
                failed.append(True)
                log.exception("drawing the screen failed")
            return [("", f"The screen could not be drawn (a bug, logged in {log_path()}). Press q to leave.")]
        out: list[tuple[str, str]] = []
        for k, line in enumerate(lines):
            if k:
                out.append(("", "\n"))
            out.extend(line)
        return out

    window = Window(FormattedTextControl(text, show_cursor=False), wrap_lines=False)
    app: Any = Application(
        layout=Layout(window),
        key_bindings=create_key_bindings(ui, dispatch),
        style=Style.from_dict(STYLE_RULES),
        full_screen=True,
        color_depth=ColorDepth.from_env,  # NO_COLOR: no colors at all (bold and reverse stay)
        refresh_interval=REFRESH,
        mouse_support=False,
    )
    app.ttimeoutlen = 0.1  # Esc alone is told from an escape sequence after this long
    return app


# ------------------------------------------------------------------ the network side


class ConsoleClient(Client):
    """A `Client` whose messages go into the model; hooks let quick play join and start.

    `saved`: the seat kept on this machine for this host, whose token it says
    hello with (not to a host of another name: protocol 2 tells the name first)."""

    def __init__(self, session: Session, name: str, *, address: tuple[str, int], saved: SavedSeat | None = None,
                 **kw: Any):
        super().__init__(name, token=saved.token if saved is not None else None, **kw)
        self.session = session
        self.address = address
        self.saved = saved
        self.host_name = saved.host if saved is not None else ""
        self.hooks: list[Callable[[ConsoleClient, dict[str, Any]], None]] = []
        self.ever_welcomed = False

    def on_message(self, msg: dict[str, Any]) -> None:
        typ = msg["type"]
        if typ == "host":
            self.session.ui.host_key = short_fingerprint(self.fingerprint) if self.fingerprint else ""
        if typ == "host" and self.saved is not None and self.saved.host and msg["name"] != self.saved.host:
            self.token, self.saved = None, None  # another host at this address: its token is not for it
            self.session.ui.returning = None
        self.session.ui.on_message(msg, time.monotonic())
        self.session.ring()
        sends, self.session.ui.sends = self.session.ui.sends, []
        for intent in sends:
            self.session._do(intent)
        if typ == "welcome":
            self.ever_welcomed = True
            self.host_name = msg["host"]
        self.session.keep_seat(self, msg)
        for hook in self.hooks:
            hook(self, msg)
        self.session.invalidate()


class _BalanceProbe(Client):
    """A connection that only asks for the profile's coins: it closes at `welcome`."""

    def on_message(self, msg: dict[str, Any]) -> None:
        if msg["type"] == "welcome":
            self.close()


class Session:
    """The model, the Application and the trio side, wired together (see the module docstring)."""

    def __init__(self, ui: Console, net: Callable[[Session, trio.Nursery], Awaitable[None]]):
        self.ui = ui
        self.net = net
        self.app = build_app(ui, self.dispatch)
        self.token: trio.lowlevel.TrioToken | None = None
        self.scope: trio.CancelScope | None = None
        self.nursery: trio.Nursery | None = None
        self._intents: trio.MemorySendChannel | None = None
        self.client: ConsoleClient | None = None
        self._client_scope: trio.CancelScope | None = None
        self.host: Any = None  # quick play: the in-process Host
        self.port: int | None = None
        self.quitting = False
        self.goodbye = "Bye!"
        self.exit_code = 0
        self.hooks: list[Callable[[ConsoleClient, dict[str, Any]], None]] = []
        self.profile: dict[str, str] | None = None  # `lanmatch join`: brought in every hello
        self.seats: SeatBook | None = None  # `lanmatch join`: where seat tokens are kept (quick play keeps none)
        self.hosts: HostBook | None = None  # `lanmatch join`: the known hosts and their pins
        self.trusted: tuple[tuple[str, int], str] | None = None  # quick play: its own host's address and fingerprint
        self.found: list[HostRow] = []  # the hosts mDNS found (checked)
        self.known_alive: dict[str, bool | None] = {}  # the known hosts' last TCP check, by name
        self.reconnect_for = RECONNECT_FOR  # seconds of failed reconnects before the host is said gone
        self._keep_waiting: trio.Event | None = None
        self.quiet = False  # `--quiet`: no turn bell
        self.env: dict[str, str] = dict(os.environ)  # the terminal's (which notification escape: bell.py)

    def ring(self) -> None:
        """Ring the bells the model noted (one per message at most): BEL, and
        the terminal's desktop notification where it has one (`bell.py`);
        nothing with `--quiet`."""
        bells, self.ui.bells = self.ui.bells, []
        if self.quiet or not bells:
            return
        title, body = bells[-1]
        try:
            out = self.app.output
            out.write_raw(BEL + notify_escape(title, body, self.env))
            out.flush()
        except Exception:  # a terminal that cannot take it: never the game's problem
            log.warning("the turn bell failed", exc_info=True)

    # -- the UI side (asyncio)

    def dispatch(self, intents: list[Intent]) -> None:
        """Called by key handlers: quit here, everything else to trio."""
        for intent in intents:
            if intent[0] == "quit":
                self.quit()
            elif self.token is not None:
                with contextlib.suppress(trio.RunFinishedError):
                    self.token.run_sync_soon(self._post, intent)
        self.invalidate()

    def _post(self, intent: Intent) -> None:
        if self._intents is not None:
            with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
                self._intents.send_nowait(intent)

    def quit(self, goodbye: str | None = None) -> None:
        """Close the console (now, or as soon as the app runs)."""
        self.quitting = True
        if goodbye:
            self.goodbye = goodbye
        future = self.app.future
        if future is not None and not future.done():
            self.app.exit()

    def _pre_run(self) -> None:
        if self.quitting:  # trio asked to quit before the app ran
            self.app.exit()

    def invalidate(self) -> None:
        self.app.invalidate()

    async def run(self) -> None:
        """Run the Application with trio as its guest until either ends.

        Raises:
            Whatever the trio side raised (a bug of ours), after both have stopped.
        """
        loop = asyncio.get_running_loop()
        done: asyncio.Future = loop.create_future()

        def done_callback(outcome: Any) -> None:
            if not done.done():
                done.set_result(outcome)
            self.quit()

        trio.lowlevel.start_guest_run(
            self._trio_main,
            run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            done_callback=done_callback,
            host_uses_signal_set_wakeup_fd=True,
        )
        try:
            if not done.done():
                await self.app.run_async(pre_run=self._pre_run, set_exception_handler=False)
        finally:
            self.quitting = True
            for _ in range(200):  # trio sets its token and scope on its first step
                if done.done() or (self.token is not None and self.scope is not None):
                    break
                await asyncio.sleep(0.01)
            if not done.done() and self.token is not None and self.scope is not None:
                with contextlib.suppress(trio.RunFinishedError):
                    self.token.run_sync_soon(self.scope.cancel)
            outcome = await asyncio.wait_for(asyncio.shield(done), 10)
        outcome.unwrap()

    # -- the trio side

    async def _trio_main(self) -> None:
        self.token = trio.lowlevel.current_trio_token()
        send, recv = trio.open_memory_channel[Intent](256)
        self._intents = send
        with trio.CancelScope() as scope:
            self.scope = scope
            async with trio.open_nursery() as nursery:
                self.nursery = nursery
                nursery.start_soon(self._intent_loop, recv)
                nursery.start_soon(self._clock)
                await self.net(self, nursery)
                if not self.quitting:
                    await trio.sleep_forever()

    async def _clock(self) -> None:
        """Twice a second: what the passing of time asks of the host (`Console.due`)."""
        while True:
            await trio.sleep(0.5)
            for intent in self.ui.due(time.monotonic()):
                self._do(intent)
                self.invalidate()

    async def _intent_loop(self, recv: trio.MemoryReceiveChannel) -> None:
        async for intent in recv:
            try:
                self._do(intent)
            except Exception:  # our bug: logged, told in one line, the console goes on
                log.exception("intent %r failed", intent)
                self.ui.say(f"That failed (a bug, logged in {log_path()}).")
            self.invalidate()

    def _do(self, intent: Intent) -> None:
        kind = intent[0]
        if kind == "connect":
            self.connect(intent[1], intent[2], intent[3])
            return
        if kind == "disconnect":
            self.disconnect()
            return
        if kind == "keep_waiting":
            if self._keep_waiting is not None:
                self._keep_waiting.set()
            return
        if kind == "refresh_balance":
            if self.client is not None and self.client.account is not None and self.nursery is not None:
                self.nursery.start_soon(self._refresh_balance, self.client)
            return
        client = self.client
        ok = False
        if client is not None:
            if kind == "act":
                ok = client.act(intent[1], intent[2])
            elif kind == "send":
                ok = client.send(intent[1], **intent[2])
        if not ok:
            self.ui.sent_sid = None
            self.ui.say("Not connected to the host right now; try again in a moment.")

    def _where_now(self, label: str, address: tuple[str, int]) -> tuple[str, int]:
        """Where the host called `label` answers now: mDNS follows a host whose
        address changed (a laptop that roamed); else `address`."""
        row = next((h for h in self.found if h.label == label and h.found == "mDNS"), None)
        return (row.address, row.port) if row is not None else address

    def show_hosts(self) -> None:
        """The hosts screen's list: mDNS's, then the known hosts it did not find."""
        known = self.hosts.load() if self.hosts is not None else []
        self.ui.set_hosts(with_known_hosts(self.found, known, self.known_alive))
        self.invalidate()

    def connect(self, host: str, port: int, label: str, saved: SavedSeat | None = None) -> None:
        """Talk to the host at `host:port` (the old connection, if any, is closed),
        with the seat this machine keeps there (`saved`, else the one `seats` finds)."""
        self.disconnect()
        assert self.nursery is not None
        if saved is None and self.seats is not None:
            saved = self.seats.find(self.ui.name, host, port, now=time.time())
        client = ConsoleClient(self, self.ui.name, address=(host, port), saved=saved, profile=self.profile,
                               hosts=self.hosts)
        # a host found over mDNS must show the certificate its advert names
        client.expect_fingerprint = next((h.fingerprint for h in self.ui.hosts
                                          if (h.address, h.port) == (host, port) and h.fingerprint), None)
        if self.trusted is not None and (host, port) == self.trusted[0]:
            client.expect_fingerprint = self.trusted[1]  # quick play's own host, in this process
        client.hooks = list(self.hooks)
        if saved is not None:
            self.ui.expect_seat({"room": saved.room, "seat": saved.seat, "n": saved.n, "step": saved.step,
                                 "host": saved.host})
        else:
            self.ui.returning = None
        self.client = client
        scope = trio.CancelScope()
        self._client_scope = scope
        self.nursery.start_soon(self._serve, client, (host, port), label, scope)

    def disconnect(self) -> None:
        if self._client_scope is not None:
            self._client_scope.cancel()
        if self.client is not None:
            self.client.close()
        self.client = None
        self._client_scope = None
        self.ui.reset_table()

    # -- the seats kept on this machine

    def keep_seat(self, client: ConsoleClient, msg: dict[str, Any]) -> None:
        """Keep the seat's token while its game runs (with the last event and
        state seen), and after it ends for as long as the host holds the seat
        between games (`SEAT_HOLD`); forget it when the seat is gone."""
        book = self.seats
        if book is None:
            return
        typ = msg["type"]
        host, port = client.address
        now = time.time()
        view = msg.get("view") if typ == "snapshot" else msg if typ == "view" else None
        seated = client.seat is not None and client.token and client.room_name
        old = client.saved
        if view is not None and seated:
            v = view["view"]
            events = v.get("events") or []
            n = events[-1].get("n", 0) if events else (old.n if old is not None else 0)
            step = int(v.get("step") or 0)
            # a finished game: the host holds the seat a while (from the end, or
            # from a return to it: a snapshot)
            until = now + SEAT_HOLD if v.get("outcome") is not None else 0.0
            fresh = typ == "snapshot" or (old is not None and (old.n, old.step, bool(old.until)) != (n, step, bool(until)))
        elif typ == "room" and seated and (msg.get("room") or {}).get("state") == "open":
            # a seat waiting for its room's first deal: the host holds it a minute after a drop too
            n, step, until = 0, 0, now + SEAT_HOLD
            fresh = old is not None and now - old.saved > SEAT_HOLD / 4  # (its minute renewed now and then)
        else:
            n = None
        if n is not None:
            seat = SavedSeat(self.ui.name, client.host_name, host, port, client.room_name, client.seat,
                             client.token, now, n=int(n), step=step, until=until)
            if fresh or old is None or (old.token, old.room, old.host) != (seat.token, seat.room, seat.host):
                book.keep(seat)
                client.saved = seat
        if typ == "left" or (typ == "error" and msg["code"] == "bad_token"):
            # (a `bye` keeps it: a host with a store resumes its games when it starts again)
            room = msg.get("room") if typ == "left" else client.saved.room if client.saved is not None else None
            if room:
                book.forget(self.ui.name, host, port, room, now)
            client.saved = None

    async def _refresh_balance(self, client: ConsoleClient) -> None:
        """Ask the host for the profile's coins now, over a connection of its own
        (the lobby's `r`: a hello's welcome tells the balance)."""
        probe = _BalanceProbe(self.ui.name, profile=self.profile, register=False, connect_timeout=2.0)
        with trio.move_on_after(5.0):
            with contextlib.suppress(OSError, NotLanmatch):
                await probe.connect_once(client.address)
        if self.client is client and probe.account is not None and probe.balance is not None:
            self.ui.on_message({"type": "profile", "profile": probe.account}, time.monotonic())
            self.ui.say(f"Rooms and coins refreshed: you hold {probe.balance:,}.")
            self.invalidate()

    # -- serving one host

    async def _serve(self, client: ConsoleClient, address: tuple[str, int], label: str, scope: trio.CancelScope) -> None:
        """Serve one host until the user goes elsewhere: reconnects (with the seat
        token) after a drop, for `reconnect_for` seconds at a time; a host that
        said `bye`, or an address that is not a lanmatch host, ends it."""
        ui = self.ui
        failures = 0
        lost_until: float | None = None
        named = label if label == where(address) else f"{label} ({where(address)})"
        with scope:
            while True:
                client.welcomed = False  # this attempt's, below
                address = self._where_now(label, address)
                try:
                    reason = await client.connect_once(address)
                except NotLanmatch as e:  # nothing was sent to it; no retry
                    self._leave_host(client, f"{e}.")
                    return
                except OSError as e:
                    if not client.ever_welcomed:
                        self._leave_host(client, f"Cannot reach {named}: {reach_error(e)}.")
                        return
                    reason = "unreachable"
                if self.quitting or scope.cancel_called:
                    return
                if client.bye is not None:  # the model has said who closed the table
                    self._leave_host(client, None)
                    return
                fatal = client.fatal
                if not client.ever_welcomed and fatal is None and reason != "unreachable":
                    # (protocol 1: it got our hello, but no retry loop for a stranger)
                    self._leave_host(client, f"{not_welcomed(address, reason)}.")
                    return
                if fatal is not None and fatal.get("code") == "replaced":
                    # another console of this player took the seat: this one holds nothing there now
                    # (a play-test's kept offering r and L, each answered "not connected")
                    self._leave_host(client, "Your seat is played from your other console now (it took the seat "
                                             "over): this one is back at the hosts; q quits it.")
                    return
                if fatal is not None and fatal.get("code") not in ("timeout", "slow_reader"):
                    ui.status = "disconnected"
                    ui.say(f"Disconnected: {fatal.get('message')}")
                    self.invalidate()
                    return
                client.fatal = None
                if client.welcomed:  # that connection was good: a fresh minute
                    lost_until, failures = None, 0
                now = time.monotonic()
                if lost_until is None:
                    lost_until = now + self.reconnect_for
                elif now >= lost_until:
                    lost_until = await self._host_gone()
                    failures = 0
                    continue
                failures += 1
                ui.connection_lost(lost_until)
                log.info("connection to %s ended (%s); reconnecting", label, reason)
                self.invalidate()
                await trio.sleep(min(2.0, 0.1 * 2 ** min(failures, 5)))

    async def _host_gone(self) -> float:
        """Say the host is gone; wait until the player asks for more waiting
        (the lobby cancels this task). Returns the new deadline."""
        self.ui.host_gone()
        self.invalidate()
        self._keep_waiting = trio.Event()
        await self._keep_waiting.wait()
        self._keep_waiting = None
        until = time.monotonic() + self.reconnect_for
        self.ui.connection_lost(until)
        self.invalidate()
        return until

    def _leave_host(self, client: ConsoleClient, line: str | None) -> None:
        """This host is done with: one line (None: already said), the lobby."""
        self.ui.to_lobby(line)
        if self.client is client:
            self.client = None
        self.invalidate()


# ------------------------------------------------------------------ quick play and the lobby


def _auto_seat(room: str, start: bool) -> Callable[[ConsoleClient, dict[str, Any]], None]:
    """Quick play: after `welcome`, sit at seat 0 of `room`; once seated, start (unless `start` is False)."""
    state = {"started": False}

    def hook(client: ConsoleClient, msg: dict[str, Any]) -> None:
        typ = msg["type"]
        if typ == "welcome" and client.seat is None and client.token is None:
            client.send("join", room=room, seat=0)
        elif typ == "seated" and start and not state["started"]:
            state["started"] = True
            client.send("start")

    return hook


def _relist(client: ConsoleClient, msg: dict[str, Any]) -> None:
    """The lobby: list the rooms after `welcome` (unless a seat is being taken
    back, or a room watched again), after leaving one, after a seat token the
    host no longer knows, and after a `watch` refused (the room the console
    watched before a reconnect is gone)."""
    typ = msg["type"]
    if (typ == "welcome" and client.seat is None and not client.token and client.watched is None) \
            or typ == "left" or (typ == "error" and msg["code"] == "bad_token") \
            or (typ == "error" and msg.get("ref") == "watch" and client.room_name is None):
        client.send("list")


async def play_net(session: Session, nursery: trio.Nursery, args: Any) -> None:
    """Quick play: a host in-process, one room, this player at seat 0, bots in the rest."""
    from lanmatch.net.host import Host

    ui = session.ui
    host_name = getattr(args, "host_name", None) or socket.gethostname()
    want_port = getattr(args, "port", None) or 0
    identity = Identity.ephemeral()  # alone at this machine: nothing kept, no friend pins it
    if args.lan:
        try:  # the machine's own TLS key, made at the first start: friends pin it
            identity, _made = machine_identity(host_name)
        except (OSError, ValueError) as e:
            session.exit_code = 1
            session.quit(f"lanmatch play: cannot keep the host's TLS key: {e}")
            return
    host = Host(host_name, tls=identity)
    session.host = host
    await nursery.start(host.run)
    bind = (args.bind or None) if args.lan else "127.0.0.1"
    try:
        port = await nursery.start(host.listen, want_port, bind)
    except OSError as e:
        session.exit_code = 1
        session.quit(f"lanmatch play: cannot listen on {bind or '*'}:{want_port}: {e.strerror or e}")
        return
    session.port = port
    room = f"{ui.name}'s table"[:32] if args.lan else "Quick play"
    host.create_room(
        room,
        game=args.game,
        table=args.table,  # (`_check_table`: the name as rooms carry it)
        seats=args.seats,
        clock=args.clock,
        bot_level=args.bots,
        bot_delay=0.0 if args.fast else AUTOPILOT_PACE,
        seed=args.seed,
        first_directs=True,  # you sit first: with --lan, only you start and rematch
    )
    if args.lan:
        ui.banner = _friends_line(host, port, bind)
        nursery.start_soon(_advertise, session, host, port, bind)
    session.hooks = [_auto_seat(room, start=not args.lan)]
    mine = bind if bind not in (None, "", "0.0.0.0") else "127.0.0.1"
    session.trusted = ((mine, port), host.fingerprint)
    session.connect(mine, port, host_name)


def _friends_line(host: Any, port: int, bind: str | None) -> str:
    """What friends type, and the fingerprint their lobby shows (to compare)."""
    from lanmatch.net.discovery import local_addresses
    from lanmatch.net.tls import short_fingerprint

    address = bind if bind not in (None, "", "0.0.0.0") else local_addresses()[0]
    return f"Friends: lanmatch join {address}:{port} · key {short_fingerprint(host.fingerprint)}"


async def _advertise(session: Session, host: Any, port: int, bind: str | None) -> None:
    from lanmatch.net.discovery import Advertiser

    adv = Advertiser(host.name, port, bind=bind)
    try:
        await adv.start(host.summary())
        session.invalidate()
        await adv.follow(host)
    except Exception as e:  # zeroconf's failures are many: the table goes on without mDNS
        log.warning("advertising failed: %r", e)
        session.ui.banner = f"Not advertised ({e}); friends can still join at this machine's address, port {port}."
        session.invalidate()
    finally:
        await adv.close()


async def join_net(session: Session, nursery: trio.Nursery, args: Any) -> None:
    """The lobby: browse mDNS (or go straight to HOST:PORT), list rooms, sit, play."""
    ui = session.ui
    session.hooks = [_relist]
    nursery.start_soon(_relister, session)
    # (with an address too: the hosts screen, after Esc or a host gone, lists them)
    nursery.start_soon(_check_known, session)
    if args.address:
        host, port = parse_address(args.address)
        known = session.hosts.pinned(args.address) if session.hosts is not None and ":" not in args.address else None
        if known is not None:  # `lanmatch join Kitchen`: a host played at before, at its last address
            host, port = known.address, known.port
        ui.browsing = False
        ui.begin_connect(host, port, f"{host}:{port}")
        session.connect(host, port, f"{host}:{port}")
        return
    nursery.start_soon(_browse, session, [args.bind] if args.bind else None)
    saved = session.seats.latest(ui.name, time.time()) if session.seats is not None else None
    if saved is not None:  # a seat kept on this machine: straight back to it
        label = saved.host or where((saved.address, saved.port))
        ui.begin_connect(saved.address, saved.port, label)
        session.connect(saved.address, saved.port, label, saved)


KNOWN_CHECK = 5.0  # seconds between the TCP checks of the hosts this machine played at
KNOWN_WAKE = 0.25  # seconds between looks at whether the hosts screen is up


async def _check_known(session: Session) -> None:
    """Every `KNOWN_CHECK` seconds while the hosts screen is up (at once when
    it comes up), whether each host this machine played at (and mDNS did not
    find) answers, checked over TCP and TLS, all at once."""
    from lanmatch.net.discovery import check_alive

    while True:
        while session.ui.screen != "hosts":  # (nothing to show it on: no checks while playing)
            await trio.sleep(KNOWN_WAKE)
        known = session.hosts.load() if session.hosts is not None else []
        found = {h.label.casefold() for h in session.found} | {(h.address, h.port) for h in session.found}
        todo = [k for k in known[:16] if k.name.casefold() not in found and (k.address, k.port) not in found]

        async def check(k: Any) -> None:
            session.known_alive[k.name] = await check_alive(k.address, k.port)

        async with trio.open_nursery() as n:
            for k in todo:
                n.start_soon(check, k)
        session.show_hosts()
        await trio.sleep(KNOWN_CHECK)


async def _relister(session: Session) -> None:
    """While the rooms screen is up, ask for the room list every RELIST seconds."""
    while True:
        await trio.sleep(RELIST)
        if session.ui.screen == "rooms" and session.client is not None and session.client.welcomed:
            session.client.send("list")


async def _browse(session: Session, interfaces: list[str] | None) -> None:
    from lanmatch.net.discovery import Browser

    ui = session.ui
    try:
        async with Browser(interfaces) as browser:
            while True:
                session.found = [
                    HostRow(h.label, h.address, h.port, h.txt.get("rooms", "?"), h.txt.get("free", "?"),
                            h.txt.get("games", ""), h.txt.get("pw") == "1", h.txt.get("playing", ""),
                            h.txt.get("fp", ""))
                    for h in browser.hosts.values()
                ]
                session.show_hosts()
                await browser.changed()
    except Exception as e:  # no multicast here, or zeroconf failed: addresses still work
        log.warning("mDNS browsing failed: %r", e)
        ui.browsing = False
        ui.say(f"Looking for hosts failed ({type(e).__name__}); type an address instead (Tab).")
        session.invalidate()


# ------------------------------------------------------------------ running


def _log_to_file() -> None:
    """Send library logs (warnings and worse) to the console log, never to the terminal."""
    path = log_path()
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(path, delay=True, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("--- %(asctime)s %(name)s %(levelname)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.WARNING)


def run_session(session: Session, what: str) -> int:
    """Run a session to its end; returns the exit status (1 after an unexpected error, logged)."""
    try:
        asyncio.run(session.run())
    except KeyboardInterrupt:
        print(f"{what}: interrupted. Bye!")
        return 0
    except Exception as e:  # the last line of defence: one line here, the details in the log
        try:
            path = write_log(traceback.format_exc())
        except OSError as log_err:
            print(f"{what}: something went wrong ({type(e).__name__}: {e}); could not write a log ({log_err}).",
                  file=sys.stderr)
        else:
            print(f"{what}: something went wrong ({type(e).__name__}); the details are in {path}", file=sys.stderr)
        return 1
    print(session.goodbye, file=sys.stderr if session.exit_code else sys.stdout)
    return session.exit_code


def main_play(args: Any) -> int:
    """`lanmatch play` in a terminal: the full-screen console at an in-process host."""
    _log_to_file()
    ui = Console(player_name(args.name), kind="play")

    async def net(session: Session, nursery: trio.Nursery) -> None:
        await play_net(session, nursery, args)

    session = Session(ui, net)
    session.quiet = bool(getattr(args, "quiet", False))
    session.goodbye = "You left the table. Bye!"
    return run_session(session, "lanmatch play")


def main_join(args: Any) -> int:
    """`lanmatch join [HOST:PORT]`: the lobby, then the table."""
    _log_to_file()
    profile, name, note = join_profile(args.name)
    ui = Console(name, kind="join")
    ui.profile_note = note
    if note:
        ui.say(f"No profile ({note}): practice rooms only.")

    async def net(session: Session, nursery: trio.Nursery) -> None:
        await join_net(session, nursery, args)

    session = Session(ui, net)
    session.quiet = bool(getattr(args, "quiet", False))
    session.profile = profile
    session.seats = SeatBook()
    session.hosts = HostBook()
    return run_session(session, "lanmatch join")


__all__ = ["ConsoleClient", "Session", "build_app", "create_key_bindings", "join_profile", "main_join", "main_play"]
