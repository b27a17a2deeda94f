"""Discovery on one machine: which addresses a host advertises, the order a
peer tries them in, awkward instance names, and the damping of address moves.

zeroconf is bound to 127.0.0.1 only; several interfaces, real address
changes and other machines are tests/test_netns.py's.
"""

from __future__ import annotations

import pytest
import trio
from _net import LOOPBACK, start_host

from lanmatch.net.discovery import (
    LABEL_BYTES,
    SERVICE,
    Advertiser,
    Browser,
    HostSeen,
    instance_label,
    ordered,
    reach,
    serving_addresses,
)

IFACES = [
    ("lo", "127.0.0.1"),
    ("eth0", "192.168.1.20"),
    ("docker0", "172.17.0.1"),
    ("br-5f2a91c07d44", "172.18.0.1"),
    ("veth12ab", "169.254.7.7"),
    ("virbr0", "192.168.122.1"),
    ("enp0s31f6", "169.254.10.2"),
    ("wlan0", "10.0.0.7"),
    ("wlan0", "10.0.0.7"),
    ("tailscale0", "100.101.102.103"),
    ("eth0", ("fe80::1", 0, 2)),  # IPv6: not advertised (IPv4 by default)
]


def test_a_host_advertises_its_lan_addresses_not_loopback_nor_container_bridges():
    assert serving_addresses(IFACES) == ["192.168.1.20", "10.0.0.7", "100.101.102.103", "169.254.10.2"]


def test_a_machine_with_no_lan_address_advertises_loopback():
    assert serving_addresses([("lo", "127.0.0.1"), ("docker0", "172.17.0.1")]) == ["127.0.0.1"]


def test_a_host_bound_to_one_address_advertises_that_address_even_a_bridge():
    adv = Advertiser("Kitchen", 7272, bind="172.17.0.1")
    assert adv.addresses == ["172.17.0.1"] and adv.interfaces == ["172.17.0.1"]


def test_a_peer_tries_the_addresses_on_its_own_networks_first():
    mine = [("10.0.0.9", 24), ("127.0.0.1", 8)]
    assert ordered(["192.168.1.20", "10.0.0.7", "100.1.2.3", "10.0.0.7"], mine) == ["10.0.0.7", "192.168.1.20",
                                                                                     "100.1.2.3"]
    assert ordered(["192.168.1.20", "10.0.1.7"], mine) == ["192.168.1.20", "10.0.1.7"]  # none near: as advertised


def test_host_seen_keeps_address_as_the_first_of_its_addresses():
    h = HostSeen("Kitchen." + SERVICE, "10.0.0.7", 7272)
    assert h.addresses == ["10.0.0.7"] and h.label == "Kitchen"


AWKWARD = ["Kitchen.v2", "alice.laptop.example.com", 'Café (2) "x"', "back\\slash", "dot.", ".lead", "a..b",
           "tab\there", "x" * 70, "é" * 40, "...", "Ωmega · straße"]


@pytest.mark.parametrize("name", AWKWARD)
def test_instance_labels_fit_dns(name):
    label = instance_label(name)
    assert label and len(label.encode()) <= LABEL_BYTES
    assert all(part for part in label.split("."))  # no empty DNS label
    assert all(c.isprintable() for c in label)


def test_a_name_with_a_dot_keeps_its_dot():
    assert instance_label("Kitchen.v2") == "Kitchen.v2"
    assert instance_label("dot.") == "dot" and instance_label("a..b") == "a.b"


@pytest.mark.slow
async def test_hosts_with_awkward_names_are_found_and_checked(nursery):
    """Each name is advertised on 127.0.0.1 for a real host and found by a
    browser under its label (zeroconf itself refuses some of these names, and
    registers others it cannot resolve: "dot.")."""
    host = await start_host(nursery)
    names = ["Kitchen.v2", 'Café (2) "x"', "dot.", ".lead", "tab\there", "é" * 40]
    advs = [Advertiser(n, host.port, bind=LOOPBACK) for n in names]
    try:
        async with trio.open_nursery() as n:
            for adv in advs:
                n.start_soon(adv.start, host.summary())
        async with Browser([LOOPBACK]) as browser:
            with trio.fail_after(15):
                while not {a.name for a in advs} <= set(browser.hosts):
                    await browser.changed()
            for name, adv in zip(names, advs, strict=True):
                seen = browser.hosts[adv.name]
                assert seen.label.startswith(instance_label(name)), (name, seen.label)
                assert (seen.address, seen.addresses, seen.port) == (LOOPBACK, [LOOPBACK], host.port)
    finally:
        for adv in advs:
            await adv.close()


