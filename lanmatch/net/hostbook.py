"""The hosts a player has played at, kept on the player's machine: their
addresses (the lobby lists them where mDNS does not pass) and their pinned
certificate fingerprints (a host that changes its certificate is refused).

    from lanmatch.net.hostbook import HostBook
    book = HostBook()                          # $XDG_CONFIG_HOME/lanmatch/hosts.json
    book.pinned("Kitchen")                     # KnownHost or None
    book.remember("Kitchen", "10.0.0.2", 7272, fingerprint, now)
    book.forget("Kitchen")

How this works. The first connection to a host pins the fingerprint of the
certificate its TLS handshake showed (trust on first use, as SSH's
known_hosts), under the name the host gives in its first frame (compared
without regard to case). Every later connection to a host of that name, at
any address, must show the same certificate, or `Client` refuses it before
it sends anything (`HostChanged`: both fingerprints named; `lanmatch hosts
--forget NAME` after a host was really reinstalled). Each entry also keeps
the host's last address and port and when it was last reached: the lobby's
"hosts you played at" list, checked live over TCP. The file is
`lanmatch.net.jsonfile`'s (whole, 0600); at most `MAX_HOSTS` entries, the
most recently seen.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from lanmatch.net.jsonfile import read_json, write_private_json
from lanmatch.store.paths import config_dir

FILE_NAME = "hosts.json"
MAX_HOSTS = 64
FRESH = 3600.0  # seconds: a host seen again at the same place within this is not written again


@dataclass(frozen=True)
class KnownHost:
    """A host this machine has reached: its name, last address, pin, last time."""

    name: str
    address: str
    port: int
    fingerprint: str  # lowercase hex SHA-256 of its certificate (DER)
    seen: float  # time.time() of the last connection

    @property
    def key(self) -> str:
        return self.name.casefold()


def _known(data: Any) -> KnownHost | None:
    if not isinstance(data, dict):
        return None
    kinds = {"name": str, "address": str, "port": int, "fingerprint": str, "seen": (int, float)}
    values = {}
    for f in fields(KnownHost):
        v = data.get(f.name)
        if not isinstance(v, kinds[f.name]) or isinstance(v, bool):
            return None
        values[f.name] = v
    return KnownHost(**values)


class HostBook:
    """The file of known hosts (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str] | None = None):
        self.path = Path(path) if path is not None else config_dir() / FILE_NAME

    def load(self) -> list[KnownHost]:
        """Every known host, the most recently seen first."""
        data = read_json(self.path, "known hosts")
        hosts = [h for h in map(_known, data.get("hosts", []) if isinstance(data, dict) else []) if h is not None]
        return sorted(hosts, key=lambda h: h.seen, reverse=True)

    def pinned(self, name: str) -> KnownHost | None:
        """The entry of the host called `name` (any case), or None."""
        return next((h for h in self.load() if h.key == name.casefold()), None)

    def remember(self, name: str, address: str, port: int, fingerprint: str, now: float) -> None:
        """Keep (or refresh) the host called `name`: its address, port and pin.
        A reconnect to the same place within `FRESH` seconds writes nothing."""
        known = self.load()
        same = next((h for h in known if h.key == name.casefold()), None)
        if same is not None and (same.address, same.port, same.fingerprint) == (address, port, fingerprint) \
                and now - same.seen < FRESH:
            return
        hosts = [h for h in known if h.key != name.casefold()]
        self._write([KnownHost(name, address, port, fingerprint, now), *hosts][:MAX_HOSTS])

    def forget(self, name: str) -> bool:
        """Forget the host called `name` (its pin too); False if it was not known."""
        hosts = self.load()
        kept = [h for h in hosts if h.key != name.casefold()]
        if len(kept) == len(hosts):
            return False
        self._write(kept)
        return True

    def _write(self, hosts: list[KnownHost]) -> None:
        write_private_json(self.path, {"hosts": [asdict(h) for h in hosts]}, "known hosts")


__all__ = ["FILE_NAME", "FRESH", "MAX_HOSTS", "HostBook", "KnownHost"]
