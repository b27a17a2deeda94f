"""The profile proofs of the handshake (docs/protocol.md section 4), one
definition for both sides: what a host keeps of a key, the `hello` proof,
protocol 3's per-host key and the legacy `register` proof."""

from __future__ import annotations

import hashlib
import hmac


def profile_verifier(key: str) -> str:
    """What a host keeps of a profile's key (`lanmatch.store.db.key_hash`):
    SHA-256 of "lanmatch-profile:" + key, lowercase hex."""
    return hashlib.sha256(f"lanmatch-profile:{key}".encode()).hexdigest()


def hello_proof(verifier: str, nonce: str) -> str:
    """The proof of a protocol-2/3 `hello`: HMAC-SHA256 under the verifier's
    bytes of "lanmatch-hello:" + the host frame's nonce, lowercase hex."""
    return hmac.new(bytes.fromhex(verifier), f"lanmatch-hello:{nonce}".encode(), hashlib.sha256).hexdigest()


def host_key(key: str, fingerprint: str) -> str:
    """The profile's key at one host (protocol 3): HMAC-SHA256 of
    "lanmatch-host-key:" + the host's certificate fingerprint under the
    profile's own key, lowercase hex. No host learns a key (or a verifier)
    worth anything at another host."""
    return hmac.new(key.encode(), f"lanmatch-host-key:{fingerprint}".encode(), hashlib.sha256).hexdigest()


def rekey_proof(verifier: str, nonce: str, fingerprint: str, new: str) -> str:
    """Protocol 3's move of a profile kept under its protocol-1/2 key to the
    per-host key: HMAC-SHA256 of "lanmatch-rekey:" + nonce + ":" + the host's
    certificate fingerprint + ":" + the new verifier, under the old verifier's
    bytes. Bound to this host and this connection, it is worth nothing to
    anyone who relays it."""
    msg = f"lanmatch-rekey:{nonce}:{fingerprint}:{new}".encode()
    return hmac.new(bytes.fromhex(verifier), msg, hashlib.sha256).hexdigest()
