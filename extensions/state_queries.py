"""Read-only questions to the request state for the progress lines, ``scrapy status`` and its page.

Every function takes a connection opened by :func:`connect_readonly`: ``state.sqlite``
(``mode=ro``: safe while a crawl writes), or the PostgreSQL database of ``HARVEST_DATABASE_URL``
(:mod:`extensions.pg_store`, same tables and columns; read-only transactions). The SQL is
written once for both (``?`` placeholders, no dialect's own functions). Nothing here writes.

* :func:`court_progress`: cases complete / known and requests by status, per court.
* :func:`error_groups`: ``error`` rows grouped by reason (URLs and numbers in a reason made
  generic, so one cause is one group), with counts and an example URL.
* :func:`run_liveness`: whether a run without an end is alive (its holder pid runs on this host
  and still holds the court's crawl lock) or dead (killed; the next crawl takes over).
* :func:`progress_timeline` and :func:`throughput_timeline`: the page's charts.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import socket
import sqlite3
from collections import defaultdict
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from harvest.base.dburl import is_database_url, scrub
from harvest.base.scrubbing import redact_url

from .state_counts import case_totals

__all__ = [
    "CourtProgress",
    "ErrorGroup",
    "StateReader",
    "connect_readonly",
    "court_progress",
    "error_groups",
    "progress_timeline",
    "read_errors",
    "run_liveness",
    "throughput_timeline",
]

STATE_FILE = "state.sqlite"


def read_errors() -> tuple[type[Exception], ...]:
    """What reading the state may raise (either backend). A function, not a constant: the
    PostgreSQL driver (~50 ms and 24 MiB a process) is imported only where it is used, and
    ``except read_errors():`` evaluates it only once an exception is being handled."""
    import psycopg

    return (sqlite3.Error, psycopg.Error)


class _Rows(Protocol):
    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class StateReader(Protocol):
    """What the queries need of a connection (``sqlite3.Connection``, or :class:`_PgReader`)."""

    def execute(self, sql: str, parameters: Any = ..., /) -> _Rows: ...

    def close(self) -> None: ...


class _PgReader:
    """A read-only PostgreSQL connection that runs the queries' SQL (``?`` -> ``%s``);
    ``BEGIN`` opens one ``REPEATABLE READ READ ONLY`` snapshot."""

    def __init__(self, url: str) -> None:
        import psycopg

        try:
            self._conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            # the driver's message never carries the password out of here
            raise psycopg.OperationalError(
                f"cannot connect to {redact_url(url)}: {scrub(str(exc).strip(), url)}"
            ) from None

    def execute(self, sql: str, parameters: Any = (), /) -> _Rows:
        if sql == "BEGIN":
            sql = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        return self._conn.execute(sql.replace("?", "%s"), parameters)  # type: ignore[arg-type]

    def close(self) -> None:
        self._conn.close()


def connect_readonly(path: Path | str, *, timeout: float = 30.0) -> StateReader:
    """A read-only connection to an existing ``state.sqlite`` (``sqlite3.Error`` if missing),
    or to the database of a ``postgresql://`` URL (``psycopg.Error`` if unreachable)."""
    if isinstance(path, str) and is_database_url(path):
        return _PgReader(path)
    p = Path(path)
    if not p.exists():
        raise sqlite3.OperationalError(f"no request state at {str(p)!r}")
    return sqlite3.connect(
        f"{p.resolve().as_uri()}?mode=ro", uri=True, timeout=timeout, check_same_thread=False
    )


@dataclasses.dataclass(frozen=True)
class CourtProgress:
    """One court: cases (request groups) complete / known, and its requests by status."""

    court: str
    cases_known: int
    cases_complete: int
    pending: int
    inflight: int
    ok: int
    error: int

    @property
    def waiting(self) -> int:
        return self.pending + self.inflight

    @property
    def total(self) -> int:
        return self.pending + self.inflight + self.ok + self.error

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "waiting": self.waiting, "total": self.total}


def court_progress(
    conn: StateReader, court: str | None = None, *, courts: Sequence[str] | None = None
) -> list[CourtProgress]:
    """Per court (or only ``court``, or only ``courts``): a case is *known* once its detail
    request is a row and *complete* when its detail and every tab request of it are ``ok``.
    Read from the kept counts (:mod:`extensions.state_counts`): time independent of the rows."""
    wanted: Sequence[str] | None = [court] if court else courts
    where, params = "", tuple[str, ...]()
    if wanted is not None:
        where = f"WHERE court IN ({', '.join('?' * len(wanted)) or 'NULL'})"
        params = tuple(wanted)
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for c, status, n in conn.execute(
        f"SELECT court, status, sum(n) FROM request_counts {where} GROUP BY court, status",
        params,
    ):
        counts[c][status] += int(n or 0)
    cases = case_totals(conn, wanted)
    out = []
    for c in sorted(set(counts) | set(cases)):
        by = counts.get(c, {})
        known, complete = cases.get(c, (0, 0))
        out.append(
            CourtProgress(
                court=c,
                cases_known=known,
                cases_complete=complete,
                pending=by.get("pending", 0),
                inflight=by.get("inflight", 0),
                ok=by.get("ok", 0),
                error=by.get("error", 0),
            )
        )
    return out


@dataclasses.dataclass(frozen=True)
class ErrorGroup:
    """``error`` rows sharing one reason."""

    reason: str
    count: int
    example_url: str
    courts: tuple[str, ...]
    kinds: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "count": self.count,
            "example_url": self.example_url,
            "courts": list(self.courts),
            "kinds": list(self.kinds),
        }


_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![A-Za-z])\d+(?:\.\d+)?(?![A-Za-z])")
_KEEP_NUMBER = re.compile(r"^(HTTP \d{3})")


