"""The ship-log, ``<workspace>/ship-log.jsonl``: its reader (the skip index), its group-committing
writer, the repair of a torn tail, compaction, and the workspace lock that guards all of them.

Format and rules: docs/shipping.md, "ship-log.jsonl".
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harvest.base.clock import utc_now
from harvest.base.holder_lock import HolderLock, LockHeld
from harvest.base.workspace import open_private
from harvest.shipping.errors import SHIPPED_OUTCOMES, ShipLogError, WorkspaceLocked

__all__ = [
    "SHIP_LOCK",
    "SYNC_EVERY",
    "SYNC_SECONDS",
    "ShipLog",
    "ShipLogState",
    "ShippedIndex",
    "WorkspaceLock",
    "compact_log",
    "read_ship_log",
    "repair_tail",
]

logger = logging.getLogger(__name__)

SHIP_LOCK = "ship-log.lock"

#: The group-commit contract (docs/shipping.md): final lines are fsynced once this many are
#: unsynced, or once the oldest unsynced one is this old, and always before the run ends.
SYNC_EVERY = 128
SYNC_SECONDS = 0.5

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
#: The same written by another JSON writer (``json.dumps`` default separators).
_SPACED_FINAL_MARK = b'"final": true'
_OUTCOME_SEP = b'","outcome":"'
_SHIPPED_SUFFIXES = tuple(_OUTCOME_SEP + o.value.encode() for o in SHIPPED_OUTCOMES)
_BLOCK = 8 << 20


class ShippedIndex:
    """Per dedupe key, what its latest *final* ship-log line says (the skip rule's memory).

    Stored as ``{key (UTF-8): b'<content_hash>","outcome":"<outcome>'}``: exactly the bytes the
    reader finds in a line, so building it costs no per-line Python work. :meth:`pop` answers
    "which content has the server decided on for this key according to the log?".
    """

    def __init__(self) -> None:
        self.finals: dict[bytes, bytes] = {}

    def record(self, key: str, content_hash: str, outcome: str) -> None:
        """Note a final line (later calls win, like later lines)."""
        value = content_hash.encode() + _OUTCOME_SEP + outcome.encode()
        self.finals[key.encode()] = value

    def pop(self, key: str) -> str | None:
        """The content hash ``key`` was last shipped with (final ``ok``/``skipped-duplicate``/
        ``stale``), or ``None``; forgets the key (documents come once each, so memory only
        shrinks)."""
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

    ``endpoint`` is the endpoint of the last final ``ok``/``skipped-duplicate``/``stale`` line.
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
    with f:
        for offset, chunk in _chunks(f):
            state.size = offset + len(chunk)
            found = _FINAL_RE.findall(chunk)
            if len(found) == chunk.count(_FINAL_MARK) and _SPACED_FINAL_MARK not in chunk:
                finals.update(found)
                ok_line = _last_shipped_line(chunk)
            else:
                ok_line = _read_block_slowly(chunk, state, offset=offset)
            if ok_line is not None:
                last_ok_line = ok_line
        state.torn_tail = os.fstat(f.fileno()).st_size - state.size
    if state.bad_lines > 3:
        logger.warning(
            "ship-log %s: %d lines in all are not ship-log records", path, state.bad_lines
        )
    if last_ok_line is not None:
        record = _parse_record(last_ok_line)
        endpoint = record.get("endpoint") if record is not None else None
        state.endpoint = endpoint if isinstance(endpoint, str) else None
    return state


def _chunks(f: Any) -> Iterator[tuple[int, bytes]]:
    """``(offset, bytes)`` blocks of whole lines; an unterminated rest is never yielded."""
    rest = b""
    offset = 0
    while True:
        block = f.read(_BLOCK)
        if not block:
            return
        if rest:
            block = rest + block
        cut = block.rfind(b"\n") + 1
        chunk, rest = block[:cut], block[cut:]
        if chunk:
            yield offset, chunk
            offset += len(chunk)


def _last_shipped_line(chunk: bytes) -> bytes | None:
    """The last line of ``chunk`` with a final ``ok``/``skipped-duplicate``/``stale`` outcome."""
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
    """The append-only ship-log writer, group-committed; thread-safe.

    Every line is one ``os.write`` on an ``O_APPEND`` descriptor as soon as it is known (a
    ``kill -9`` loses nothing written). Final lines are made durable in batches: ``fsync`` once
    ``sync_every`` final lines are unsynced or the oldest of them is ``sync_seconds`` old (a
    background flusher, :meth:`start_flusher`, keeps that bound while no line comes), and on
    :meth:`flush`/:meth:`close`. ``sync_every=1`` fsyncs every final line at once.
    """

    def __init__(
        self,
        path: Path,
        fd: int,
        *,
        sync_every: int = 1,
        sync_seconds: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path
        self._fd = fd
        self.sync_every = max(1, sync_every)
        self.sync_seconds = sync_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._unsynced = 0
        self._oldest: float | None = None
        self._sealed = False
        self._closed = False
        self._error: OSError | None = None
        self._stop = threading.Event()
        self._flusher: threading.Thread | None = None
        self.syncs = 0

    @classmethod
    def open(cls, path: Path, *, sync_every: int = 1, sync_seconds: float = 0.0) -> ShipLog:
        """Open ``path`` for appending (created ``0600``; the directory fsynced on creation)."""
        existed = path.exists()
        try:
            fd = open_private(path, os.O_WRONLY | os.O_APPEND)
            if not existed:
                _fsync_dir(path.parent)
        except OSError as exc:
            raise ShipLogError(
                f"cannot open ship-log {str(path)!r}: {exc.strerror}; free space or fix "
                "permissions, then run again"
            ) from exc
        return cls(path, fd, sync_every=sync_every, sync_seconds=sync_seconds)

    def _failure(self, exc: OSError) -> ShipLogError:
        return ShipLogError(
            f"cannot write ship-log {str(self.path)!r}: {exc.strerror}; nothing after this "
            "was sent (free space or fix permissions, then run again)"
        )

    def write(self, record: Mapping[str, Any], *, sync: bool) -> None:
        """Append one line; ``sync``: a final line, durable by the group-commit bound."""
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        with self._lock:
            if self._sealed:
                return  # the run was interrupted: its in-flight documents got `aborted` lines
            try:
                if self._error is not None:
                    raise self._error
                written = os.write(self._fd, line)
                if written != len(line):
                    raise OSError(0, f"short write ({written} of {len(line)} bytes; disk full?)")
                if sync:
                    self._unsynced += 1
                    if self._oldest is None:
                        self._oldest = self._clock()
                    if self._unsynced >= self.sync_every or (
                        self._clock() - self._oldest >= self.sync_seconds
                    ):
                        self._sync_locked()
            except OSError as exc:
                self._error = exc
                raise self._failure(exc) from exc

    def _sync_locked(self) -> None:
        os.fsync(self._fd)
        self.syncs += 1
        self._unsynced = 0
        self._oldest = None

    def flush(self) -> None:
        """fsync now if any final line is unsynced."""
        with self._lock:
            if self._closed or not self._unsynced:
                return
            try:
                self._sync_locked()
            except OSError as exc:
                self._error = exc
                raise self._failure(exc) from exc

    def start_flusher(self) -> None:
        """Keep the time bound while no line comes (a daemon thread until :meth:`close`)."""
        if self._flusher is not None or self.sync_seconds <= 0:
            return

        def loop() -> None:
            while not self._stop.wait(self.sync_seconds / 4):
                with self._lock:
                    due = (
                        not self._closed
                        and self._oldest is not None
                        and self._clock() - self._oldest >= self.sync_seconds
                    )
                    if due:
                        try:
                            self._sync_locked()
                        except OSError as exc:
                            self._error = exc

        self._flusher = threading.Thread(target=loop, name="ship-log-flusher", daemon=True)
        self._flusher.start()

    def seal(self) -> None:
        """Accept no more lines (later answers of an interrupted run are dropped)."""
        with self._lock:
            self._sealed = True

    def write_sealed(self, record: Mapping[str, Any]) -> None:
        """Write a final line even when sealed (the ``aborted`` lines of an interrupt)."""
        with self._lock:
            sealed, self._sealed = self._sealed, False
        try:
            self.write(record, sync=True)
        finally:
            with self._lock:
                self._sealed = sealed

    def close(self) -> None:
        """fsync what is unsynced, stop the flusher, close. Raises :class:`ShipLogError`."""
        self._stop.set()
        if self._flusher is not None:
            self._flusher.join()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                if self._unsynced and self._error is None:
                    self._sync_locked()
            except OSError as exc:
                raise self._failure(exc) from exc
            finally:
                os.close(self._fd)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class WorkspaceLock:
    """``<workspace>/ship-log.lock``: one ``ship.py`` per workspace at a time.

    A :class:`~harvest.base.holder_lock.HolderLock`: it goes away with the process (even on
    ``kill -9``), and its record (pid, host, start time) names the holder in the refusal.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = HolderLock(path)

    def acquire(self) -> None:
        try:
            self._lock.acquire(
                {"pid": os.getpid(), "host": socket.gethostname(), "started_at": utc_now()}
            )
        except LockHeld as exc:
            raise WorkspaceLocked(
                f"another ship.py (pid {exc.holder.get('pid', 'unknown')}) is shipping this "
                f"workspace ({self.path.parent}); wait for it to finish or stop it, then run again"
            ) from None
        except OSError as exc:
            self.release()
            raise ShipLogError(
                f"cannot write lock file {str(self.path)!r}: {exc.strerror}; free space or fix "
                "permissions, then run again"
            ) from None

    def release(self) -> None:
        with contextlib.suppress(OSError):
            self._lock.release()


@dataclass
class Compaction:
    """What :func:`compact_log` did."""

    lines_before: int = 0
    lines_after: int = 0
    bytes_before: int = 0
    bytes_after: int = 0


def compact_log(path: Path) -> Compaction:
    """Rewrite the ship-log to one line per key: its latest final line, if that line says the
    server has the content (``ok``/``skipped-duplicate``/``stale``); keys whose latest final
    line is anything else, retry lines and lines that are not records are dropped. The kept
    lines stay byte for byte and in their order, so the skip set and the endpoint that last
    worked read the same. Written to a ``0600`` temporary file beside it, fsynced, renamed over
    the log, the directory fsynced: a crash leaves the old log or the new one, never a mix.
    Call under the workspace lock, after :func:`repair_tail`.
    """
    result = Compaction()
    latest: dict[bytes, int] = {}  # key -> offset of its latest final line
    shipped_at: set[int] = set()
    try:
        f = open(path, "rb", buffering=0)  # noqa: SIM115 (closed below)
    except FileNotFoundError:
        return result
    with f:
        for offset, line in _lines(f):
            result.lines_before += 1
            found = _key_outcome(line)
            if found is None:
                continue
            key, shipped = found
            previous = latest.get(key)
            if previous is not None:
                shipped_at.discard(previous)
            latest[key] = offset
            if shipped:
                shipped_at.add(offset)
        result.bytes_before = os.fstat(f.fileno()).st_size
        del latest
        tmp = path.with_name(path.name + ".compact")
        try:
            fd = open_private(tmp, os.O_WRONLY | os.O_TRUNC)
            try:
                f.seek(0)
                buffer: list[bytes] = []
                size = 0
                for offset, line in _lines(f):
                    if offset in shipped_at:
                        buffer.append(line)
                        size += len(line)
                        result.lines_after += 1
                        if size >= 1 << 20:
                            _write_all(fd, b"".join(buffer))
                            buffer, size = [], 0
                _write_all(fd, b"".join(buffer))
                os.fsync(fd)
                result.bytes_after = os.fstat(fd).st_size
            finally:
                os.close(fd)
            os.replace(tmp, path)
            _fsync_dir(path.parent)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise ShipLogError(
                f"cannot compact ship-log {str(path)!r}: {exc.strerror}; the log is unchanged "
                "(free space or fix permissions, then run again)"
            ) from exc
    return result


def _lines(f: Any) -> Iterator[tuple[int, bytes]]:
    for offset, chunk in _chunks(f):
        for line in chunk.splitlines(keepends=True):
            yield offset, line
            offset += len(line)


def _key_outcome(line: bytes) -> tuple[bytes, bool] | None:
    """``(key, shipped)`` of a final line, ``None`` for any other line."""
    match = _FINAL_RE.match(line)
    if match is not None:
        return match.group(1), match.group(2).endswith(_SHIPPED_SUFFIXES)
    if _FINAL_MARK not in line and _SPACED_FINAL_MARK not in line:
        return None
    record = _parse_record(line)
    if record is None or record["final"] is not True:
        return None
    return record["key"].encode(), record["outcome"] in SHIPPED_OUTCOMES


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
