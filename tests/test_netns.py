"""Networks as they are, in network namespaces: a host on two LANs, a host
whose address changes, a host impersonated under its name, and what an
independent TLS client sees.

Each test builds its own namespaces (`Net`: "switch" namespaces holding a
bridge, and node namespaces with veth interfaces plugged into them), with a
name prefix unique to the run, and removes them in `finally`. The hosts are
real `lanmatch host` processes run with `ip netns exec`, bound to every
address of their namespace (nothing runs in the root namespace's network);
peers are `lanmatch bot` processes and small browser scripts
(`lanmatch.net.discovery.Browser`) in other namespaces. Skipped, loudly,
where `ip netns` cannot be used.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from _netns import TIMEOUT, Net, _run, can_make_namespaces

from lanmatch.net.tls import short_fingerprint
from lanmatch.protocol import DEFAULT_PORT

WHY_NOT = can_make_namespaces()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(WHY_NOT is not None, reason=f"NETWORK NAMESPACE TEST SKIPPED: {WHY_NOT}"),
]
ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}
LM = [sys.executable, "-m", "lanmatch"]

# A browser in a peer's namespace: one JSON line per change of the live hosts.
WATCH = """
import json, sys, trio
from lanmatch.net.discovery import Browser
async def main():
    with trio.move_on_after(float(sys.argv[1])):
        async with Browser(recheck=1.0) as b:
            while True:
                print(json.dumps([{"label": h.label, "address": h.address, "addresses": h.addresses,
                                   "port": h.port, "fp": h.txt.get("fp")} for h in b.hosts.values()]), flush=True)
                await b.changed()
trio.run(main)
"""


class Lines:
    """The lines a process prints on stdout, read without blocking."""

    def __init__(self, p: subprocess.Popen):
        assert p.stdout is not None
        self.p = p
        os.set_blocking(p.stdout.fileno(), False)
        self.buf = b""
        self.lines: list[str] = []
        self.pos = 0  # the lines before it were looked at

    def _read(self) -> None:
        chunk = self.p.stdout.read()
        if chunk:
            self.buf += chunk
            *done, self.buf = self.buf.split(b"\n")
            self.lines += [d.decode() for d in done]

    def wait_for(self, test, timeout: float, what: str) -> str:
        """The first line not yet looked at for which `test(line)` holds."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self._read()
            while self.pos < len(self.lines):
                line = self.lines[self.pos]
                self.pos += 1
                if test(line):
                    return line
            if self.p.poll() is not None:
                self._read()
                if self.pos == len(self.lines):
                    break
            time.sleep(0.05)
        err = ""
        if self.p.poll() is not None and self.p.stderr is not None:
            err = f"; it exited {self.p.returncode}: {self.p.stderr.read().decode()[-2000:]}"
        raise AssertionError(f"no {what} within {timeout} s; got {self.lines[-20:]!r}{err}")

    def prefixed(self, prefix: str, timeout: float = 20) -> str:
        return self.wait_for(lambda line: line.startswith(prefix), timeout, repr(prefix))


