"""ship.py: ship the workspace's case documents through the one idempotent door (DESIGN.md).

Reads the merged case documents of ``<workspace>/items.sqlite`` (complete ones; with
``--include-partial`` the others too, marked ``complete: false``) and POSTs each to
``<endpoint>/items`` with ``Authorization: Bearer $INGEST_TOKEN``. Every attempt is one line of
``<workspace>/ship-log.jsonl``; a document is skipped on a later run only when its latest *final*
line is ``ok`` or ``skipped-duplicate`` with the same ``content_hash``.

Three layers (docs/conventions.md section 28):

- :func:`ship` does the work over injected collaborators (transport, ship-log writer, sleep,
  clock, random source), so the retry loop is tested deterministically without sleeping;
- :func:`main` parses options, opens the workspace, and maps every expected failure to an
  :class:`ExitStatus`;
- ``python ship.py ...`` runs :func:`main`.

Files written (all ``0600``, only without ``--dry-run``): ``ship-log.jsonl`` (appended; a torn
last line is cut away at start) and ``ship-log.lock`` (holds the pid of the running shipper;
``flock`` keeps a second ``ship.py`` on the same workspace out). ``--out FILE`` writes the
would-be request bodies of a dry run. The token is never logged or written anywhere.

Imports nothing from Scrapy. Options, exit codes and the ship-log format: docs/shipping.md.
"""

from __future__ import annotations

import argparse
import enum
import fcntl
import hashlib
import json
import logging
import math
import os
import random
import re
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from types import FrameType
from typing import IO, Any, ClassVar, Protocol
from urllib.parse import urlsplit

import requests
import urllib3.exceptions
from requests.adapters import HTTPAdapter

from harvest.canonical import NotCanonicalisable, document_hash
from harvest.workspace import ITEMS_DB, SHIP_LOG, WORKSPACE_ENV, closest_scrapy_cfg
from pipelines.store import ItemStore, ItemStoreError

__all__ = [
    "Answer",
    "EndpointPool",
    "ExitStatus",
    "Outcome",
    "RequestsTransport",
    "RetryPolicy",
    "ShipLog",
    "ShipLogState",
    "ShippedIndex",
    "Summary",
    "Transport",
    "TransportError",
    "main",
    "plan",
    "read_ship_log",
    "repair_tail",
    "ship",
]

# Not ``logging.getLogger(__name__)``: run as a script, ``__name__`` is ``"__main__"``.
logger = logging.getLogger("ship")

#: Environment variables read by ``main`` (and ``harvest.workspace.WORKSPACE_ENV``).
ENDPOINT_ENV = "INGEST_URL"
TOKEN_ENV = "INGEST_TOKEN"
SHIP_LOCK = "ship-log.lock"

DEFAULT_MAX_ATTEMPTS = 6
DEFAULT_MAX_ITEM_SECONDS = 300.0
DEFAULT_BACKOFF_BASE = 0.5
DEFAULT_BACKOFF_CAP = 30.0
DEFAULT_RETRY_AFTER_CAP = 300.0
DEFAULT_BREAKER = 5
DEFAULT_CONNECT_TIMEOUT = 3.05
DEFAULT_TIMEOUT = 30.0
DEFAULT_PROGRESS_INTERVAL = 10.0

_USER_AGENT = "harvest-ship/1"
_MAX_ERROR_CHARS = 500


class ExitStatus(enum.IntEnum):
    """Exit codes of ``ship.py`` (sysexits.h numbers where one fits)."""

    OK = 0  #: every document was shipped, found unchanged, or skipped (already shipped)
    SOME_FAILED = 1  #: the run finished, but some documents were rejected or failed
    USAGE = 64  #: bad command line
    IOERR = 74  #: the ship-log cannot be written (disk full, permissions)
    TEMPFAIL = 75  #: stopped early, try again later: breaker, Retry-After too long, locked
    NOPERM = 77  #: the ingest API refused the token (401/403)
    CONFIG = 78  #: configuration: endpoint, token, workspace, or an endpoint that is no API
    INTERRUPTED = 130  #: SIGINT/SIGTERM


class Outcome(enum.StrEnum):
    """The ``outcome`` of one ship-log line."""

    OK = "ok"  #: 201 created / 200 updated (final)
    SKIPPED_DUPLICATE = "skipped-duplicate"  #: 200 unchanged (final)
    REJECTED = "rejected"  #: 400/413/422/other 4xx, or invalid before sending (final)
    RETRY = "retry"  #: a transient failure; another attempt follows (not final)
    FAILED = "failed"  #: transient failures until the attempts or time ran out (final)
    AUTH_FAILED = "auth-failed"  #: 401/403; the run stops (final)
    ABORTED = "aborted"  #: the run stopped while this document was being sent (final)


#: Outcomes whose final line means "the server holds this content": the skip rule.
SHIPPED_OUTCOMES = frozenset({Outcome.OK, Outcome.SKIPPED_DUPLICATE})


# -- errors -------------------------------------------------------------------------------------


class ShipError(Exception):
    """An expected reason to stop; ``main`` maps it to ``exit_status`` and prints the message."""

    exit_status: ClassVar[ExitStatus] = ExitStatus.CONFIG


class UsageError(ShipError):
    exit_status = ExitStatus.USAGE


class ConfigError(ShipError):
    """A setting (option, environment variable, workspace) that cannot work."""

    exit_status = ExitStatus.CONFIG


class EndpointUnusable(ConfigError):
    """Every endpoint answered like something that is not this ingest API (3xx, 404, 405...)."""


class AuthError(ShipError):
    exit_status = ExitStatus.NOPERM


class TempFail(ShipError):
    """The run stopped early; what is left stays pending for the next run."""

    exit_status = ExitStatus.TEMPFAIL


class WorkspaceLocked(TempFail):
    """Another ``ship.py`` holds the workspace's ship-log lock."""


class BreakerOpen(TempFail):
    """Too many documents in a row failed after all their retries."""


class RetryAfterTooLong(TempFail):
    """The server asked to wait longer than ``--retry-after-cap``."""


class ShipLogError(ShipError):
    exit_status = ExitStatus.IOERR


class Interrupted(ShipError):
    exit_status = ExitStatus.INTERRUPTED


