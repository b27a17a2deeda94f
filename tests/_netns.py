"""A small LAN inside this machine: a bridge and hosts in network namespaces.

`Lan(prefix, hosts=3)` builds, as root, a "switch" namespace holding a bridge
(multicast snooping off) and one namespace per host with an `eth0` (a veth
whose peer sits on the bridge) at 10.77.0.11, .12, ...; `lo` is up and
multicast routes to `eth0`. Nothing is created in the root namespace: each
veth pair is made inside its host namespace with its peer moved straight to
the switch. Every `ip`/`nft` call runs under a timeout; `close()` kills what
runs inside and deletes the namespaces, and never fails. The name prefix is
unique per run, and set-up tears down first, so a crashed run leaves nothing
that the next one trips on.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess

TIMEOUT = 5


class LanError(RuntimeError):
    pass


def _run(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired as e:
        raise LanError(f"{' '.join(cmd)}: timed out") from e
    if check and r.returncode != 0:
        raise LanError(f"{' '.join(cmd)}: {r.stderr.strip() or r.returncode}")
    return r


def _tear_down(procs: list[subprocess.Popen], namespaces: list[str]) -> None:
    """Kill `procs`, then whatever still runs in `namespaces`, and delete them. Never raises."""
    for p in procs:
        with contextlib.suppress(Exception):
            if p.poll() is None:
                p.kill()
                p.wait(timeout=TIMEOUT)
    for ns in namespaces:
        with contextlib.suppress(Exception):
            for pid in _run("ip", "netns", "pids", ns, check=False).stdout.split():
                with contextlib.suppress(Exception):
                    os.kill(int(pid), signal.SIGKILL)
        with contextlib.suppress(Exception):
            _run("ip", "netns", "del", ns, check=False)


def can_make_namespaces() -> str | None:
    """None if namespaces can be made here, else why not."""
    if shutil.which("ip") is None:
        return "the `ip` command (iproute2) is not installed"
    if os.geteuid() != 0:
        return "network namespaces need root"
    name = f"lmprobe{secrets.token_hex(3)}"
    try:
        _run("ip", "netns", "add", name)
    except LanError as e:
        return f"cannot create a network namespace: {e}"
    _run("ip", "netns", "del", name, check=False)
    return None


class Lan:
    def __init__(self, hosts: int = 3, prefix: str | None = None):
        self.prefix = prefix or f"lm{secrets.token_hex(3)}"
        self.switch = f"{self.prefix}sw"
        self.hosts = [f"{self.prefix}h{i + 1}" for i in range(hosts)]
        self.addrs = [f"10.77.0.{11 + i}" for i in range(hosts)]
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> Lan:
        self.close()
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _build(self) -> None:
        sw = self.switch
        _run("ip", "netns", "add", sw)
        _run("ip", "-n", sw, "link", "set", "lo", "up")
        _run("ip", "-n", sw, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
        _run("ip", "-n", sw, "link", "set", "br0", "up")
        for i, (ns, addr) in enumerate(zip(self.hosts, self.addrs, strict=True)):
            port = f"{self.prefix}p{i + 1}"
            _run("ip", "netns", "add", ns)
            _run("ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", port, "netns", sw)
            _run("ip", "-n", sw, "link", "set", port, "master", "br0")
            _run("ip", "-n", sw, "link", "set", port, "up")
            _run("ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", "eth0")
            _run("ip", "-n", ns, "link", "set", "eth0", "up")
            _run("ip", "-n", ns, "link", "set", "lo", "up")
            _run("ip", "-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0")

    def popen(self, host: int, cmd: list[str], **kw) -> subprocess.Popen:
        """Start `cmd` inside host `host`'s namespace (tracked for tear-down)."""
        p = subprocess.Popen(["ip", "netns", "exec", self.hosts[host], *cmd], **kw)
        self.procs.append(p)
        return p

    def loss(self, percent: int) -> None:
        """Drop `percent`% of the packets every host sends on eth0 (nftables)."""
        for ns in self.hosts:
            rules = (
                "add table inet lmloss\n"
                "add chain inet lmloss out { type filter hook output priority 0 ; }\n"
                f'add rule inet lmloss out oifname "eth0" numgen random mod 100 < {percent} drop\n'
            )
            try:
                r = subprocess.run(["ip", "netns", "exec", ns, "nft", "-f", "-"], input=rules, text=True,
                                   capture_output=True, timeout=TIMEOUT, check=False)
            except subprocess.TimeoutExpired as e:
                raise LanError("nft timed out") from e
            if r.returncode != 0:
                raise LanError(f"nft in {ns}: {r.stderr.strip()}")

    def close(self) -> None:
        """Kill everything started, delete the namespaces. Never raises."""
        _tear_down(self.procs, [*self.hosts, self.switch])


class Net:
    """Namespaces of any shape (several switches, hosts with several
    interfaces) for one test or bench run: `ns`, `switch`, `plug`; `close()`
    kills what runs inside and deletes them, never raising."""

    def __init__(self, prefix: str = "ln", env: dict[str, str] | None = None) -> None:
        self.prefix = f"{prefix}{secrets.token_hex(3)}"
        self.env = env if env is not None else {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.namespaces: list[str] = []
        self.procs: list[subprocess.Popen] = []
        self.ports = 0

    def __enter__(self) -> Net:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ns(self, short: str) -> str:
        name = f"{self.prefix}{short}"
        _run("ip", "netns", "del", name, check=False)
        self.namespaces.append(name)
        _run("ip", "netns", "add", name)
        _run("ip", "-n", name, "link", "set", "lo", "up")
        return name

    def switch(self, short: str) -> str:
        sw = self.ns(short)
        _run("ip", "-n", sw, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
        _run("ip", "-n", sw, "link", "set", "br0", "up")
        return sw

    def plug(self, node: str, sw: str, ifname: str, cidr: str, multicast_route: bool = True) -> None:
        """A veth `ifname` in `node` at `cidr`, its peer on `sw`'s bridge."""
        self.ports += 1
        port = f"{self.prefix}p{self.ports}"
        _run("ip", "-n", node, "link", "add", ifname, "type", "veth", "peer", "name", port, "netns", sw)
        _run("ip", "-n", sw, "link", "set", port, "master", "br0")
        _run("ip", "-n", sw, "link", "set", port, "up")
        _run("ip", "-n", node, "addr", "add", cidr, "dev", ifname)
        _run("ip", "-n", node, "link", "set", ifname, "up")
        if multicast_route:
            _run("ip", "-n", node, "route", "add", "224.0.0.0/4", "dev", ifname)

    def popen(self, node: str, cmd: list[str], **kw) -> subprocess.Popen:
        kw.setdefault("env", self.env)
        p = subprocess.Popen(["ip", "netns", "exec", node, *cmd], **kw)
        self.procs.append(p)
        return p

    def run(self, node: str, cmd: list[str], timeout: float, **kw) -> subprocess.CompletedProcess:
        kw.setdefault("env", self.env)
        return subprocess.run(["ip", "netns", "exec", node, *cmd], capture_output=True, timeout=timeout,
                              check=False, **kw)

    def close(self) -> None:
        _tear_down(self.procs, list(reversed(self.namespaces)))