def start_host(net: Net, node: str, data: str, *extra: str, name: str = "Kitchen") -> tuple[subprocess.Popen, Lines]:
    p = net.popen(node, [*LM, "host", "--name", name, "--data", data, *extra],
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p, Lines(p)


def stop(p: subprocess.Popen) -> str:
    """SIGINT, wait; returns its stderr."""
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return p.stderr.read().decode() if p.stderr else ""


def watch(net: Net, node: str, seconds: float = 60) -> Lines:
    return Lines(net.popen(node, [sys.executable, "-c", WATCH, str(seconds)], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL))


def hosts_where(lines: Lines, test, timeout: float, what: str) -> dict:
    """The first host listed (in a `WATCH` line) for which `test(host)` holds."""
    line = lines.wait_for(lambda line: any(test(h) for h in json.loads(line)), timeout, what)
    return next(h for h in json.loads(line) if test(h))


def openssl_fingerprint(net: Net, node: str, address: str, port: int) -> str:
    """The SHA-256 of the DER certificate `openssl s_client` is shown at address:port."""
    cmd = (f"openssl s_client -connect {address}:{port} </dev/null 2>/dev/null"
           " | openssl x509 -outform DER | sha256sum")
    r = net.run(node, ["sh", "-c", cmd], timeout=20)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()[0].decode()


def test_a_host_on_two_lans_is_found_and_joined_from_both_at_its_address_on_each(tmp_path):
    with Net() as net:
        a, b = net.switch("swa"), net.switch("swb")
        host, pa, pb = net.ns("host"), net.ns("pa"), net.ns("pb")
        net.plug(host, a, "eth0", "10.78.1.1/24")
        net.plug(host, b, "eth1", "10.78.2.1/24", multicast_route=False)
        net.plug(pa, a, "eth0", "10.78.1.11/24")
        net.plug(pb, b, "eth0", "10.78.2.11/24")
        h, out = start_host(net, host, str(tmp_path / "host"), "--room", "R", "--table", "classic", "--seats", "3",
                            "--start-after", "5", "--bots", "easy")
        try:
            assert out.prefixed("listening ") == f"listening 0.0.0.0:{DEFAULT_PORT}"
            fp_line = out.prefixed("fingerprint ")
            join = out.prefixed("join from another machine: ")
            assert "lanmatch join 10.78.1.1" in join and "lanmatch join 10.78.2.1" in join, join
            out.prefixed("advertised ")
            seen = {}
            for node, mine in ((pa, "10.78.1.1"), (pb, "10.78.2.1")):
                w = watch(net, node, 30)
                seen[node] = hosts_where(w, lambda x: x["label"] == "Kitchen", 20, "Kitchen listed")
                assert seen[node]["address"] == mine, seen[node]
                assert sorted(seen[node]["addresses"]) == ["10.78.1.1", "10.78.2.1"]
                assert short_fingerprint(seen[node]["fp"]) in fp_line
                # an independent TLS client is shown the certificate the advert names
                assert openssl_fingerprint(net, node, mine, DEFAULT_PORT) == seen[node]["fp"]
            bots = [net.popen(node, [*LM, "bot", "--level", "medium", "--room", "R", "--browse-timeout", "20"],
                              stderr=subprocess.PIPE, env={**ENV, "XDG_CONFIG_HOME": str(tmp_path / node)})
                    for node in (pa, pb)]
            for bot, mine in zip(bots, ("10.78.1.1", "10.78.2.1"), strict=True):
                rc = bot.wait(timeout=90)
                err = bot.stderr.read().decode()
                assert rc == 0, err[-3000:]
                assert f"found host Kitchen at {mine}:{DEFAULT_PORT}" in err, err[-3000:]
                assert "bot node done (1 matches" in err
        finally:
            err = stop(h)
        assert "game 1 over" in err, err[-3000:]


def test_the_advert_follows_an_address_added_and_removed(tmp_path):
    with Net() as net:
        sw = net.switch("sw")
        host, peer = net.ns("host"), net.ns("peer")
        net.plug(host, sw, "eth0", "10.78.3.1/24")
        net.plug(peer, sw, "eth0", "10.78.3.11/24")
        # keep the added address when the first is removed (Linux drops a subnet's secondaries with its primary)
        r = net.run(host, ["sysctl", "-q", "-w", "net.ipv4.conf.eth0.promote_secondaries=1"], timeout=TIMEOUT)
        assert r.returncode == 0, r.stderr
        h, out = start_host(net, host, str(tmp_path / "host"))
        try:
            out.prefixed("advertised ")
            w = watch(net, peer, 90)
            kitchen = hosts_where(w, lambda x: x["label"] == "Kitchen", 20, "Kitchen listed")
            assert kitchen["addresses"] == ["10.78.3.1"]

            _run("ip", "-n", host, "addr", "add", "10.78.3.2/24", "dev", "eth0")
            t0 = time.monotonic()
            hosts_where(w, lambda x: sorted(x["addresses"]) == ["10.78.3.1", "10.78.3.2"], 20, "both addresses")
            added = time.monotonic() - t0

            _run("ip", "-n", host, "addr", "del", "10.78.3.1/24", "dev", "eth0")
            t0 = time.monotonic()
            moved = hosts_where(w, lambda x: x["addresses"] == ["10.78.3.2"], 30, "the new address alone")
            removed = time.monotonic() - t0
            assert moved["address"] == "10.78.3.2"
            # a fresh peer (`lanmatch join` just started) sees the new address only, and can play there
            fresh = hosts_where(watch(net, peer, 20), lambda x: x["label"] == "Kitchen", 15, "Kitchen listed")
            assert fresh["addresses"] == ["10.78.3.2"] and fresh["address"] == "10.78.3.2"
            print(f"advert followed: added in {added:.1f} s, removed in {removed:.1f} s")
        finally:
            err = stop(h)
        assert "addresses changed" in err, err[-3000:]


def test_a_host_with_another_certificate_under_the_pinned_name_is_refused_by_a_bot_node(tmp_path):
    with Net() as net:
        sw = net.switch("sw")
        host, peer = net.ns("host"), net.ns("peer")
        net.plug(host, sw, "eth0", "10.78.5.1/24")
        net.plug(peer, sw, "eth0", "10.78.5.11/24")
        env = {**ENV, "XDG_CONFIG_HOME": str(tmp_path / "peer-config")}
        room = ("--room", "R", "--table", "classic", "--seats", "2", "--start-after", "1", "--bots", "easy")
        real, out = start_host(net, host, str(tmp_path / "real"), *room)
        try:
            real_fp = out.prefixed("fingerprint ").split()[1:6]
            out.prefixed("advertised ")
            first = net.run(peer, [*LM, "bot", "--level", "easy", "--room", "R", "--browse-timeout", "20"],
                            timeout=90, env=env)
            assert first.returncode == 0, first.stderr.decode()[-3000:]
        finally:
            stop(real)
        assert (tmp_path / "peer-config" / "lanmatch" / "hosts.json").exists()
        fake, out = start_host(net, host, str(tmp_path / "fake"), *room)  # another key, the same name and address
        try:
            fake_fp = out.prefixed("fingerprint ").split()[1:6]
            assert fake_fp != real_fp
            out.prefixed("advertised ")
            for how in ([], ["10.78.5.1"]):  # over mDNS (advert and certificate agree), then by address
                r = net.run(peer, [*LM, "bot", "--level", "easy", "--room", "R", "--browse-timeout", "20", *how],
                            timeout=60, env=env)
                err = r.stderr.decode()
                assert r.returncode == 2, err[-3000:]
                warning = next((line for line in err.splitlines() if "WARNING" in line and "certificate" in line), "")
                assert " ".join(real_fp) in warning and " ".join(fake_fp) in warning, err[-3000:]
        finally:
            err = stop(fake)
        assert "game 1" not in err  # nobody sat at the impostor's table


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_openssl_is_shown_the_certificate_whose_fingerprint_is_advertised(tmp_path):
    with Net() as net:
        sw = net.switch("sw")
        host, peer = net.ns("host"), net.ns("peer")
        net.plug(host, sw, "eth0", "10.78.6.1/24")
        net.plug(peer, sw, "eth0", "10.78.6.11/24")
        h, out = start_host(net, host, str(tmp_path / "host"), name="Café.v2 (upstairs)")
        try:
            out.prefixed("advertised ")
            seen = hosts_where(watch(net, peer, 30), lambda x: x["label"] == "Café.v2 (upstairs)", 20, "the host")
            assert seen["address"] == "10.78.6.1" and len(seen["fp"]) == 64
            assert openssl_fingerprint(net, peer, "10.78.6.1", DEFAULT_PORT) == seen["fp"]
            # and a plain-TCP peer is sent no frame: only a TLS alert, then the end
            r = net.run(peer, [sys.executable, "-c", PLAIN, "10.78.6.1", str(DEFAULT_PORT)], timeout=20)
            assert r.returncode == 0, r.stderr.decode()
            got = bytes.fromhex(r.stdout.decode().strip())
            assert got == b"" or got[:1] == b"\x15", got  # a TLS alert record, or nothing
        finally:
            stop(h)


# A plain-TCP peer: sends a lanmatch-looking frame and prints, in hex, what comes back until the end.
PLAIN = """
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
s.sendall(b"\\x00\\x00\\x00\\x10" + b"\\x81\\xa4type\\xa5hello" + b"\\x00" * 5)
got = b""
try:
    while chunk := s.recv(4096):
        got += chunk
except (ConnectionResetError, TimeoutError):
    pass
print(got.hex())
"""


def test_every_namespace_is_removed():
    with Net() as net:
        names = [net.switch("sw"), net.ns("x")]
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=TIMEOUT).stdout
        assert all(n in listed for n in names)
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=TIMEOUT).stdout
    assert not any(n in listed for n in names)