# -- retry policy -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds of the per-document retry loop and the run-level breaker.

    ``max_attempts`` attempts and ``max_item_seconds`` per document; full-jitter exponential
    backoff ``U(0, min(backoff_cap, backoff_base * 2**(n-1)))`` before retry ``n``; a
    ``Retry-After`` is waited out (plus ``U(0, backoff_base)``) when at most ``retry_after_cap``,
    and stops the run otherwise; ``breaker`` documents failing in a row stop the run.
    """

    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    max_item_seconds: float = DEFAULT_MAX_ITEM_SECONDS
    backoff_base: float = DEFAULT_BACKOFF_BASE
    backoff_cap: float = DEFAULT_BACKOFF_CAP
    retry_after_cap: float = DEFAULT_RETRY_AFTER_CAP
    breaker: int = DEFAULT_BREAKER

    def __post_init__(self) -> None:
        for name in ("max_attempts", "breaker"):
            if getattr(self, name) < 1:
                raise ConfigError(f"--{name.replace('_', '-')} must be at least 1")
        for name in ("max_item_seconds", "backoff_base", "backoff_cap", "retry_after_cap"):
            value = getattr(self, name)
            if not (value >= 0 and math.isfinite(value)):
                raise ConfigError(f"--{name.replace('_', '-')} must be a number >= 0")

    def backoff(self, retry: int, rng: random.Random) -> float:
        """Full-jitter sleep before retry number ``retry`` (1 for the first retry)."""
        ceiling = min(self.backoff_cap, self.backoff_base * 2.0 ** min(retry - 1, 60))
        return rng.uniform(0.0, ceiling)


# -- transport ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """What the server answered (the parts ``ship.py`` looks at)."""

    status: int
    body: bytes = b""
    retry_after: str | None = None
    location: str | None = None


class TransportError(Exception):
    """No answer. ``connect``: the request provably never reached the server (fail over)."""

    def __init__(self, message: str, *, connect: bool) -> None:
        super().__init__(message)
        self.connect = connect


class Transport(Protocol):
    """Sends one POST; returns the answer or raises :class:`TransportError`."""

    def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> Answer: ...

    def close(self) -> None: ...


class _BearerAuth(requests.auth.AuthBase):
    """``Authorization: Bearer <token>``; its ``repr`` hides the token."""

    def __init__(self, token: str) -> None:
        self._token = token

    def __call__(self, r: requests.PreparedRequest) -> requests.PreparedRequest:
        r.headers["Authorization"] = f"Bearer {self._token}"
        return r

    def __repr__(self) -> str:
        return "_BearerAuth(<token hidden>)"


class RequestsTransport:
    """A kept-alive ``requests.Session``: no adapter retries, no redirects, explicit timeouts."""

    def __init__(
        self,
        token: str,
        *,
        endpoints: Sequence[str] = (),
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        read_timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self._session = requests.Session()
        self._auth = _BearerAuth(token)
        # The environment (proxies, CA bundle) is read once here instead of on every request
        # (requests re-scans os.environ per request, about 1 ms each); no_proxy is honoured;
        # ~/.netrc is never consulted.
        self._session.trust_env = False
        for endpoint in endpoints:
            parts = urlsplit(endpoint)
            proxies = requests.utils.get_environ_proxies(endpoint)
            proxy = proxies.get(parts.scheme) or proxies.get("all")
            if proxy:
                self._session.proxies[f"{parts.scheme}://{parts.hostname}"] = proxy
        ca_bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
        if ca_bundle:
            self._session.verify = ca_bundle
        for prefix in ("http://", "https://"):
            # max_retries=0: every attempt surfaces here and lands in the ship-log.
            self._session.mount(prefix, HTTPAdapter(max_retries=0))
        self._timeout = (connect_timeout, read_timeout)

    def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> Answer:
        # Prepared directly and sent with Session.send: Session.post would merge cookies and
        # settings on every request, which doubles the client's CPU per document.
        prepared = requests.PreparedRequest()
        prepared.prepare(method="POST", url=url, headers=dict(headers), data=body, auth=self._auth)
        try:
            response = self._session.send(prepared, timeout=self._timeout, allow_redirects=False)
            content = response.content
        except requests.exceptions.ConnectTimeout as exc:
            raise TransportError(f"connect timeout: {exc}", connect=True) from exc
        except requests.exceptions.ReadTimeout as exc:
            raise TransportError(f"read timeout after {self._timeout[1]}s", connect=False) from exc
        except requests.exceptions.ConnectionError as exc:
            reason = getattr(exc.args[0], "reason", None) if exc.args else None
            connect = isinstance(reason, urllib3.exceptions.ConnectTimeoutError)
            what = "cannot connect" if connect else "connection lost"
            raise TransportError(f"{what}: {reason or exc}", connect=connect) from exc
        except (requests.exceptions.InvalidURL, requests.exceptions.InvalidSchema) as exc:
            raise ConfigError(f"endpoint URL {url!r} is not usable: {exc}") from exc
        except requests.exceptions.RequestException as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}", connect=False) from exc
        return Answer(
            status=response.status_code,
            body=content,
            retry_after=response.headers.get("Retry-After"),
            location=response.headers.get("Location"),
        )

    def close(self) -> None:
        self._session.close()


# -- endpoints ----------------------------------------------------------------------------------


def parse_endpoints(values: Sequence[str], *, source: str) -> tuple[str, ...]:
    """Validated endpoint base URLs (no trailing ``/``), duplicates removed, order kept.

    ``source`` names where they came from (``--endpoint`` or ``INGEST_URL``) for the messages.
    Credentials in the URL are refused: the token belongs in ``INGEST_TOKEN`` only.
    """
    result: list[str] = []
    for raw in values:
        value = raw.strip()
        if not value:
            continue
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(
                f"{source}: {value!r} is not an http(s) URL; give the ingest API's base URL, "
                "e.g. http://127.0.0.1:8900 (ship.py posts to <endpoint>/items)"
            )
        if parts.username is not None or parts.password is not None:
            raise ConfigError(
                f"{source}: an endpoint must not carry credentials; put the token in "
                f"{TOKEN_ENV} and give the URL without user:password@"
            )
        if parts.query or parts.fragment:
            raise ConfigError(f"{source}: {value!r} must not have a query or fragment")
        base = value.rstrip("/")
        if base not in result:
            result.append(base)
    if not result:
        raise ConfigError(
            f"no ingest endpoint: give --endpoint URL (repeatable, in fallback order) or set "
            f"{ENDPOINT_ENV} (comma-separated)"
        )
    return tuple(result)


class EndpointPool:
    """The endpoints in fallback order, starting with the one that last worked.

    A connection failure (the request never reached the server) moves on to the next endpoint
    at once; only after every endpoint failed in a row does the caller back off. An endpoint
    that answers like something else than this API (3xx, 404, 405, 410, 421) is retired for
    the run. The endpoint a document was last shipped through is what the next run starts with
    (the ship-log remembers it).
    """

    def __init__(self, endpoints: Sequence[str], *, preferred: str | None = None) -> None:
        order = list(endpoints)
        if preferred in order:
            i = order.index(preferred)
            order = order[i:] + order[:i]
        self._live = order
        self._configured = tuple(endpoints)
        self._index = 0
        self._unreachable_streak = 0
        self.last_success: str | None = None

    @property
    def current(self) -> str:
        return self._live[self._index]

    @property
    def live(self) -> tuple[str, ...]:
        return tuple(self._live)

    def unreachable(self, endpoint: str) -> bool:
        """Record a connection failure; True when another endpoint should be tried at once."""
        self._unreachable_streak += 1
        if endpoint == self.current and len(self._live) > 1:
            self._index = (self._index + 1) % len(self._live)
            logger.warning("endpoint %s unreachable; trying %s", endpoint, self.current)
        return self._unreachable_streak % len(self._live) != 0

    def answered(self, endpoint: str) -> None:
        """The endpoint answered (any HTTP status): it is reachable."""
        self._unreachable_streak = 0

    def succeeded(self, endpoint: str) -> None:
        if endpoint != self.last_success and endpoint != self._configured[0]:
            logger.info("shipping through fallback endpoint %s", endpoint)
        self.last_success = endpoint

    def retire(self, endpoint: str, reason: str) -> None:
        """Stop using ``endpoint`` this run; raise :class:`EndpointUnusable` if none is left."""
        if endpoint in self._live:
            i = self._live.index(endpoint)
            del self._live[i]
            if self._index > i:
                self._index -= 1
            if self._index >= len(self._live):
                self._index = 0
        logger.error("endpoint %s is not usable: %s", endpoint, reason)
        if not self._live:
            raise EndpointUnusable(
                f"no usable ingest endpoint left (last: {endpoint} {reason}); check --endpoint / "
                f"{ENDPOINT_ENV}"
            )


# -- the ship-log -------------------------------------------------------------------------------

# Reading is the hot path of a re-run (a million lines must take seconds), so ship.py writes
# every line with the same member order, beginning with what the skip rule needs:
#   {"final":true,"key":"<key>","content_hash":"<hash>","outcome":"<outcome>","time":...}
# and the reader pulls (key, hash+outcome) of all final lines out of big blocks with one C-level
# findall, then lets dict.update keep the latest per key. Blocks holding anything else (keys
# with JSON escapes, lines of another writer, corrupt lines) are read line by line with json.
_FINAL_RE = re.compile(
    rb'\{"final":true,"key":"([^"\\\n]*+)","content_hash":"(sha256:.{64}","outcome":"[a-z-]*+)"'
)
#: Counts final lines whatever their member order (a quote inside a JSON string is escaped,
#: so this text only ever occurs as the member itself).
_FINAL_MARK = b'"final":true'
_OUTCOME_SEP = b'","outcome":"'
_SHIPPED_SUFFIXES = tuple(_OUTCOME_SEP + o.value.encode() for o in SHIPPED_OUTCOMES)
_BLOCK = 8 << 20


class ShippedIndex:
    """Per dedupe key, what its latest *final* ship-log line says (the skip rule's memory).

    Stored as ``{key (UTF-8): b'<content_hash>","outcome":"<outcome>'}``: exactly the bytes the
    reader finds in a line, so building it costs no per-line Python work. :meth:`pop` answers
    "which content does the server hold for this key according to the log?".
    """

    def __init__(self) -> None:
        self.finals: dict[bytes, bytes] = {}

    def record(self, key: str, content_hash: str, outcome: str) -> None:
        """Note a final line (later calls win, like later lines)."""
        value = content_hash.encode() + _OUTCOME_SEP + outcome.encode()
        self.finals[key.encode()] = value

    def pop(self, key: str) -> str | None:
        """The content hash ``key`` was last shipped with (final ``ok``/``skipped-duplicate``),
        or ``None``; forgets the key (documents come once each, so memory only shrinks)."""
        value = self.finals.pop(key.encode(), None)
        if value is None:
            return None
        for suffix in _SHIPPED_SUFFIXES:
            if value.endswith(suffix):
                return value[: -len(suffix)].decode()
        return None

    def count_shipped(self) -> int:
        return sum(1 for v in self.finals.values() if v.endswith(_SHIPPED_SUFFIXES))

    def __len__(self) -> int:
        return len(self.finals)


@dataclass
class ShipLogState:
    """What a ship-log says: the :class:`ShippedIndex`, and the endpoint that last worked.

    ``endpoint`` is the endpoint of the last final ``ok``/``skipped-duplicate`` line.
    """

    shipped: ShippedIndex = field(default_factory=ShippedIndex)
    endpoint: str | None = None
    size: int = 0
    bad_lines: int = 0
    torn_tail: int = 0


def read_ship_log(path: Path) -> ShipLogState:
    """Read a ship-log in one forward pass, in blocks (memory: the index only, plus a block).

    A last line without its newline is a torn write and is ignored (``torn_tail`` bytes). Only
    final lines matter to the skip rule: a block whose final lines are not all in ship.py's own
    form is read line by line, and there a line that is not a ship-log record is counted in
    ``bad_lines`` and skipped with a warning (never repaired). Garbage that holds no final line
    in a block that otherwise reads fast goes unnoticed; it cannot change what is skipped.
    """
    state = ShipLogState()
    try:
        f = open(path, "rb", buffering=0)  # noqa: SIM115 (closed below)
    except FileNotFoundError:
        return state
    finals = state.shipped.finals
    last_ok_line: bytes | None = None
    rest = b""
    with f:
        while True:
            block = f.read(_BLOCK)
            if not block:
                break
            if rest:
                block = rest + block
            cut = block.rfind(b"\n") + 1
            chunk, rest = block[:cut], block[cut:]
            if not chunk:
                continue
            offset = state.size
            state.size += len(chunk)
            found = _FINAL_RE.findall(chunk)
            if len(found) == chunk.count(_FINAL_MARK):
                finals.update(found)
                ok_line = _last_shipped_line(chunk)
            else:
                ok_line = _read_block_slowly(chunk, state, offset=offset)
            if ok_line is not None:
                last_ok_line = ok_line
    state.torn_tail = len(rest)
    if state.bad_lines > 3:
        logger.warning(
            "ship-log %s: %d lines in all are not ship-log records", path, state.bad_lines
        )
    if last_ok_line is not None:
        record = _parse_record(last_ok_line)
        endpoint = record.get("endpoint") if record is not None else None
        state.endpoint = endpoint if isinstance(endpoint, str) else None
    return state


def _last_shipped_line(chunk: bytes) -> bytes | None:
    """The last line of ``chunk`` with a final ``ok``/``skipped-duplicate`` outcome."""
    pos = max(chunk.rfind(suffix + b'"') for suffix in _SHIPPED_SUFFIXES)
    if pos < 0:
        return None
    start = chunk.rfind(b"\n", 0, pos) + 1
    end = chunk.find(b"\n", pos)
    return chunk[start : end + 1]


def _read_block_slowly(chunk: bytes, state: ShipLogState, *, offset: int) -> bytes | None:
    """Line by line with json: member order free, escapes decoded, bad lines counted."""
    last_ok_line: bytes | None = None
    for line in chunk.splitlines(keepends=True):
        record = _parse_record(line)
        if record is None:
            state.bad_lines += 1
            if state.bad_lines <= 3:
                logger.warning(
                    "ship-log line at byte %d is not a ship-log record; skipped (not repaired)",
                    offset,
                )
            offset += len(line)
            continue
        offset += len(line)
        if record["final"] is not True:
            continue
        state.shipped.record(record["key"], record["content_hash"], record["outcome"])
        if record["outcome"] in SHIPPED_OUTCOMES:
            last_ok_line = line
    return last_ok_line


def _parse_record(line: bytes) -> dict[str, Any] | None:
    """A ship-log record (any member order) or ``None`` for anything else."""
    try:
        record = json.loads(line)
    except ValueError:
        return None
    if not (
        isinstance(record, dict)
        and isinstance(record.get("key"), str)
        and isinstance(record.get("content_hash"), str)
        and isinstance(record.get("outcome"), str)
        and isinstance(record.get("final"), bool)
    ):
        return None
    return record


def _line_is_record(line: bytes) -> bool:
    return line.endswith(b"\n") and _parse_record(line) is not None


def repair_tail(path: Path) -> int:
    """Cut a torn tail off the ship-log; return the number of bytes cut (0: nothing to do).

    What a crash can leave at the end is cut: bytes after the last newline (a write that did not
    finish, NUL bytes), and then the last complete line if it is not a ship-log record. Nothing
    before that is ever touched: a bad line further up is mid-file corruption, which the reader
    skips with a warning. The cut is fsynced. Call under the workspace lock only.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return 0
    try:
        size = os.fstat(fd).st_size
        end = size
        if end and os.pread(fd, 1, end - 1) != b"\n":
            end = _line_start(fd, end)  # the unterminated rest
        if end:
            start = _line_start(fd, end)
            if not _line_is_record(os.pread(fd, end - start, start)):
                end = start
        if end < size:
            os.ftruncate(fd, end)
            os.fsync(fd)
        return size - end
    finally:
        os.close(fd)


def _line_start(fd: int, end: int) -> int:
    """Offset where the line ending at ``end`` (exclusive, newline included) starts."""
    pos = end - 1  # skip the line's own newline, if any
    chunk = 64 * 1024
    while pos > 0:
        lo = max(0, pos - chunk)
        block = os.pread(fd, pos - lo, lo)
        nl = block.rfind(b"\n")
        if nl >= 0:
            return lo + nl + 1
        pos = lo
    return 0


class ShipLog:
    """The append-only ship-log writer: one ``os.write`` per line, fsync after final lines."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd

    @classmethod
    def open(cls, path: Path) -> ShipLog:
        """Open ``path`` for appending (created ``0600``; the directory fsynced on creation)."""
        existed = path.exists()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
            os.fchmod(fd, 0o600)
            if not existed:
                _fsync_dir(path.parent)
        except OSError as exc:
            raise ShipLogError(f"cannot open ship-log {str(path)!r}: {exc.strerror}") from exc
        return cls(path, fd)

    def write(self, record: Mapping[str, Any], *, sync: bool) -> None:
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        try:
            written = os.write(self._fd, line)
            if written != len(line):
                raise OSError(0, f"short write ({written} of {len(line)} bytes; disk full?)")
            if sync:
                os.fsync(self._fd)
        except OSError as exc:
            raise ShipLogError(
                f"cannot write ship-log {str(self.path)!r}: {exc.strerror}; nothing after this "
                "was sent (free space or fix permissions, then run again)"
            ) from exc

    def close(self) -> None:
        os.close(self._fd)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class WorkspaceLock:
    """``flock`` on ``<workspace>/ship-log.lock``: one ``ship.py`` per workspace at a time.

    The lock goes away with the process (even on ``kill -9``): there is no stale lock to clean.
    The file holds the holder's pid, for the refusal message only.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise ShipLogError(
                f"cannot open lock file {str(self.path)!r}: {exc.strerror}"
            ) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise WorkspaceLocked(
                f"another ship.py (pid {holder}) is shipping this workspace "
                f"({self.path.parent}); wait for it to finish or stop it, then run again"
            ) from exc
        os.fchmod(fd, 0o600)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


