"""The JavaScript gate (``--challenge``): a page whose script computes a clearance cookie and
reloads, like a Cloudflare/WAF browser check (docs/sipp.md §5.3).

The cookie is bound to the User-Agent (like ``cf_clearance``) and proves that the page's script
ran: its last field is a value the script computes from numbers only the page carries.
"""

from __future__ import annotations

import os

from .tokens import TokenCodec

COOKIE = "sipp_clearance"
_MOD = 1_000_003


def _numbers(codec: TokenCodec, nonce: str) -> list[int]:
    digest = codec.sign("num:" + nonce, 32)
    return [int(digest[i : i + 4], 16) for i in range(0, 32, 4)]


def _answer(numbers: list[int]) -> str:
    value = 0
    for i, n in enumerate(numbers):
        value = (value * 31 + n * (i + 7)) % _MOD
    return _base36(value)


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


class Challenge:
    """Makes challenge scripts and checks clearance cookies for one court key."""

    def __init__(self, codec: TokenCodec) -> None:
        self._codec = codec

    def script(self, user_agent: str) -> str:
        nonce = os.urandom(8).hex()
        sig = self._codec.sign(f"clr:{nonce}:{user_agent}", 16)
        nums = ",".join(f"0x{n:x}" for n in _numbers(self._codec, nonce))
        return (
            "(function(){var a=[" + nums + "],v=0,i;"
            f"for(i=0;i<a.length;i++){{v=(v*31+a[i]*(i+7))%{_MOD};}}"
            f'document.cookie="{COOKIE}={nonce}.{sig}."+v.toString(36)+"; path=/";'
            "setTimeout(function(){location.reload();},30);})();"
        )

    def cleared(self, cookie: str | None, user_agent: str) -> bool:
        if not cookie:
            return False
        parts = cookie.split(".")
        if len(parts) != 3:
            return False
        nonce, sig, answer = parts
        if self._codec.sign(f"clr:{nonce}:{user_agent}", 16) != sig:
            return False
        return answer == _answer(_numbers(self._codec, nonce))
