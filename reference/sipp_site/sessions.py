"""The two SIPP sessions (docs/sipp.md §5.1).

- ``PHPSESSID``: the native PHP session, server-side: the one-shot ``enc`` value that
  ``show_*`` stores and the next ``/<controller>`` consumes, and the party-label cache that only
  a full page (``header.php``) loads. It is **not** bound to the User-Agent.
- ``ci_session``: CodeIgniter's cookie session (signed, client-side): the list sort order. It is
  bound to the User-Agent (``sess_match_useragent=TRUE``): a different UA invalidates it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import time
from collections import OrderedDict
from dataclasses import dataclass

from .tokens import TokenCodec

#: CodeIgniter's ``sess_expiration``
CI_EXPIRATION = 7200
#: Sessions kept server-side (oldest evicted first, like PHP's session GC).
MAX_PHP_SESSIONS = 200_000


@dataclass
class PhpSession:
    enc: str | None = None
    #: the detention popup's one-shot pair (``/penahanan/<id>/<name>``)
    enc_penahanan: tuple[str, str] | None = None
    #: True once a full page ran header.php in this session (labels loaded)
    warm: bool = False


class PhpSessions:
    """Server-side PHP sessions by id; created lazily, evicted oldest-first past a cap."""

    def __init__(self, cap: int = MAX_PHP_SESSIONS) -> None:
        self._store: OrderedDict[str, PhpSession] = OrderedDict()
        self._cap = cap

    @staticmethod
    def new_id() -> str:
        return os.urandom(13).hex()[:26]

    @staticmethod
    def valid_id(sid: str | None) -> bool:
        return sid is not None and 1 <= len(sid) <= 64 and sid.isalnum()

    def get(self, sid: str) -> PhpSession:
        session = self._store.get(sid)
        if session is None:
            session = PhpSession()
            self._store[sid] = session
            if len(self._store) > self._cap:
                self._store.popitem(last=False)
        else:
            self._store.move_to_end(sid)
        return session

    def __len__(self) -> int:
        return len(self._store)


@dataclass
class CiSession:
    session_id: str
    user_agent: str
    asc_desc: str = "DESC"
    last_activity: int = 0
    #: the detailed-search filter (``search_detail``): flow id, registration day range (ordinals)
    search: dict[str, int] | None = None


def _search_filter(value: object) -> dict[str, int] | None:
    if not isinstance(value, dict):
        return None
    return {str(k): int(v) for k, v in value.items() if isinstance(v, int)}


class CiSessions:
    """Encode/verify the signed ``ci_session`` cookie; invalid or other-UA -> a new session."""

    def __init__(self, codec: TokenCodec) -> None:
        self._codec = codec

    def encode(self, s: CiSession) -> str:
        payload = json.dumps(
            {
                "session_id": s.session_id,
                "user_agent": s.user_agent[:120],
                "asc_desc": s.asc_desc,
                "last_activity": s.last_activity,
                "search": s.search,
            },
            separators=(",", ":"),
        )
        body = base64.b64encode(payload.encode()).decode()
        return body + self._codec.sign("ci:" + body, 32)

    def decode(self, cookie: str | None, user_agent: str) -> CiSession | None:
        """The session in ``cookie`` if signed, unexpired and made for this User-Agent."""
        if not cookie or len(cookie) <= 32:
            return None
        body, sig = cookie[:-32], cookie[-32:]
        if self._codec.sign("ci:" + body, 32) != sig:
            return None
        try:
            data = json.loads(base64.b64decode(body, validate=True))
        except (binascii.Error, ValueError):
            return None
        if not isinstance(data, dict) or data.get("user_agent") != user_agent[:120]:
            return None
        if int(data.get("last_activity", 0)) + CI_EXPIRATION < time.time():
            return None
        return CiSession(
            session_id=str(data.get("session_id", "")),
            user_agent=user_agent,
            asc_desc="ASC" if data.get("asc_desc") == "ASC" else "DESC",
            last_activity=int(data["last_activity"]),
            search=_search_filter(data.get("search")),
        )

    @staticmethod
    def fresh(user_agent: str) -> CiSession:
        return CiSession(
            session_id=hashlib.md5(os.urandom(16)).hexdigest(),
            user_agent=user_agent,
            last_activity=int(time.time()),
        )