# -- documents ----------------------------------------------------------------------------------

_DOCUMENT_MEMBERS: dict[str, type] = {
    "dedupe_key": str,
    "source_type": str,
    "source_id": str,
    "schema_version": int,
    "content_hash": str,
    "complete": bool,
    "case": dict,
    "tabs": dict,
}


def document_problems(document: Mapping[str, Any]) -> list[str]:
    """Why a document cannot be sent as it is (empty: it can). Checked before every POST."""
    problems = [
        f"{name} must be a {kind.__name__}"
        for name, kind in _DOCUMENT_MEMBERS.items()
        if not isinstance(document.get(name), kind)
    ]
    if problems:
        return problems
    if document["dedupe_key"] != f"{document['source_type']}:{document['source_id']}":
        problems.append("dedupe_key is not source_type:source_id")
    try:
        actual = document_hash(dict(document))
    except NotCanonicalisable as exc:
        return [*problems, f"not canonical JSON: {exc}"]
    if actual != document["content_hash"]:
        problems.append(f"content_hash {document['content_hash']} does not match {actual}")
    return problems


def encode(document: Mapping[str, Any]) -> bytes:
    """The request body: compact UTF-8 JSON of the document."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def idempotency_key(key: str, content_hash: str) -> str:
    """A per-operation key (an RFC 8941 sf-string): the same for the same key and content."""
    token = hashlib.sha256(f"{key}@{content_hash}".encode()).hexdigest()[:32]
    return f'"{token}"'


# -- the run ------------------------------------------------------------------------------------


@dataclass
class Summary:
    """Counts of one run; ``stopped`` says why it ended early, if it did."""

    total: int | None = None
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: int = 0
    failed: int = 0
    skipped: int = 0
    attempts: int = 0
    retries: int = 0
    stopped: str | None = None

    @property
    def shipped(self) -> int:
        return self.created + self.updated

    @property
    def processed(self) -> int:
        return self.shipped + self.unchanged + self.rejected + self.failed + self.skipped

    def line(self, elapsed: float) -> str:
        rate = self.processed / elapsed if elapsed > 0 else 0.0
        return (
            f"shipped {self.shipped} (created {self.created}, updated {self.updated}), "
            f"unchanged {self.unchanged}, rejected {self.rejected}, failed {self.failed}, "
            f"skipped {self.skipped}; {self.attempts} requests, {self.retries} retries, "
            f"{elapsed:.1f}s, {rate:.1f} documents/s"
        )


class _Kind(enum.Enum):
    SHIPPED = "shipped"
    DUPLICATE = "duplicate"
    REJECT = "reject"
    AUTH = "auth"
    RETRY = "retry"
    ENDPOINT = "endpoint"
    CLIENT_BUG = "client-bug"


@dataclass(frozen=True)
class _Verdict:
    kind: _Kind
    result: str | None = None
    error: str | None = None
    retry_after: str | None = None


def _problem_text(body: bytes) -> str:
    """A short text of an RFC 9457 problem body (title/detail and each ``errors`` entry)."""
    try:
        problem = json.loads(body)
    except ValueError:
        return body[:200].decode("utf-8", "replace")
    if not isinstance(problem, dict):
        return str(problem)[:200]
    text = str(problem.get("detail") or problem.get("title") or "")
    errors = problem.get("errors")
    if isinstance(errors, list) and errors:
        parts = [
            f"{e.get('pointer', '?')} {e.get('detail', '')}".strip()
            for e in errors
            if isinstance(e, dict)
        ]
        text = f"{text}: {'; '.join(parts)}" if text else "; ".join(parts)
    return text


def classify(answer: Answer) -> _Verdict:
    """What an answer means under the ingest contract (DESIGN.md table)."""
    status = answer.status
    if 200 <= status < 300:
        result: Any = None
        try:
            payload = json.loads(answer.body)
            result = payload.get("result") if isinstance(payload, dict) else None
        except ValueError:
            pass
        if result == "unchanged":
            return _Verdict(_Kind.DUPLICATE, result="unchanged")
        if result in ("created", "updated"):
            return _Verdict(_Kind.SHIPPED, result=result)
        guess = "created" if status == 201 else None
        return _Verdict(
            _Kind.SHIPPED, result=guess, error=f"{status} without a known result: {result!r}"
        )
    if status in (401, 403):
        return _Verdict(_Kind.AUTH, error=f"{status} {_problem_text(answer.body)}".strip())
    if status in (408, 409, 425, 429) or status >= 500:
        return _Verdict(
            _Kind.RETRY,
            error=f"{status} {_problem_text(answer.body)}".strip(),
            retry_after=answer.retry_after,
        )
    if 300 <= status < 400:
        return _Verdict(
            _Kind.ENDPOINT,
            error=f"answered {status} (redirect to {answer.location or '?'}); POSTs are never "
            "redirected: point the endpoint at the new address",
        )
    if status in (404, 405, 410, 421):
        return _Verdict(
            _Kind.ENDPOINT, error=f"answered {status} to POST /items: not an ingest API there"
        )
    if status in (411, 415):
        return _Verdict(_Kind.CLIENT_BUG, error=f"{status} {_problem_text(answer.body)}".strip())
    if 400 <= status < 500:
        return _Verdict(_Kind.REJECT, error=f"{status} {_problem_text(answer.body)}".strip())
    return _Verdict(_Kind.RETRY, error=f"unexpected status {status}")


def parse_retry_after(value: str | None, *, now: float) -> float | None:
    """Seconds to wait for a ``Retry-After`` (delay-seconds or HTTP-date); None if absent/bad."""
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return max(0.0, when.timestamp() - now)
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _iso(ts: float) -> str:
    return (
        datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    )


def _clip(text: str | None, secret: str | None) -> str | None:
    if text is None:
        return None
    if secret:
        text = text.replace(secret, "<token>")
    return text if len(text) <= _MAX_ERROR_CHARS else text[: _MAX_ERROR_CHARS - 1] + "…"


class _Shipper:
    """One run of :func:`ship`: the per-document attempt loop and the run-level guards."""

    def __init__(
        self,
        *,
        transport: Transport,
        log: ShipLog,
        policy: RetryPolicy,
        endpoints: EndpointPool,
        summary: Summary,
        sleep: Callable[[float], None],
        clock: Callable[[], float],
        now: Callable[[], float],
        rng: random.Random,
        secret: str | None,
    ) -> None:
        self.transport = transport
        self.log = log
        self.policy = policy
        self.endpoints = endpoints
        self.summary = summary
        self.sleep = sleep
        self.clock = clock
        self.now = now
        self.rng = rng
        self.secret = secret
        self.failed_in_a_row = 0

    def record(
        self,
        *,
        key: str,
        content_hash: str,
        attempt: int,
        endpoint: str | None,
        outcome: Outcome,
        final: bool,
        status: int | None = None,
        result: str | None = None,
        error: str | None = None,
        ms: int = 0,
        retry_in_ms: int | None = None,
    ) -> None:
        # Member order is fixed: read_ship_log's fast path relies on it (final, key,
        # content_hash, outcome first).
        line: dict[str, Any] = {
            "final": final,
            "key": key,
            "content_hash": content_hash,
            "outcome": outcome.value,
            "time": _iso(self.now()),
            "attempt": attempt,
            "endpoint": endpoint,
            "status": status,
            "result": result,
            "error": _clip(error, self.secret),
            "ms": ms,
        }
        if retry_in_ms is not None:
            line["retry_in_ms"] = retry_in_ms
        self.log.write(
            line,
            sync=final,
        )

    def send(self, document: Mapping[str, Any]) -> Outcome:
        """POST one document until a final outcome; raises to stop the whole run."""
        key: str = document["dedupe_key"]
        content_hash: str = document["content_hash"]
        problems = document_problems(document)
        if problems:
            error = "invalid before sending: " + "; ".join(problems)
            logger.warning("rejected %s: %s", key, error)
            self.record(
                key=key,
                content_hash=content_hash,
                attempt=0,
                endpoint=None,
                outcome=Outcome.REJECTED,
                final=True,
                error=error,
            )
            self.summary.rejected += 1
            return Outcome.REJECTED
        body = encode(document)
        headers = {
            "Content-Type": "application/json",
            "Idempotency-Key": idempotency_key(key, content_hash),
            "User-Agent": _USER_AGENT,
        }
        started = self.clock()
        attempt = 0
        retry_no = 0
        while True:
            attempt += 1
            endpoint = self.endpoints.current
            status: int | None = None
            failover_now = False
            t0 = self.clock()
            self.summary.attempts += 1
            try:
                answer = self.transport.post(endpoint + "/items", body, headers)
            except TransportError as exc:
                verdict = _Verdict(_Kind.RETRY, error=str(exc))
                if exc.connect:
                    failover_now = self.endpoints.unreachable(endpoint)
            except (KeyboardInterrupt, Interrupted):
                self.record(
                    key=key,
                    content_hash=content_hash,
                    attempt=attempt,
                    endpoint=endpoint,
                    outcome=Outcome.ABORTED,
                    final=True,
                    error="interrupted while sending",
                    ms=int((self.clock() - t0) * 1000),
                )
                raise
            else:
                status = answer.status
                self.endpoints.answered(endpoint)
                verdict = classify(answer)
            ms = int((self.clock() - t0) * 1000)
            common: dict[str, Any] = {
                "key": key,
                "content_hash": content_hash,
                "attempt": attempt,
                "endpoint": endpoint,
                "status": status,
                "ms": ms,
            }
            kind = verdict.kind
            if kind in (_Kind.SHIPPED, _Kind.DUPLICATE):
                shipped = kind is _Kind.SHIPPED
                outcome = Outcome.OK if shipped else Outcome.SKIPPED_DUPLICATE
                self.record(
                    **common,
                    outcome=outcome,
                    final=True,
                    result=verdict.result,
                    error=verdict.error,
                )
                self.endpoints.succeeded(endpoint)
                if not shipped:
                    self.summary.unchanged += 1
                elif verdict.result == "updated":
                    self.summary.updated += 1
                else:
                    self.summary.created += 1
                self.failed_in_a_row = 0
                return outcome
            if kind is _Kind.REJECT:
                self.record(**common, outcome=Outcome.REJECTED, final=True, error=verdict.error)
                logger.warning("rejected %s: %s", key, _clip(verdict.error, self.secret))
                self.summary.rejected += 1
                self.failed_in_a_row = 0
                return Outcome.REJECTED
            if kind is _Kind.AUTH:
                self.record(**common, outcome=Outcome.AUTH_FAILED, final=True, error=verdict.error)
                raise AuthError(
                    f"the ingest API at {endpoint} refused the token ({verdict.error}); set "
                    f"{TOKEN_ENV} to a valid token with ingest scope and run again"
                )
            if kind is _Kind.CLIENT_BUG:
                self.record(**common, outcome=Outcome.ABORTED, final=True, error=verdict.error)
                raise ConfigError(
                    f"the ingest API at {endpoint} does not accept what ship.py sends "
                    f"({verdict.error}); is it the ingest API of DESIGN.md?"
                )
            if kind is _Kind.ENDPOINT:
                self.record(**common, outcome=Outcome.RETRY, final=False, error=verdict.error)
                try:
                    self.endpoints.retire(endpoint, verdict.error or "")
                except EndpointUnusable:
                    self.record(**common, outcome=Outcome.ABORTED, final=True, error=verdict.error)
                    raise
                continue
            # transient: wait and retry, or give up on this document
            wait: float
            retry_no += 1
            ra = parse_retry_after(verdict.retry_after, now=self.now())
            if ra is not None and ra > self.policy.retry_after_cap:
                self.record(**common, outcome=Outcome.ABORTED, final=True, error=verdict.error)
                raise RetryAfterTooLong(
                    f"the ingest API at {endpoint} asked to wait {ra:.0f}s (Retry-After), more "
                    f"than --retry-after-cap {self.policy.retry_after_cap:g}s; run again later"
                )
            if ra is not None:
                wait = ra + self.rng.uniform(0.0, self.policy.backoff_base)
            elif failover_now:
                wait = 0.0
            else:
                wait = self.policy.backoff(retry_no, self.rng)
            spent = self.clock() - started
            if attempt >= self.policy.max_attempts or spent + wait > self.policy.max_item_seconds:
                error = f"gave up after {attempt} attempts in {spent:.1f}s: {verdict.error}"
                self.record(**common, outcome=Outcome.FAILED, final=True, error=error)
                logger.error("failed %s: %s", key, _clip(error, self.secret))
                self.summary.failed += 1
                self.failed_in_a_row += 1
                if self.failed_in_a_row >= self.policy.breaker:
                    raise BreakerOpen(
                        f"{self.failed_in_a_row} documents in a row failed after all retries "
                        f"(last: {_clip(verdict.error, self.secret)}); the ingest API seems down "
                        "or overloaded: the rest stays pending, run again later"
                    )
                return Outcome.FAILED
            self.record(
                **common,
                outcome=Outcome.RETRY,
                final=False,
                error=verdict.error,
                retry_in_ms=int(wait * 1000),
            )
            self.summary.retries += 1
            logger.debug(
                "retrying %s in %.2fs (attempt %d: %s)",
                key,
                wait,
                attempt,
                _clip(verdict.error, self.secret),
            )
            if wait > 0:
                self.sleep(wait)


def ship(
    documents: Iterable[Mapping[str, Any]],
    *,
    transport: Transport,
    log: ShipLog,
    policy: RetryPolicy,
    endpoints: EndpointPool,
    shipped: ShippedIndex,
    summary: Summary | None = None,
    limit: int | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    now: Callable[[], float] = time.time,
    rng: random.Random | None = None,
    progress: Callable[[Summary], None] | None = None,
    secret: str | None = None,
) -> Summary:
    """Ship ``documents`` (in order), skipping those ``shipped`` says went out with their hash.

    ``shipped`` comes from :func:`read_ship_log`; its entries are consumed as documents go by,
    so memory only shrinks during a run.
    ``limit`` bounds how many documents are *sent* (skipped ones do not count). Every attempt
    is a ship-log line; a final line is fsynced after the server answered.

    Returns the :class:`Summary` (the one passed in, updated in place, so a caller still has
    the counts when this raises). Raises :class:`AuthError` (401/403), :class:`BreakerOpen`,
    :class:`RetryAfterTooLong`, :class:`EndpointUnusable`, :class:`ConfigError` (415/411) or
    :class:`ShipLogError`; the document in flight then has an ``auth-failed``/``aborted`` line.
    """
    summary = summary if summary is not None else Summary()
    shipper = _Shipper(
        transport=transport,
        log=log,
        policy=policy,
        endpoints=endpoints,
        summary=summary,
        sleep=sleep,
        clock=clock,
        now=now,
        rng=rng if rng is not None else random.Random(),
        secret=secret,
    )
    sent = 0
    for document in documents:
        key = document.get("dedupe_key")
        content_hash = document.get("content_hash")
        previous = shipped.pop(key) if isinstance(key, str) else None
        if previous is not None and previous == content_hash:
            summary.skipped += 1
            if progress is not None:
                progress(summary)
            continue
        if limit is not None and sent >= limit:
            break
        sent += 1
        if not isinstance(key, str) or not isinstance(content_hash, str):
            logger.error("a document without dedupe_key/content_hash cannot be shipped: skipped")
            summary.rejected += 1
            continue
        shipper.send(document)
        if progress is not None:
            progress(summary)
    return summary


@dataclass
class Plan:
    """What a dry run found."""

    new: int = 0
    changed: int = 0
    skip: int = 0
    invalid: int = 0

    @property
    def send(self) -> int:
        return self.new + self.changed


def plan(
    documents: Iterable[Mapping[str, Any]],
    *,
    shipped: ShippedIndex,
    limit: int | None = None,
    out: IO[bytes] | None = None,
) -> Plan:
    """The dry run: which documents a real run would send, skip or reject; nothing is sent.

    With ``out``, each would-be request body is written as one line.
    """
    result = Plan()
    for document in documents:
        key = document.get("dedupe_key")
        previous = shipped.pop(key) if isinstance(key, str) else None
        if previous is not None and previous == document.get("content_hash"):
            result.skip += 1
            continue
        if limit is not None and result.send + result.invalid >= limit:
            break
        problems = document_problems(document)
        if problems:
            result.invalid += 1
            logger.warning("would reject %s: %s", key, "; ".join(problems))
            continue
        if previous is None:
            result.new += 1
        else:
            result.changed += 1
        logger.debug("would send %s (%s)", key, "changed" if previous else "new")
        if out is not None:
            out.write(encode(document) + b"\n")
    return result


# -- progress -----------------------------------------------------------------------------------


class Progress:
    """A progress bar with rate and ETA on a terminal; plain periodic lines otherwise."""

    def __init__(
        self,
        stream: IO[str],
        *,
        total: int | None,
        tty: bool,
        interval: float = DEFAULT_PROGRESS_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.total = total
        self.tty = tty
        self.interval = interval
        self.clock = clock
        self.started = clock()
        self._last = self.started
        self._drawn = False

    def __call__(self, summary: Summary) -> None:
        t = self.clock()
        if t - self._last < (0.1 if self.tty else self.interval):
            return
        self._last = t
        if self.tty:
            self.stream.write("\r\x1b[K" + self.render(summary, t))
            self._drawn = True
        else:
            self.stream.write(self.render(summary, t) + "\n")
        self.stream.flush()

    def render(self, summary: Summary, t: float) -> str:
        done = summary.processed
        elapsed = max(t - self.started, 1e-9)
        rate = done / elapsed
        counts = (
            f"shipped {summary.shipped} unchanged {summary.unchanged} rejected "
            f"{summary.rejected} failed {summary.failed} skipped {summary.skipped} "
            f"retries {summary.retries}"
        )
        if not self.total:
            return f"{done} documents {rate:.1f}/s | {counts}"
        fraction = min(1.0, done / self.total)
        eta = (self.total - done) / rate if rate > 0 else float("inf")
        eta_text = time.strftime("%H:%M:%S", time.gmtime(eta)) if math.isfinite(eta) else "?"
        if self.tty:
            width = 24
            filled = int(fraction * width)
            bar = "#" * filled + "." * (width - filled)
            head = f"[{bar}] {done}/{self.total} {fraction:4.0%}"
        else:
            head = f"progress: {done}/{self.total} ({fraction:.0%})"
        return f"{head} {rate:.1f}/s ETA {eta_text} | {counts}"

    def clear(self) -> None:
        if self.tty and self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._drawn = False


class _ProgressAwareHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Clears the progress bar before a log line, so the two never interleave."""

    def __init__(self, stream: IO[str], progress_ref: list[Progress]) -> None:
        super().__init__(stream)
        self._progress_ref = progress_ref

    def emit(self, record: logging.LogRecord) -> None:
        for progress in self._progress_ref:
            progress.clear()
        super().emit(record)


