"""An in-memory :class:`~extensions.store.RequestStore`: for tests; proves the interface suffices.

Nothing survives the process: never use it for a real crawl (``HARVEST_STATE_STORE`` must stay the
SQLite store). Data is kept per path in a process-wide registry, so closing and reopening the same
path within one process sees the same state (as a database would); the crawl lock is process-wide
too. Claiming scans the pending rows, fine for tests, not for millions of rows.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from harvest.base.canonical import ITEM_SCHEMA_VERSION
from harvest.base.clock import utc_now
from harvest.base.close_reasons import KILLED
from harvest.base.identity import SOURCE_TYPE_PREFIX

from .store import (
    NOTICES,
    Claimed,
    CourtCheck,
    CourtPause,
    CourtRecord,
    CrawlLocked,
    ErrorFilter,
    Exchange,
    Generation,
    NewRequest,
    PageWarning,
    PartsCheck,
    RowState,
    RunInfo,
    StateError,
    Status,
    StatusReport,
    merge_court,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["MemoryRequestStore"]


@dataclasses.dataclass
class _Row:
    id: int
    key: str
    kind: str
    court: str
    group: str | None
    status: str
    priority: int
    method: str
    url: str
    blob: bytes
    created_at: str
    updated_at: str
    attempts: int = 0
    retries: int = 0
    last_status: int | None = None
    last_error: str | None = None
    generation: int = 0
    succeeded_at: str | None = None

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "key": self.key,
            "kind": self.kind,
            "court": self.court,
            "status": self.status,
            "attempts": self.attempts,
            "url": self.url,
            "last_status": self.last_status,
            "last_error": self.last_error,
            "updated_at": self.updated_at,
        }


@dataclasses.dataclass
class _Data:
    rows: dict[int, _Row] = dataclasses.field(default_factory=dict)
    keys: dict[str, int] = dataclasses.field(default_factory=dict)
    events: list[tuple[str, int | None, int | None, str, str | None]] = dataclasses.field(
        default_factory=list
    )
    url_log: list[tuple[int | None, Exchange]] = dataclasses.field(default_factory=list)
    runs: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    locks: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    warnings: dict[int, list[PageWarning]] = dataclasses.field(default_factory=dict)
    # court -> its open groups, oldest first (dicts keep insertion order)
    open_groups: dict[str, dict[str, None]] = dataclasses.field(default_factory=dict)
    # court -> its generations, oldest first
    generations: dict[str, list[Generation]] = dataclasses.field(default_factory=dict)
    # registered courts by id, in the order first added
    courts: dict[str, CourtRecord] = dataclasses.field(default_factory=dict)
    pauses: dict[str, CourtPause] = dataclasses.field(default_factory=dict)


class MemoryRequestStore:
    """:class:`extensions.store.RequestStore` in process memory (see the module docstring)."""

    _registry: ClassVar[dict[str, _Data]] = {}
    _registry_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, data: _Data, path: str) -> None:
        self._d = data
        self.path = path
        self._held_courts: list[str] = []

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        readonly: bool = False,
        busy_timeout: float = 30.0,
        synchronous: str = "NORMAL",
        defer_commit: Callable[[Callable[[], None]], None] | None = None,
    ) -> MemoryRequestStore:
        """The process-wide state of ``path`` (busy_timeout, synchronous, defer_commit: unused,
        every change is visible at once)."""
        key = str(path)
        with cls._registry_lock:
            if key not in cls._registry:
                if readonly:
                    raise StateError(f"no request state at {key!r} in this process")
                cls._registry[key] = _Data()
            return cls(cls._registry[key], key)

    def close(self) -> None:
        self.release_crawl_lock()

    def _event(self, run_id: int | None, rid: int | None, event: str, detail: str | None) -> None:
        self._d.events.append((utc_now(), run_id, rid, event, detail))

    def _move(
        self, row: _Row, status: str, run_id: int | None, event: str, detail: str | None
    ) -> None:
        row.status = status
        row.updated_at = utc_now()
        self._event(run_id, row.id, event, detail)

    # --- lock and runs --------------------------------------------------------------------------

    def watch_closing(
        self,
        closing: Callable[[], bool],
        bound: float,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """A no-op: this store's crawl locks die with the process that holds them."""

    def acquire_crawl_lock(self, run: RunInfo) -> None:
        if run.court in self._held_courts:
            raise StateError(
                f"this store already holds the crawl lock of court {run.court!r}; release it first"
            )
        holder = self._d.locks.get(run.court)
        if holder is not None:
            raise CrawlLocked(run.court, holder, f"memory:{self.path}")
        self._d.locks[run.court] = dataclasses.asdict(run)
        self._held_courts.append(run.court)

    def release_crawl_lock(self, court: str | None = None) -> None:
        courts = list(self._held_courts) if court is None else [court]
        for name in courts:
            if name in self._held_courts:
                self._held_courts.remove(name)
                self._d.locks.pop(name, None)

    def start_run(self, run: RunInfo) -> tuple[int, list[int]]:
        dead = [r["id"] for r in self._d.runs if r["court"] == run.court and r["ended_at"] is None]
        for r in self._d.runs:
            if r["id"] in dead:
                r.update(ended_at=utc_now(), close_reason=KILLED)
        run_id = len(self._d.runs) + 1
        self._d.runs.append(
            {**dataclasses.asdict(run), "id": run_id, "ended_at": None, "close_reason": None}
        )
        for rid in dead:
            self._event(run_id, None, "run_killed", f"run {rid} never closed")
        self._event(run_id, None, "run_start", run.court)
        return run_id, dead

    def end_run(self, run_id: int, reason: str) -> None:
        self._d.runs[run_id - 1].update(ended_at=utc_now(), close_reason=reason)
        self._event(run_id, None, "run_stop", reason)

    # --- transitions ----------------------------------------------------------------------------

    def release_inflight(
        self, court: str, run_id: int, *, ids: Sequence[int] | None = None, why: str
    ) -> int:
        chosen = (
            [self._d.rows[i] for i in ids if i in self._d.rows]
            if ids is not None
            else [r for r in self._d.rows.values() if r.court == court]
        )
        moved = 0
        for row in chosen:
            if row.status == Status.INFLIGHT:
                self._move(row, Status.PENDING, run_id, "released", why)
                moved += 1
        return moved

    def add(self, req: NewRequest, run_id: int) -> int | None:
        known = self._d.keys.get(req.key)
        if known is not None:
            row = self._d.rows[known]
            if row.generation >= req.generation or row.status == Status.INFLIGHT:
                return None
            row.generation, row.blob, row.url, row.method = (
                req.generation, req.blob, req.url, req.method,
            )  # fmt: skip
            row.priority, row.group = req.priority, req.group
            row.attempts, row.retries, row.last_error = 0, 0, None
            self._move(row, Status.PENDING, run_id, "renewed", f"generation {req.generation}")
            return row.id
        rid = len(self._d.rows) + 1
        at = utc_now()
        self._d.rows[rid] = _Row(
            rid, req.key, req.kind, req.court, req.group, Status.PENDING, req.priority,
            req.method, req.url, req.blob, at, at, generation=req.generation,
        )  # fmt: skip
        self._d.keys[req.key] = rid
        self._event(run_id, rid, "enqueued", None)
        return rid

    def begin_generation(self, court: str, *, policy: str, today: str, run_id: int) -> Generation:
        if policy not in ("none", "due", "all"):
            raise ValueError(f"refresh policy {policy!r} is not one of none, due, all")
        made = self._d.generations.setdefault(court, [])
        last = made[-1] if made else None
        if last is not None and (not last.finished or policy == "none"):
            return last
        number, kind = (0, "initial") if last is None else (last.number + 1, policy)
        made.append(Generation(court, number, kind, today, utc_now(), None))
        return dataclasses.replace(made[-1], started_now=True)

    def finish_generation_if_done(self, court: str, number: int) -> bool:
        if any(
            r.court == court
            and r.generation == number
            and r.status in (Status.PENDING, Status.INFLIGHT)
            for r in self._d.rows.values()
        ):
            return False
        made = self._d.generations.get(court, [])
        for i, g in enumerate(made):
            if g.number == number and g.finished_at is None:
                made[i] = dataclasses.replace(g, finished_at=utc_now())
        return True

    def generations(self, court: str | None = None) -> list[Generation]:
        return [
            g
            for c in sorted(self._d.generations)
            if court is None or c == court
            for g in self._d.generations[c]
        ]

    def row_states(self, court: str, kind: str) -> list[RowState]:
        return [
            RowState(r.key, str(r.status), r.generation, r.succeeded_at)
            for r in self._d.rows.values()
            if r.court == court and r.kind == kind
        ]

    def claim(
        self,
        court: str,
        run_id: int,
        *,
        busy_groups: Sequence[str],
        held: Sequence[int],
        only_groups: Sequence[str] | None = None,
    ) -> Claimed | None:
        busy, allowed = set(busy_groups), set(held)
        only = set(only_groups) if only_groups is not None else None
        candidates = [
            r
            for r in self._d.rows.values()
            if r.court == court
            and r.status == Status.PENDING
            and (r.group is None or r.group not in busy or r.id in allowed)
            and (only is None or r.group in only)
        ]
        if not candidates:
            return None
        row = min(candidates, key=lambda r: (-r.priority, r.id))
        row.attempts += 1
        self._move(row, Status.INFLIGHT, run_id, "dispatched", f"attempt {row.attempts}")
        return Claimed(
            row.id,
            row.key,
            row.group,
            row.attempts,
            row.retries,
            row.blob,
            kind=row.kind,
            url=row.url,
            method=row.method,
        )

    def open_group(self, court: str, group: str, run_id: int) -> None:
        self._d.open_groups.setdefault(court, {})[group] = None

    def close_group_if_done(self, court: str, group: str) -> bool:
        if any(
            r.group == group and r.status in (Status.PENDING, Status.INFLIGHT)
            for r in self._d.rows.values()
        ):
            return False
        self._d.open_groups.get(court, {}).pop(group, None)
        return True

    def open_groups(self, court: str) -> list[str]:
        return list(self._d.open_groups.get(court, {}))

    def retry(
        self, request_id: int, run_id: int, *, url: str, priority: int, retries: int
    ) -> bool:
        row = self._d.rows.get(request_id)
        if row is None or row.status != Status.INFLIGHT:
            return False
        row.url, row.priority, row.retries = url, priority, retries
        self._move(row, Status.PENDING, run_id, "retry", url)
        return True

    def finish(
        self,
        request_id: int,
        run_id: int,
        *,
        ok: bool,
        reason: str | None = None,
        http_status: int | None = None,
        url: str | None = None,
        warnings: Sequence[PageWarning] = (),
    ) -> bool:
        row = self._d.rows.get(request_id)
        if row is None or row.status != Status.INFLIGHT:
            return False
        row.last_error = None if ok else reason
        if http_status is not None:
            row.last_status = http_status
        if url is not None:
            row.url = url
        status = Status.OK if ok else Status.ERROR
        self._move(row, status, run_id, status.value, row.last_error)
        if ok:
            row.succeeded_at = row.updated_at
            self._d.warnings.pop(request_id, None)
            if warnings:
                self._d.warnings[request_id] = list(warnings)
        return True

    def log_exchange(self, run_id: int | None, exchange: Exchange) -> None:
        self._d.url_log.append((run_id, exchange))

    def add_courts(self, courts: Sequence[CourtRecord]) -> tuple[int, int]:
        added = changed = 0
        for c in courts:
            old = self._d.courts.get(c.court)
            merged = merge_court(old, c)
            if merged is None:
                continue
            if old is None:
                self._d.courts[c.court] = dataclasses.replace(merged, added_at=utc_now())
                added += 1
            else:
                self._d.courts[c.court] = merged
                changed += 1
        return added, changed

    def courts(self) -> list[CourtRecord]:
        return list(self._d.courts.values())

    def record_court_check(self, court: str, check: CourtCheck) -> bool:
        old = self._d.courts.get(court)
        if old is None:
            return False
        self._d.courts[court] = dataclasses.replace(
            old, access=check.access, effective_base_url=check.effective_base_url,
            http_status=check.http_status, reason=check.reason, checked_at=check.checked_at,
        )  # fmt: skip
        return True

    def pause_court(self, court: str, *, reason: str, until: str, at: str) -> int:
        old = self._d.pauses.get(court)
        count = (old.pause_count if old is not None else 0) + 1
        self._d.pauses[court] = CourtPause(court, at, until, reason, count)
        self._event(None, None, "court_paused", f"{court} until {until}: {reason}")
        return count

    def resume_court(self, court: str) -> bool:
        gone = self._d.pauses.pop(court, None) is not None
        if gone:
            self._event(None, None, "court_resumed", court)
        return gone

    def court_pauses(self) -> list[CourtPause]:
        return [self._d.pauses[c] for c in sorted(self._d.pauses)]

    def commit(self) -> None:
        """Nothing to do: every change is applied as it happens."""

    def note(self, run_id: int | None, request_id: int | None, event: str, detail: str) -> None:
        if event not in NOTICES:
            raise ValueError(f"{event!r} is not a notice event (one of {', '.join(NOTICES)})")
        self._event(run_id, request_id, event, detail)

    def check_parts(
        self, items_path: Path, *, court: str | None = None, reset_run: int | None = None
    ) -> PartsCheck:
        """Row by row (fine for tests): each ok case/tab row's part looked up in the file."""
        present: set[tuple[str, str]] = set()
        items = "missing"
        if items_path.is_file():
            try:
                con = sqlite3.connect(f"{items_path.resolve().as_uri()}?mode=ro", uri=True)
                try:
                    columns = {r[1] for r in con.execute("PRAGMA table_info(parts)")}
                    # a part of an older item format counts as missing, as in the SQLite store
                    present = set(
                        con.execute(
                            "SELECT dedupe_key, part FROM parts WHERE schema_version >= ?",
                            (ITEM_SCHEMA_VERSION,),
                        )
                        if "schema_version" in columns
                        else ()
                    )
                    items = "present"
                finally:
                    con.close()
            except sqlite3.OperationalError:
                items = "empty"
            except sqlite3.DatabaseError as exc:
                raise StateError(f"the item store {str(items_path)!r} cannot be read") from exc
        missing: list[tuple[_Row, str]] = []
        for row in self._d.rows.values():
            if row.status != Status.OK or row.kind not in ("case", "tab"):
                continue
            if court is not None and row.court != court:
                continue
            rest = row.key.split("|", 2)[2]
            number, slug = rest.rsplit("|", 1) if row.kind == "tab" else (rest, "")
            part = "case" if row.kind == "case" else f"tab:{slug}"
            if (f"{SOURCE_TYPE_PREFIX}{row.court}:{number}", part) not in present:
                missing.append((row, part))
        if reset_run is not None:
            for row, part in missing:
                self._move(row, Status.PENDING, reset_run, "released", f"part {part} missing")
        return PartsCheck(
            missing=len(missing), sample=[(r.key, p) for r, p in missing[:10]], items=items
        )

    def requeue(self, flt: ErrorFilter, *, dry_run: bool = False) -> int:
        chosen = [
            r
            for r in self._d.rows.values()
            if r.status == Status.ERROR
            and (flt.kind is None or r.kind == flt.kind)
            and (flt.court is None or r.court == flt.court)
            and (flt.reason is None or flt.reason.lower() in (r.last_error or "").lower())
            and (flt.older_than is None or r.updated_at < flt.older_than)
            and (flt.ids is None or r.id in flt.ids)
        ]
        if not dry_run:
            for row in chosen:
                row.retries = 0
                self._move(row, Status.PENDING, None, "requeued", row.last_error)
        return len(chosen)

    # --- queries --------------------------------------------------------------------------------

    def has_pending(self, court: str) -> bool:
        return any(r.court == court and r.status == Status.PENDING for r in self._d.rows.values())

    def count(self, *, court: str | None = None, status: Status | None = None) -> int:
        return sum(
            1
            for r in self._d.rows.values()
            if (court is None or r.court == court) and (status is None or r.status == status)
        )

    def status_report(self, *, court: str | None = None, limit: int = 10) -> StatusReport:
        rows = [r for r in self._d.rows.values() if court is None or r.court == court]
        counts: dict[tuple[str, str, str], int] = {}
        for r in rows:
            k = (r.court, r.kind, str(r.status))
            counts[k] = counts.get(k, 0) + 1
        pending = sorted(
            (r for r in rows if r.status == Status.PENDING), key=lambda r: (r.updated_at, r.id)
        )
        errors = sorted(
            (r for r in rows if r.status == Status.ERROR),
            key=lambda r: (r.updated_at, r.id),
            reverse=True,
        )
        runs = [
            {k: r[k] for k in ("id", "court", "spider", "pid", "host", "job", "started_at",
                               "ended_at", "close_reason")}
            for r in reversed(self._d.runs)
            if court is None or r["court"] == court
        ][:limit]  # fmt: skip
        found: dict[tuple[str, str, str, str], list[Any]] = {}
        for rid, page_warnings in self._d.warnings.items():
            row = self._d.rows[rid]
            if court is not None and row.court != court:
                continue
            for w in page_warnings:
                entry = found.setdefault((row.court, w.page, w.label, w.kind), [0, 0, row.url])
                entry[0] += 1
                entry[1] += w.count
                entry[2] = row.url
        warnings = [
            {"court": c, "page": p, "label": lab, "kind": k, "pages": e[0], "count": e[1],
             "example_url": e[2]}
            for (c, p, lab, k), e in sorted(found.items(), key=lambda kv: (-kv[1][0], kv[0]))
        ][:limit]  # fmt: skip
        return StatusReport(
            warnings=warnings,
            counts=[
                {"court": c, "kind": k, "status": s, "count": n}
                for (c, k, s), n in sorted(counts.items())
            ],
            oldest_pending=[r.public() for r in pending[:limit]],
            latest_errors=[r.public() for r in errors[:limit]],
            runs=runs,
        )