async def test_reach_tries_each_address_in_turn(nursery):
    host = await start_host(nursery)
    with trio.fail_after(10):  # 127.0.0.2 is this machine too, where the host (bound to 127.0.0.1) is not
        assert await reach(["127.0.0.2", LOOPBACK], host.port) == LOOPBACK
        assert await reach(["127.0.0.2"], host.port) is None


async def test_a_flapping_link_moves_the_advert_at_most_once_per_damping_period(autojump_clock):
    """The addresses flap at every look for a minute (a cable in and out):
    the advert moves at most once per 5 s."""
    adv = Advertiser("Kitchen", 7272, poll=2.0, damp=5.0)
    adv.addresses = ["10.0.0.7"]
    moves: list[float] = []
    looks = [0]

    def source() -> list[str]:
        if adv.readvertised > len(moves):
            moves.append(trio.current_time())
        looks[0] += 1
        return ["10.0.0.7"] if looks[0] % 2 == 0 else ["10.0.0.7", "192.168.1.20"]

    with trio.move_on_after(60):
        await adv.follow_addresses(source)
    assert 3 <= adv.readvertised <= 60 / 5 + 1
    assert all(b - a >= 5.0 for a, b in zip(moves, moves[1:], strict=False)), moves


async def test_a_settled_change_is_followed_within_one_poll(autojump_clock):
    adv = Advertiser("Kitchen", 7272, poll=2.0, damp=5.0)
    adv.addresses = ["10.0.0.7"]
    now = {"addrs": ["10.0.0.7"]}
    async with trio.open_nursery() as n:
        n.start_soon(adv.follow_addresses, lambda: now["addrs"])
        await trio.sleep(30)
        assert adv.readvertised == 0  # nothing changed: nothing moved
        now["addrs"] = ["10.0.0.8"]
        t0 = trio.current_time()
        while adv.addresses != ["10.0.0.8"]:
            await trio.sleep(0.1)
        assert trio.current_time() - t0 <= 2.0 + 0.2
        n.cancel_scope.cancel()
    assert adv.readvertised == 1


def test_a_legacy_unicast_answer_describes_the_host_fully():
    """The browser's quick look reads the PTR, SRV, TXT and A records of one
    answer (made here by zeroconf's own encoder); an answer missing a record
    is left to the ServiceBrowser."""
    import socket

    from zeroconf import DNSOutgoing, ServiceInfo
    from zeroconf.const import _FLAGS_AA, _FLAGS_QR_RESPONSE

    from lanmatch.net.discovery import answers_of

    info = ServiceInfo(SERVICE, "Kitchen.v2." + SERVICE, port=7272, server="lanmatch-1.local.",
                       addresses=[socket.inet_aton("10.0.0.7"), socket.inet_aton("192.168.1.20")],
                       properties={"txtvers": "1", "fp": "ab" * 32, "games": "colormatch,dominoes"})

    def packet(*records) -> bytes:
        out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA, multicast=False)
        for r in records:
            out.add_answer_at_time(r, 0)
        return out.packets()[0]

    full = packet(info.dns_pointer(), info.dns_service(), info.dns_text(), *info.dns_addresses())
    [seen] = answers_of(full)
    assert (seen.label, seen.port, sorted(seen.addresses)) == ("Kitchen.v2", 7272, ["10.0.0.7", "192.168.1.20"])
    assert seen.txt == {"txtvers": "1", "fp": "ab" * 32, "games": "colormatch,dominoes"}
    assert answers_of(packet(info.dns_pointer(), info.dns_service(), info.dns_text())) == []  # no address
    assert answers_of(b"\x00" * 7) == [] and answers_of(b"") == []