# -- main ---------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message} (see --help)")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="ship.py",
        description="Ship the workspace's case documents to the ingest API (DESIGN.md).",
        epilog=f"The bearer token is read from {TOKEN_ENV} only. Exit codes: "
        + ", ".join(f"{s.value} {s.name.lower()}" for s in ExitStatus)
        + ". See docs/shipping.md.",
    )
    p.add_argument(
        "--workspace",
        help=f"workspace directory (default: ${WORKSPACE_ENV}, else ./workspace by scrapy.cfg)",
    )
    p.add_argument(
        "--endpoint",
        action="append",
        default=[],
        help=f"ingest API base URL; repeat for fallbacks, in order (default: ${ENDPOINT_ENV})",
    )
    p.add_argument("--include-partial", action="store_true", help="also ship incomplete cases")
    p.add_argument("--limit", type=int, help="send at most N documents this run")
    p.add_argument("--max-attempts", type=int, default=DEFAULT_MAX_ATTEMPTS)
    p.add_argument("--max-item-seconds", type=float, default=DEFAULT_MAX_ITEM_SECONDS)
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="read timeout (s)")
    p.add_argument("--connect-timeout", type=float, default=DEFAULT_CONNECT_TIMEOUT)
    p.add_argument("--backoff-base", type=float, default=DEFAULT_BACKOFF_BASE)
    p.add_argument("--backoff-cap", type=float, default=DEFAULT_BACKOFF_CAP)
    p.add_argument("--retry-after-cap", type=float, default=DEFAULT_RETRY_AFTER_CAP)
    p.add_argument(
        "--breaker",
        type=int,
        default=DEFAULT_BREAKER,
        help="stop after N documents in a row failed after all retries",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="report what would be sent; send and write nothing"
    )
    p.add_argument("--out", help="with --dry-run: write the request bodies here (- for stdout)")
    p.add_argument(
        "--progress-interval",
        type=float,
        default=DEFAULT_PROGRESS_INTERVAL,
        help="seconds between progress lines when stderr is not a terminal",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log every decision")
    p.add_argument("-q", "--quiet", action="store_true", help="warnings and errors only")
    return p


def resolve_workspace(option: str | None, env: Mapping[str, str], cwd: Path) -> Path:
    """``--workspace`` (relative to the current directory), else ``$HARVEST_WORKSPACE``
    (relative to scrapy.cfg's directory, as the crawl reads it), else ``./workspace`` beside
    scrapy.cfg."""
    if option:
        return (cwd / Path(option).expanduser()).resolve()
    raw = env.get(WORKSPACE_ENV, "")
    if raw and Path(raw).expanduser().is_absolute():
        return Path(raw).expanduser()
    cfg = closest_scrapy_cfg(cwd)
    if cfg is None:
        raise ConfigError(
            f"no workspace: give --workspace DIR or an absolute {WORKSPACE_ENV} (there is no "
            f"scrapy.cfg above {cwd} to find ./workspace beside)"
        )
    return cfg.parent / (raw or "workspace")


def _open_documents(
    workspace: Path, *, include_partial: bool
) -> tuple[Iterator[dict[str, Any]], int, Callable[[], None]]:
    if not workspace.is_dir():
        raise ConfigError(
            f"workspace {str(workspace)!r} does not exist; run a crawl first or point "
            f"--workspace / {WORKSPACE_ENV} at it"
        )
    try:
        store = ItemStore.open(workspace / ITEMS_DB, readonly=True)
        total = store.count_documents(complete_only=not include_partial)
    except ItemStoreError as exc:
        raise ConfigError(str(exc)) from exc

    def documents() -> Iterator[dict[str, Any]]:
        try:
            yield from store.iter_documents(complete_only=not include_partial)
        except ItemStoreError as exc:
            raise ConfigError(str(exc)) from exc

    return documents(), total, store.close


def _read_token(env: Mapping[str, str]) -> str:
    token = env.get(TOKEN_ENV, "").strip()
    if not token:
        raise ConfigError(f"no ingest token: set {TOKEN_ENV} to the ingest API's bearer token")
    if any(ord(c) < 0x21 or ord(c) > 0x7E for c in token):
        raise ConfigError(
            f"{TOKEN_ENV} contains spaces, control or non-ASCII characters; a bearer token is "
            "printable ASCII"
        )
    return token


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(f"stopped by signal {signal.Signals(signum).name}")


def main(argv: list[str] | None = None, *, env: Mapping[str, str] | None = None) -> int:
    """Run ``ship.py``; returns an :class:`ExitStatus` value. Never raises for expected errors."""
    env = os.environ if env is None else env
    handler: logging.Handler | None = None
    progress_ref: list[Progress] = []
    try:
        args = build_parser().parse_args(argv)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return ExitStatus.USAGE
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    handler = _ProgressAwareHandler(sys.stderr, progress_ref)
    handler.setFormatter(logging.Formatter("%(asctime)s ship %(levelname)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(
        logging.DEBUG if args.verbose else logging.WARNING if args.quiet else logging.INFO
    )
    previous_sigterm = signal.getsignal(signal.SIGTERM)
    in_main_thread = True
    try:
        signal.signal(signal.SIGTERM, _raise_interrupted)
    except ValueError:  # not the main thread (main() called from a test thread)
        in_main_thread = False
    try:
        return _run(args, env, progress_ref)
    except ShipError as exc:
        for p in progress_ref:
            p.clear()
        logger.error("%s", exc)
        return exc.exit_status
    except KeyboardInterrupt:
        logger.error("interrupted")
        return ExitStatus.INTERRUPTED
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous_sigterm)
        logger.removeHandler(handler)


def _run(args: argparse.Namespace, env: Mapping[str, str], progress_ref: list[Progress]) -> int:
    if args.out and not args.dry_run:
        raise UsageError("ship.py: --out only goes with --dry-run (see --help)")
    if args.limit is not None and args.limit < 0:
        raise UsageError("ship.py: --limit must be >= 0")
    for name in ("timeout", "connect_timeout", "progress_interval"):
        if not getattr(args, name) > 0:
            raise UsageError(f"ship.py: --{name.replace('_', '-')} must be > 0")
    policy = RetryPolicy(
        max_attempts=args.max_attempts,
        max_item_seconds=args.max_item_seconds,
        backoff_base=args.backoff_base,
        backoff_cap=args.backoff_cap,
        retry_after_cap=args.retry_after_cap,
        breaker=args.breaker,
    )
    workspace = resolve_workspace(args.workspace, env, Path.cwd())
    log_path = workspace / SHIP_LOG
    if args.dry_run:
        return _dry_run(args, env, workspace, log_path)

    if args.endpoint:
        endpoints = parse_endpoints(args.endpoint, source="--endpoint")
    else:
        endpoints = parse_endpoints(env.get(ENDPOINT_ENV, "").split(","), source=ENDPOINT_ENV)
    token = _read_token(env)
    documents, total, close_store = _open_documents(
        workspace, include_partial=args.include_partial
    )
    lock = WorkspaceLock(workspace / SHIP_LOCK)
    summary = Summary(total=total)
    started = time.monotonic()
    try:
        lock.acquire()
        cut = repair_tail(log_path)
        if cut:
            logger.warning(
                "ship-log %s ended in a torn line: cut %d bytes away (that attempt is re-sent)",
                log_path,
                cut,
            )
        t0 = time.monotonic()
        state = read_ship_log(log_path)
        shipped_before = state.shipped.count_shipped()
        logger.info(
            "ship-log: %.1f MB, %d documents shipped before (read in %.2fs); %d documents in %s",
            state.size / 1e6,
            shipped_before,
            time.monotonic() - t0,
            total,
            workspace,
        )
        if args.limit is not None:  # the run ends after --limit sends (skips come on top)
            summary.total = min(total, args.limit + shipped_before)
        pool = EndpointPool(endpoints, preferred=state.endpoint)
        if state.endpoint in endpoints and state.endpoint != endpoints[0]:
            logger.info("starting with %s, the endpoint that worked last time", state.endpoint)
        log = ShipLog.open(log_path)
        transport = RequestsTransport(
            token,
            endpoints=endpoints,
            connect_timeout=args.connect_timeout,
            read_timeout=args.timeout,
        )
        progress = Progress(
            sys.stderr,
            total=summary.total,
            tty=sys.stderr.isatty(),
            interval=args.progress_interval,
        )
        progress_ref.append(progress)
        try:
            ship(
                documents,
                transport=transport,
                log=log,
                policy=policy,
                endpoints=pool,
                shipped=state.shipped,
                summary=summary,
                limit=args.limit,
                progress=progress,
                secret=token,
            )
        except ShipError as exc:
            summary.stopped = str(exc)
            raise
        except KeyboardInterrupt:
            summary.stopped = "interrupted"
            raise
        finally:
            progress.clear()
            transport.close()
            log.close()
            print(
                ("stopped early: " if summary.stopped else "")
                + summary.line(time.monotonic() - started),
                flush=True,
            )
    finally:
        close_store()
        lock.release()
    if summary.rejected or summary.failed:
        return ExitStatus.SOME_FAILED
    return ExitStatus.OK


def _dry_run(
    args: argparse.Namespace, env: Mapping[str, str], workspace: Path, log_path: Path
) -> int:
    """Read-only: no lock taken, no file in the workspace touched, no request sent."""
    if args.endpoint:
        parse_endpoints(args.endpoint, source="--endpoint")  # validate only
    documents, total, close_store = _open_documents(
        workspace, include_partial=args.include_partial
    )
    try:
        state = read_ship_log(log_path)
        if state.torn_tail:
            logger.warning(
                "ship-log %s ends in a torn line (%d bytes) that a real run would cut away",
                log_path,
                state.torn_tail,
            )
        out: IO[bytes] | None = None
        report = sys.stdout
        if args.out == "-":
            out, report = sys.stdout.buffer, sys.stderr
        elif args.out:
            try:
                fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
            except OSError as exc:
                raise ConfigError(f"cannot write --out {args.out!r}: {exc.strerror}") from exc
            out = os.fdopen(fd, "wb")
        try:
            result = plan(documents, shipped=state.shipped, limit=args.limit, out=out)
        finally:
            if out is not None and args.out != "-":
                out.close()
            elif out is not None:
                out.flush()
    finally:
        close_store()
    print(
        f"dry run: {total} documents in {workspace}; would send {result.send} "
        f"(new {result.new}, changed {result.changed}), skip {result.skip} (already shipped "
        f"with the same content), reject {result.invalid} (invalid); nothing was sent or "
        "written to the ship-log",
        file=report,
        flush=True,
    )
    return ExitStatus.SOME_FAILED if result.invalid else ExitStatus.OK


if __name__ == "__main__":
    raise SystemExit(main())
