"""A LAN in network namespaces: mDNS discovery and a whole match across hosts.

Three hosts on one bridge (tests/_netns.py, made and removed by the test):
`lanmatch host` in the first advertises over mDNS on its own address; a
`lanmatch bot` in the second discovers it over mDNS (no address given) and
plays; a bot node in the third joins by address. Then again with 5% of every
host's outgoing packets dropped by nftables. Two hosts started under one name
on two machines: the second is advertised renamed. Skipped, loudly, only where
network namespaces cannot be created.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from _netns import Lan, can_make_namespaces

WHY_NOT = can_make_namespaces()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(WHY_NOT is not None, reason=f"LAN TEST SKIPPED: {WHY_NOT}"),
]
ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}
LM = [sys.executable, "-m", "lanmatch"]


def read_line(p: subprocess.Popen, prefix: bytes, timeout: float) -> bytes:
    end = time.monotonic() + timeout
    assert p.stdout is not None
    os.set_blocking(p.stdout.fileno(), False)
    buf = b""
    while time.monotonic() < end:
        chunk = p.stdout.read()
        if chunk:
            buf += chunk
            for line in buf.splitlines():
                if line.startswith(prefix):
                    return line
        elif p.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"no {prefix!r} line within {timeout} s; got {buf!r}")


def play_across_the_lan(lan: Lan) -> None:
    host = lan.popen(0, [*LM, "host", "--name", "Kitchen", "--bind", lan.addrs[0], "--room", "R", "--no-store",
                         "--table", "classic", "--seats", "3", "--start-after", "5", "--bots", "easy"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    line = read_line(host, b"listening ", 20)
    port = int(line.split(b":")[-1])
    read_line(host, b"advertised ", 20)
    t0 = time.monotonic()
    peer = lan.popen(1, [*LM, "bot", "--level", "medium", "--bind", lan.addrs[1], "--room", "R",
                         "--browse-timeout", "20"], stderr=subprocess.PIPE, env=ENV)
    node = lan.popen(2, [*LM, "bot", "--level", "hard", "--room", "R", f"{lan.addrs[0]}:{port}"],
                     stderr=subprocess.PIPE, env=ENV)
    try:
        peer_rc = peer.wait(timeout=90)
        node_rc = node.wait(timeout=60)
    finally:
        host.send_signal(signal.SIGINT)
    peer_err = peer.stderr.read().decode()
    assert peer_rc == 0, peer_err[-3000:]
    assert f"found host Kitchen at {lan.addrs[0]}:{port}" in peer_err  # over mDNS, across namespaces
    assert "bot node done (1 matches" in peer_err
    assert node_rc == 0, node.stderr.read().decode()[-3000:]
    assert host.wait(timeout=15) == 0
    host_err = host.stderr.read().decode()
    assert "game 1 over" in host_err and "unregistered" in host_err
    print(f"match across the LAN took {time.monotonic() - t0:.1f} s")


def test_a_peer_discovers_the_host_over_mdns_and_plays_a_whole_match_across_namespaces():
    with Lan(hosts=3) as lan:
        play_across_the_lan(lan)


@pytest.mark.skipif(shutil.which("nft") is None, reason="LAN LOSS TEST SKIPPED: nftables (nft) is not installed")
def test_the_match_still_completes_with_five_percent_packet_loss():
    with Lan(hosts=3) as lan:
        lan.loss(5)
        play_across_the_lan(lan)


def test_a_host_named_like_one_already_advertised_is_advertised_renamed():
    """mDNS names are unique on a LAN: zeroconf probes before it announces, the
    host already there answers, and the newcomer renames itself (docs/protocol.md,
    section 9). Two machines, as in a home: on one machine both hosts share
    port 5353 and a unicast answer may reach either of them."""
    first = second = None
    with Lan(hosts=2) as lan:
        try:
            first = lan.popen(0, [*LM, "host", "--name", "Kitchen", "--bind", lan.addrs[0], "--no-store"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
            assert read_line(first, b"advertised ", 20) == b"advertised Kitchen._lanmatch._tcp.local."
            second = lan.popen(1, [*LM, "host", "--name", "Kitchen", "--bind", lan.addrs[1], "--no-store"],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
            assert read_line(second, b"advertised ", 20) == b"advertised Kitchen-2._lanmatch._tcp.local."
        finally:
            for p in (first, second):
                if p is not None and p.poll() is None:
                    p.send_signal(signal.SIGINT)
                    try:
                        p.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        p.kill()
                        p.wait()


def test_the_lan_is_torn_down_completely():
    with Lan(hosts=2) as lan:
        names = [*lan.hosts, lan.switch]
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=5).stdout
        assert all(n in listed for n in names)
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=5).stdout
    assert not any(n in listed for n in names)