def reason_group(reason: str | None) -> str:
    """The group of a stored reason: URLs become ``<url>``, numbers ``N`` (``HTTP 503`` and
    other leading status codes are kept)."""
    text = (reason or "(no reason recorded)").strip()
    head = _KEEP_NUMBER.match(text)
    keep = head.group(1) if head else ""
    rest = _URL.sub("<url>", text[len(keep) :])
    rest = _NUMBER.sub("N", rest)
    return keep + rest


def error_groups(
    conn: StateReader, court: str | None = None, *, limit: int | None = None
) -> list[ErrorGroup]:
    """``error`` rows by reason group, most frequent first (ties by reason)."""
    where = "WHERE status = 'error'" + (" AND court = ?" if court else "")
    params = (court,) if court else ()
    merged: dict[str, dict[str, Any]] = {}
    for reason, n, url, court_id, kind in conn.execute(
        "SELECT last_error, count(*), min(url), court, kind "
        f"FROM requests {where} GROUP BY last_error, court, kind ORDER BY last_error",
        params,
    ):
        key = reason_group(reason)
        g = merged.setdefault(
            key, {"count": 0, "url": url, "first": reason, "courts": set(), "kinds": set()}
        )
        g["count"] += int(n)
        if reason == g["first"]:  # the example: the first reason's smallest URL
            g["url"] = min(g["url"], url)
        g["courts"].add(court_id)
        g["kinds"].add(kind)
    groups = [
        ErrorGroup(
            reason=k,
            count=g["count"],
            example_url=g["url"],
            courts=tuple(sorted(c for c in g["courts"] if c)),
            kinds=tuple(sorted(k2 for k2 in g["kinds"] if k2)),
        )
        for k, g in merged.items()
    ]
    groups.sort(key=lambda g: (-g.count, g.reason))
    return groups[:limit] if limit is not None else groups


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _lock_holder(workspace: Path, court: str) -> dict[str, Any]:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", court)
    try:
        record = json.loads((workspace / f"crawl-{safe}.lock").read_text() or "{}")
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def run_liveness(run: dict[str, Any], workspace: Path) -> str:
    """``ended`` (closed normally or taken over), ``live`` (its process runs on this host and its
    court's lock names it), ``dead`` (its process is gone: killed or crashed; the next crawl of
    the court takes over), or ``unknown`` (it ran on another host)."""
    if run.get("ended_at"):
        return "ended"
    if run.get("host") != socket.gethostname():
        return "unknown"
    holder = _lock_holder(workspace, str(run.get("court")))
    pid = int(run.get("pid") or 0)
    if pid and _pid_alive(pid) and holder.get("pid") == pid:
        return "live"
    return "dead"


def lease_liveness(conn: StateReader, runs: list[dict[str, Any]]) -> dict[int, str]:
    """On PostgreSQL, the state of each run from the court leases (any host): ``ended``,
    ``live`` (its lease is unexpired: it heartbeats) or ``dead`` (no lease, or expired: the
    next crawl of the court takes over)."""
    live = {
        int(run_id)
        for (run_id,) in conn.execute(
            "SELECT run_id FROM court_leases WHERE run_id IS NOT NULL AND expires_at > now()"
        )
    }
    return {
        int(r["id"]): "ended" if r.get("ended_at") else "live" if r["id"] in live else "dead"
        for r in runs
    }


def _parse_at(at: str) -> datetime:
    return datetime.fromisoformat(at).astimezone(UTC)


def progress_timeline(
    conn: StateReader, court: str | None = None, *, points: int = 60
) -> dict[str, list[tuple[str, int]]]:
    """Per court, the cumulative number of requests ``ok`` over time (at most ``points``
    samples, from the ``events`` table: each ``ok`` transition, latest state per request)."""
    where = "WHERE e.event = 'ok'" + (" AND r.court = ?" if court else "")
    rows = conn.execute(
        "SELECT r.court, e.at FROM events e JOIN requests r ON r.id = e.request_id "
        f"{where} ORDER BY e.at",
        (court,) if court else (),
    ).fetchall()
    return _cumulative(rows, points)


def throughput_timeline(conn: StateReader, *, points: int = 60) -> list[tuple[str, int, float]]:
    """HTTP exchanges per bucket of time, from ``url_log``: ``(bucket start, exchanges,
    exchanges per minute)``, at most ``points`` buckets between the first and last exchange."""
    ats = [r[0] for r in conn.execute("SELECT at FROM url_log ORDER BY id")]
    if not ats:
        return []
    times = [_parse_at(a) for a in ats]
    start, end = min(times), max(times)
    span = max((end - start).total_seconds(), 1.0)
    n = max(1, min(points, len(times)))
    width = span / n
    buckets = [0] * n
    for t in times:
        i = min(n - 1, int((t - start).total_seconds() / width))
        buckets[i] += 1
    out = []
    for i, count in enumerate(buckets):
        at = datetime.fromtimestamp(start.timestamp() + i * width, UTC)
        out.append((at.isoformat(timespec="seconds"), count, count * 60.0 / width))
    return out


def _cumulative(rows: list[tuple[str, str]], points: int) -> dict[str, list[tuple[str, int]]]:
    by_court: dict[str, list[str]] = defaultdict(list)
    for court, at in rows:
        by_court[court].append(at)
    out: dict[str, list[tuple[str, int]]] = {}
    for court, ats in sorted(by_court.items()):
        step = max(1, len(ats) // points)
        series = [(ats[i], i + 1) for i in range(step - 1, len(ats), step)]
        if series[-1][1] != len(ats):
            series.append((ats[-1], len(ats)))
        out[court] = series
    return out
