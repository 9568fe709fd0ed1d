"""SIPP tokens: ``base64(base64(iv + ciphertext + tag))`` with a random IV on every call.

Like CodeIgniter's ``Encrypt`` class (docs/sipp.md §1.4) a token is new on every render but
stays valid: the key is derived from the replica's seed, so tokens from an earlier run with the
same seed still decrypt after a restart. The outer layer is base64 of ASCII base64 text, so a
token matches ``[A-Za-z0-9]+={0,2}``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os

_IV = 32
_BLOCK = 32
_TAG = 8


class TokenCodec:
    """Encrypt/decrypt short strings (case ids, list parameters) into SIPP-style tokens."""

    def __init__(self, seed: int) -> None:
        self._key = hashlib.sha256(f"sipp-replica-key:{seed}".encode()).digest()

    def _stream(self, iv: bytes, length: int) -> int:
        out = b""
        counter = 0
        while len(out) < length:
            out += hashlib.blake2b(
                iv + counter.to_bytes(4, "big"), key=self._key, digest_size=64
            ).digest()
            counter += 1
        return int.from_bytes(out[:length], "big")

    def _tag(self, data: bytes) -> bytes:
        return hashlib.blake2b(data, key=self._key, digest_size=_TAG, person=b"tag").digest()

    def encrypt(self, plaintext: str) -> str:
        data = plaintext.encode()
        padded = data + b"\0" * (-len(data) % _BLOCK or (0 if data else _BLOCK))
        iv = os.urandom(_IV)
        n = len(padded)
        cipher = (int.from_bytes(padded, "big") ^ self._stream(iv, n)).to_bytes(n, "big")
        inner = base64.b64encode(iv + cipher + self._tag(iv + cipher))
        return base64.b64encode(inner).decode("ascii")

    def decrypt(self, token: str) -> str | None:
        """The plaintext, or ``None`` for anything that is not a valid token of this key."""
        try:
            inner = base64.b64decode(token.encode("ascii"), validate=True)
            raw = base64.b64decode(inner, validate=True)
        except (binascii.Error, ValueError, UnicodeEncodeError):
            return None
        if len(raw) < _IV + _BLOCK + _TAG or (len(raw) - _IV - _TAG) % _BLOCK:
            return None
        iv, cipher, tag = raw[:_IV], raw[_IV:-_TAG], raw[-_TAG:]
        if not hmac.compare_digest(tag, self._tag(iv + cipher)):
            return None
        n = len(cipher)
        plain = (int.from_bytes(cipher, "big") ^ self._stream(iv, n)).to_bytes(n, "big")
        try:
            return plain.rstrip(b"\0").decode()
        except UnicodeDecodeError:
            return None

    def sign(self, message: str, length: int = 16) -> str:
        """A hex MAC of ``message`` under this court's key (sessions, challenge cookies)."""
        return hmac.new(self._key, message.encode(), hashlib.sha256).hexdigest()[:length]
