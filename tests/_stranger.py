"""A TCP service on 127.0.0.1 that is not lanmatch, for the tests of what a
peer sends a stranger (docs/protocol.md section 4: nothing at all)."""

from __future__ import annotations

import socket
import threading
from typing import Any

from _net import LOOPBACK


def only_a_client_hello(data: bytes) -> bool:
    """Is `data` one TLS handshake record holding a ClientHello, and nothing
    else (what a lanmatch peer sends an address before it has answered)?"""
    if len(data) < 9 or data[0] != 0x16 or data[1] != 0x03 or data[5] != 0x01:
        return False
    return len(data) == 5 + int.from_bytes(data[3:5], "big")


class Stranger:
    """A TCP service on 127.0.0.1 that is not lanmatch: it answers `answer` at
    once (None: never) and records every byte it receives, on its own thread."""

    def __init__(self, answer: bytes | None):
        self.answer = answer
        self.received = bytearray()
        self.connections = 0
        self.sock = socket.create_server((LOOPBACK, 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Stranger:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self.thread.join(10)
        self.sock.close()

    def _run(self) -> None:
        while not self.stop.is_set():  # bounded: the test sets `stop`
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(0.2)
            if self.answer is not None:
                conn.sendall(self.answer)
            for _ in range(150):  # 30 s at most
                if self.stop.is_set():
                    return
                try:
                    data = conn.recv(4096)
                except TimeoutError:
                    continue
                except OSError:
                    return
                if not data:
                    return
                self.received += data
