"""The SQLite request-state store: ``<workspace>/state.sqlite`` and the per-court crawl locks.

Files written (an implementation detail, like Scrapy's JOBDIR layout; query them read-only):

* ``state.sqlite`` (+ ``-wal``/``-shm``): tables ``requests``, ``url_log``, ``events``, ``runs``,
  ``parse_warnings`` (schema below, ``PRAGMA user_version`` = :data:`SCHEMA_VERSION`; a
  version 1 file gains ``parse_warnings`` when first opened for writing), mode ``0600``.
* ``crawl-<court>.lock``: an ``flock`` held by the live crawl of that court, holding its pid,
  host, start time, scrapyd job and run id as JSON. The OS drops the lock when the process dies,
  so a killed crawl never blocks the next one.

WAL with ``synchronous=NORMAL``: a committed transition survives any crash of the process (only
an OS crash or power loss may roll back the last commits). Every method commits before it
returns, unless the store was opened with ``defer_commit`` (group commit, see
:meth:`SqliteRequestStore.open`).
The database holds pickled requests: treat the workspace like code (it is ``0700``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harvest.base.canonical import ITEM_SCHEMA_VERSION
from harvest.base.clock import utc_now
from harvest.base.close_reasons import KILLED
from harvest.base.holder_lock import HolderLock, LockHeld
from harvest.base.identity import SOURCE_TYPE_PREFIX
from harvest.base.workspace import private_file, secure_sqlite_files

from .state_counts import ensure_sqlite, sqlite_statements
from .store import (
    COURT_ACCESS_COLUMNS,
    COURT_COLUMNS,
    NOTICES,
    REQUEST_FORMAT,
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
    court_record,
    merge_court,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

__all__ = ["SCHEMA", "SCHEMA_ADDITIONS", "SCHEMA_VERSION", "SqliteRequestStore"]

SCHEMA_VERSION = 3
#: Versions this code opens: 1 (before ``parse_warnings``) and 2 (before generations) are
#: upgraded on a writable open and read as "no warnings" / "generation 0 only" on a read-only
#: one.
_READABLE_VERSIONS = (1, 2, SCHEMA_VERSION)
#: SQLite page cache per connection (KiB): keeps the indexes of a million rows hot, bounded.
CACHE_KIB = 32768
#: WAL pages between automatic checkpoints (SQLite's default is 1000).
WAL_CHECKPOINT_PAGES = 10000

#: Partial index of the notices (created on every writable open, so older files get it too).
NOTICE_INDEX = (
    "CREATE INDEX IF NOT EXISTS events_notice ON events (event, id) WHERE event IN ("
    + ", ".join(f"'{e}'" for e in NOTICES)
    + ");"
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS requests (
    id          INTEGER PRIMARY KEY,
    key         TEXT NOT NULL UNIQUE,          -- meta["harvest_key"] or other|<court>|<fp hex>
    kind        TEXT NOT NULL,                 -- list | case | tab | other
    court       TEXT NOT NULL,
    group_key   TEXT,                          -- meta["harvest_group"]
    status      TEXT NOT NULL CHECK (status IN ('pending', 'inflight', 'ok', 'error')),
    priority    INTEGER NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,    -- dispatches: the first and each retry
    retries     INTEGER NOT NULL DEFAULT 0,    -- meta["retry_times"] carried across restarts
    method      TEXT NOT NULL,
    url         TEXT NOT NULL,                 -- current URL (where redirects led, at the outcome)
    last_status INTEGER,                       -- HTTP status of the final response
    last_error  TEXT,                          -- reason of the error (status 'error')
    request     BLOB NOT NULL,                 -- pickle of Request.to_dict(spider=...)
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    run_id      INTEGER,                       -- last run that changed the row
    last_event  TEXT NOT NULL DEFAULT 'enqueued', -- the last transition (mirrored in events)
    note        TEXT,                          -- why the last 'released' happened
    generation  INTEGER NOT NULL DEFAULT 0,    -- the court's generation the row was last
                                               -- (re)queued in (0: the first harvest)
    succeeded_at TEXT                          -- time of the row's last 'ok'
);
CREATE INDEX IF NOT EXISTS requests_pending
    ON requests (court, priority DESC, id) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS requests_age ON requests (status, updated_at);

CREATE TABLE IF NOT EXISTS url_log (
    id          INTEGER PRIMARY KEY,
    at          TEXT NOT NULL,
    run_id      INTEGER,
    request_id  INTEGER,                       -- NULL for out-of-band requests (warm-ups)
    method      TEXT NOT NULL,
    url         TEXT NOT NULL,
    final_url   TEXT NOT NULL,
    status      INTEGER,                       -- NULL when no response came
    outcome     TEXT NOT NULL,                 -- "response" or the exception's class name
    bytes       INTEGER NOT NULL,
    ms          REAL NOT NULL,                 -- network time (Scrapy's download_latency)
    queue_ms    REAL                           -- time queued before it (download delay,
                                               -- concurrency); NULL when no response came
);
CREATE INDEX IF NOT EXISTS url_log_request ON url_log (request_id);

CREATE TABLE IF NOT EXISTS events (
    id          INTEGER PRIMARY KEY,
    at          TEXT NOT NULL,
    run_id      INTEGER,
    request_id  INTEGER,                       -- NULL for run events
    event       TEXT NOT NULL,                 -- enqueued dispatched retry ok error
                                               -- released requeued renewed run_start
                                               -- run_stop run_killed
    detail      TEXT
);
CREATE INDEX IF NOT EXISTS events_request ON events (request_id);
{NOTICE_INDEX}

-- requests by court x kind x status, kept by triggers: `scrapy status` answers at once on
-- millions of rows (rows with n = 0 are left in place)
CREATE TABLE IF NOT EXISTS request_counts (
    court  TEXT NOT NULL,
    kind   TEXT NOT NULL,
    status TEXT NOT NULL,
    n      INTEGER NOT NULL,
    PRIMARY KEY (court, kind, status)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS requests_count_insert AFTER INSERT ON requests BEGIN
    INSERT INTO request_counts VALUES (NEW.court, NEW.kind, NEW.status, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS requests_count_update AFTER UPDATE OF status ON requests
WHEN OLD.status IS NOT NEW.status BEGIN
    UPDATE request_counts SET n = n - 1
        WHERE court = OLD.court AND kind = OLD.kind AND status = OLD.status;
    INSERT INTO request_counts VALUES (NEW.court, NEW.kind, NEW.status, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS requests_count_delete AFTER DELETE ON requests BEGIN
    UPDATE request_counts SET n = n - 1
        WHERE court = OLD.court AND kind = OLD.kind AND status = OLD.status;
END;

-- every transition of a request row is written to events inside the same statement
CREATE TRIGGER IF NOT EXISTS requests_enqueued AFTER INSERT ON requests BEGIN
    INSERT INTO events (at, run_id, request_id, event, detail)
    VALUES (NEW.created_at, NEW.run_id, NEW.id, 'enqueued', NULL);
END;
CREATE TRIGGER IF NOT EXISTS requests_transition AFTER UPDATE OF last_event ON requests BEGIN
    INSERT INTO events (at, run_id, request_id, event, detail)
    VALUES (NEW.updated_at, NEW.run_id, NEW.id, NEW.last_event,
            CASE NEW.last_event
                WHEN 'dispatched' THEN 'attempt ' || NEW.attempts
                WHEN 'error' THEN NEW.last_error
                WHEN 'requeued' THEN NEW.last_error
                WHEN 'retry' THEN NEW.url
                WHEN 'released' THEN NEW.note
                WHEN 'renewed' THEN 'generation ' || NEW.generation
            END);
END;

CREATE TABLE IF NOT EXISTS runs (
    id           INTEGER PRIMARY KEY,
    court        TEXT NOT NULL,
    spider       TEXT NOT NULL,
    pid          INTEGER NOT NULL,
    host         TEXT NOT NULL,
    job          TEXT,                          -- scrapyd job id (spider argument _job)
    started_at   TEXT NOT NULL,
    ended_at     TEXT,
    close_reason TEXT                           -- Scrapy's reason, or "killed" (never closed)
);

-- the parse warnings of each request's last ok parse (replaced with its outcome, in the same
-- transaction): a page kept partly generically (harvest.sipp.warnings)
CREATE TABLE IF NOT EXISTS parse_warnings (
    request_id  INTEGER NOT NULL,
    court       TEXT NOT NULL,
    page        TEXT NOT NULL,                 -- list | detail | tab:<slug>
    label       TEXT NOT NULL,                 -- row label, block heading, column name
    kind        TEXT NOT NULL,                 -- row | block | column | value | page
    n           INTEGER NOT NULL,              -- times on that page
    PRIMARY KEY (request_id, page, label, kind)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS parse_warnings_by_label
    ON parse_warnings (court, page, label, kind);
-- per court x page x label x kind, kept by triggers (`scrapy status` answers at once):
-- pages carrying it, occurrences, and one request carrying it (the example)
CREATE TABLE IF NOT EXISTS parse_warning_counts (
    court   TEXT NOT NULL,
    page    TEXT NOT NULL,
    label   TEXT NOT NULL,
    kind    TEXT NOT NULL,
    pages   INTEGER NOT NULL,
    n       INTEGER NOT NULL,
    example INTEGER NOT NULL,
    PRIMARY KEY (court, page, label, kind)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS parse_warnings_insert AFTER INSERT ON parse_warnings BEGIN
    INSERT INTO parse_warning_counts VALUES
        (NEW.court, NEW.page, NEW.label, NEW.kind, 1, NEW.n, NEW.request_id)
        ON CONFLICT DO UPDATE SET pages = pages + 1, n = n + excluded.n,
                                  example = excluded.example;
END;
CREATE TRIGGER IF NOT EXISTS parse_warnings_delete AFTER DELETE ON parse_warnings BEGIN
    UPDATE parse_warning_counts SET pages = pages - 1, n = n - OLD.n,
        example = coalesce((SELECT request_id FROM parse_warnings
                            WHERE court = OLD.court AND page = OLD.page AND label = OLD.label
                              AND kind = OLD.kind LIMIT 1), example)
        WHERE court = OLD.court AND page = OLD.page AND label = OLD.label AND kind = OLD.kind;
    DELETE FROM parse_warning_counts
        WHERE court = OLD.court AND page = OLD.page AND label = OLD.label AND kind = OLD.kind
          AND pages <= 0;
END;

-- the court's generations: 0 is the first harvest, each refresh (-a refresh=due|all) of a
-- finished court starts the next (docs/refresh.md)
CREATE TABLE IF NOT EXISTS generations (
    court        TEXT NOT NULL,
    generation   INTEGER NOT NULL,
    policy       TEXT NOT NULL,                 -- initial | due | all
    today        TEXT NOT NULL,                 -- the policy's "today" (YYYY-MM-DD)
    started_at   TEXT NOT NULL,
    finished_at  TEXT,                          -- NULL while rows of it are pending/inflight
    run_id       INTEGER,                       -- the run that started it
    PRIMARY KEY (court, generation)
);
"""

SCHEMA = SCHEMA.replace("{NOTICE_INDEX}", NOTICE_INDEX)

# The ok case/tab rows whose part is not in the attached item store. A request key is
# ``case|<court>|<number>`` or ``tab|<court>|<number>|<slug>`` (slugs have no ``|``); the dedupe
# key is ``sipp.<court>:<number>`` (both normalised alike). ``head`` is a tab key's
# ``<number>|``: rtrim() strips every trailing character that is not ``|``.
_MISSING_PARTS_SQL = """
WITH x AS (
    SELECT id, key, kind, court,
           substr(key, length(court) + CASE kind WHEN 'case' THEN 7 ELSE 6 END) AS rest
    FROM requests WHERE {where}
), y AS (
    SELECT id, key, kind, court, rest,
           CASE kind WHEN 'tab' THEN rtrim(rest, replace(rest, '|', '')) ELSE '' END AS head
    FROM x
), z AS (
    SELECT id, key,
           :prefix || court || ':' || CASE kind WHEN 'case' THEN rest
                                       ELSE substr(head, 1, length(head) - 1) END AS dedupe_key,
           CASE kind WHEN 'case' THEN 'case' ELSE 'tab:' || substr(rest, length(head) + 1) END
               AS part
    FROM y
)
SELECT id, key, dedupe_key, part,
       EXISTS (SELECT 1 FROM harvest_items.parts AS p
               WHERE p.dedupe_key = z.dedupe_key AND p.part = z.part) AS older
FROM z
WHERE NOT EXISTS (
    SELECT 1 FROM harvest_items.parts AS p WHERE p.dedupe_key = z.dedupe_key AND p.part = z.part
    AND {current}
)
ORDER BY id
"""

#: Objects added after schema version 1 shipped, created on every writable open (an older
#: state file gains them; older code ignores them, so the version stays 1).
SCHEMA_ADDITIONS = """
-- groups (cases) the court's crawl has started and not finished: what the case cap counts
-- (HARVEST_CASE_LOOKAHEAD); kept across restarts so a resumed crawl finishes them first
CREATE TABLE IF NOT EXISTS open_groups (
    court      TEXT NOT NULL,
    group_key  TEXT NOT NULL,
    opened_at  TEXT NOT NULL,
    run_id     INTEGER,
    PRIMARY KEY (court, group_key)
);
-- the unfinished rows of a group: "is this case done?" and claims restricted to open groups
CREATE INDEX IF NOT EXISTS requests_group_open
    ON requests (group_key) WHERE status IN ('pending', 'inflight');
-- the courts of -a courts=registered (scrapy courts add FILE), in the order first added
CREATE TABLE IF NOT EXISTS courts (
    id        INTEGER PRIMARY KEY,
    court     TEXT NOT NULL UNIQUE,
    base_url  TEXT NOT NULL,
    listing   TEXT,
    tabs      TEXT,
    added_at  TEXT NOT NULL
);
-- >>> court pauses (issue #27; additive, no version change: older code never reads it)
-- a court down, refusing or answering 5xx for a whole attempt budget, retried after back-off
CREATE TABLE IF NOT EXISTS court_pauses (
    court         TEXT PRIMARY KEY,
    paused_at     TEXT NOT NULL,
    paused_until  TEXT NOT NULL,
    pause_reason  TEXT NOT NULL,
    pause_count   INTEGER NOT NULL
);
-- <<< court pauses
"""


# --- court access (t22, docs/national.md): additive, no version change -------------------------
def _add_court_access_columns(conn: sqlite3.Connection) -> None:
    """The ``courts`` columns of the court directory and ``scrapy courts check`` (all
    nullable, so older code that names its columns reads the table unchanged)."""
    present = {row[1] for row in conn.execute("PRAGMA table_info(courts)")}
    missing = [(n, t) for n, t in COURT_ACCESS_COLUMNS.items() if n not in present]
    if not missing:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        present = {row[1] for row in conn.execute("PRAGMA table_info(courts)")}
        for name, sql_type in missing:
            if name not in present:
                conn.execute(f"ALTER TABLE courts ADD COLUMN {name} {sql_type}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


# --- end of court access ------------------------------------------------------------------------

_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


def recovery_advice(path: Path) -> str:
    """How to get a damaged state database back without losing anything (for messages)."""
    recovered = path.with_name("state-recovered.sqlite")
    return (
        f"Nothing was changed. Recover what it holds: sqlite3 {str(path)!r} .recover | sqlite3 "
        f"{str(recovered)!r} (.dump instead of .recover where the sqlite3 shell has no "
        f".recover); then move {path.name} and its -wal/-shm files aside and rename "
        f"{recovered.name} to {path.name}. If nothing can be recovered, moving it aside alone "
        "loses no harvested data: the next crawl starts the court again from its first list "
        "page, and parts already in items.sqlite come back unchanged"
    )


def _check_after_unclean_stop(conn: sqlite3.Connection, path: Path) -> None:
    """After a run that never ended (killed, crashed, power loss), run SQLite's quick check.

    A clean last stop skips it (it reads the whole file). Raises :class:`StateError` naming the
    problems and the recovery path when the file fails the check.
    """
    row = conn.execute(
        "SELECT id, court FROM runs WHERE ended_at IS NULL ORDER BY id DESC LIMIT 1"
    ).fetchone()
    if row is None:
        return
    problems = [r[0] for r in conn.execute("PRAGMA quick_check(5)")]
    if problems == ["ok"]:
        return
    raise StateError(
        f"request state {str(path)!r} fails SQLite's integrity check after run {row[0]} "
        f"(court {row[1]}) ended without closing: {'; '.join(problems)}. The crawl is refused "
        f"so that a damaged state is not used. {recovery_advice(path)}"
    )


class _Checkpointer:
    """Checkpoints the WAL every second from a thread of its own, off the crawl's event loop.

    Under WAL with ``synchronous=NORMAL`` commits do not fsync; checkpoints do, and on a slow
    disk an fsync takes milliseconds. SQLite releases the GIL while it waits, so the reactor
    keeps running. A crash loses nothing: the WAL is replayed on the next open.
    """

    def __init__(self, path: Path, busy_timeout: float, interval: float = 1.0) -> None:
        self._conn = sqlite3.connect(
            path, isolation_level=None, timeout=busy_timeout, check_same_thread=False
        )
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name="harvest-wal-checkpoint", daemon=True
        )
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            except sqlite3.Error:
                continue  # busy or transient: the next round (or autocheckpoint) catches up

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._conn.close()


class SqliteRequestStore:
    """:class:`extensions.store.RequestStore` over one SQLite file (see the module docstring)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        *,
        readonly: bool,
        defer_commit: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        self._conn = conn
        self.path = str(path)
        self._dir = path.parent
        self._readonly = readonly
        self._defer_commit = defer_commit
        self._locks: dict[str, HolderLock] = {}  # court -> its crawl lock, held by this store
        self._closed = False
        self._checkpointer: _Checkpointer | None = None
        self._failed: str | None = None  # why transitions are refused (a failed group commit)
        self._has_warnings = True
        self._has_generations = True

    # --- opening --------------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        readonly: bool = False,
        busy_timeout: float = 30.0,
        synchronous: str = "NORMAL",
        defer_commit: Callable[[Callable[[], None]], None] | None = None,
    ) -> SqliteRequestStore:
        """Open (creating if needed, unless ``readonly``) the state database at ``path``.

        ``defer_commit`` switches on group commit: the first transition after a commit opens a
        transaction and hands :meth:`commit` to ``defer_commit``, which must call it soon (the
        scheduler calls it at the end of the reactor turn). Transitions then become durable
        together, in order, one commit per turn instead of one per statement. A crash loses at
        most the transitions of the last turn; each reverts to the state it left, which the
        next run redoes (a claim is undone, an ``ok`` comes again after the same, idempotent,
        work). Nothing is reported done before it is: a request's ``ok`` still commits with or
        after the rows it yielded, and its items are already in the item store.
        """
        if readonly and not path.exists():
            raise StateError(
                f"no request state at {str(path)!r}: nothing has been crawled into this "
                "workspace yet (check HARVEST_WORKSPACE)"
            )
        try:
            if readonly:
                conn = sqlite3.connect(
                    f"{path.resolve().as_uri()}?mode=ro",
                    uri=True,
                    isolation_level=None,
                    timeout=busy_timeout,
                    check_same_thread=False,
                )
            else:
                if not path.exists():
                    private_file(path)
                conn = sqlite3.connect(
                    path, isolation_level=None, timeout=busy_timeout, check_same_thread=False
                )
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            if not readonly:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StateError(
                        f"cannot switch {str(path)!r} to WAL mode (got {mode!r}); put the "
                        "workspace on a local file system"
                    )
                conn.execute(f"PRAGMA synchronous = {synchronous}")
            conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
            if not readonly:
                # checkpoints (the only fsyncs under WAL + NORMAL) run in a background thread
                # (_Checkpointer); this bound only applies if that thread falls behind
                conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_CHECKPOINT_PAGES}")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version in (0, 1, 2) and not readonly:
                # new file, version 1 (no parse_warnings) or 2 (no generations): every
                # statement is IF NOT EXISTS; the columns added since are added by
                # _migrate_to_3, in one transaction with the version
                _migrate_to_3(conn)
                version = SCHEMA_VERSION
            if version in _READABLE_VERSIONS and not readonly:
                _add_queue_ms(conn)
                _add_request_format(conn)
            if version not in _READABLE_VERSIONS:
                raise StateError(
                    f"{str(path)!r} has request-state schema version {version}, this code "
                    f"expects {SCHEMA_VERSION}; use a matching harvest version or a new workspace"
                )
            if not readonly:
                conn.executescript(SCHEMA_ADDITIONS)
                _add_court_access_columns(conn)
                ensure_sqlite(conn)
            conn.execute("SELECT count(*) FROM runs").fetchone()
            if not readonly:
                conn.execute(NOTICE_INDEX)
                _check_after_unclean_stop(conn, path)
        except sqlite3.DatabaseError as exc:
            raise StateError(
                f"cannot use request state {str(path)!r}: {exc}; the file is damaged or not a "
                f"harvest state database. {recovery_advice(path)}"
            ) from exc
        if not readonly:
            secure_sqlite_files(path)
        store = cls(conn, path, readonly=readonly, defer_commit=defer_commit)
        store._has_warnings = version >= 2
        store._has_generations = version >= 3
        if not readonly:
            store._checkpointer = _Checkpointer(path, busy_timeout)
        return store

    def close(self) -> None:
        """Commit what is left, drop the crawl lock, stop the checkpointer (again: a no-op)."""
        if self._closed:
            return
        self._closed = True
        self.commit()
        self._defer_commit = None  # a commit still scheduled finds nothing to do
        self.release_crawl_lock()
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        self._conn.close()

    def add_courts(self, courts: Sequence[CourtRecord]) -> tuple[int, int]:
        known = {c.court: c for c in self.courts()}
        added = changed = 0
        at = utc_now()
        columns = COURT_COLUMNS[1:]
        with self._tx() as conn:
            for c in courts:
                old = known.get(c.court)
                merged = merge_court(old, c)
                if merged is None:
                    continue
                if old is None:
                    merged = dataclasses.replace(merged, added_at=at)
                    conn.execute(
                        f"INSERT INTO courts ({', '.join(COURT_COLUMNS)}) "
                        f"VALUES ({', '.join('?' * len(COURT_COLUMNS))})",
                        dataclasses.astuple(merged),
                    )
                    added += 1
                else:
                    conn.execute(
                        f"UPDATE courts SET {', '.join(f'{n} = ?' for n in columns)} "
                        "WHERE court = ?",
                        (*dataclasses.astuple(merged)[1:], c.court),
                    )
                    changed += 1
                known[c.court] = merged
        return added, changed

    def pause_court(self, court: str, *, reason: str, until: str, at: str) -> int:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO court_pauses (court, paused_at, paused_until, pause_reason, "
                "pause_count) VALUES (?, ?, ?, ?, 1) ON CONFLICT (court) DO UPDATE SET "
                "paused_at = excluded.paused_at, paused_until = excluded.paused_until, "
                "pause_reason = excluded.pause_reason, pause_count = pause_count + 1",
                (court, at, until, reason),
            )
            count = int(
                conn.execute(
                    "SELECT pause_count FROM court_pauses WHERE court = ?", (court,)
                ).fetchone()[0]
            )
            self._event(conn, at, None, None, "court_paused", f"{court} until {until}: {reason}")
        return count

    def resume_court(self, court: str) -> bool:
        with self._tx() as conn:
            gone = conn.execute("DELETE FROM court_pauses WHERE court = ?", (court,)).rowcount
            if gone:
                self._event(conn, utc_now(), None, None, "court_resumed", court)
        return bool(gone)

    def court_pauses(self) -> list[CourtPause]:
        try:
            rows = self._conn.execute(
                "SELECT court, paused_at, paused_until, pause_reason, pause_count "
                "FROM court_pauses ORDER BY court"
            ).fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []  # a state from before pauses, opened read-only
            raise
        return [CourtPause(str(r[0]), str(r[1]), str(r[2]), str(r[3]), int(r[4])) for r in rows]

    def courts(self) -> list[CourtRecord]:
        try:
            cursor = self._conn.execute("SELECT * FROM courts ORDER BY id")
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []  # a state from before court lists, opened read-only
            raise
        names = [d[0] for d in cursor.description]
        return [court_record(dict(zip(names, row, strict=True))) for row in cursor.fetchall()]

    def record_court_check(self, court: str, check: CourtCheck) -> bool:
        with self._tx() as conn:
            cursor = conn.execute(
                "UPDATE courts SET access = ?, effective_base_url = ?, http_status = ?, "
                "reason = ?, checked_at = ? WHERE court = ?",
                (check.access, check.effective_base_url, check.http_status, check.reason,
                 check.checked_at, court),
            )  # fmt: skip
            return cursor.rowcount > 0

    def commit(self) -> None:
        """Commit the group transaction, if one is open (see ``defer_commit`` of :meth:`open`).

        A commit that fails (a full disk) rolls the group back and leaves the store refusing
        every later transition (:class:`StateError`): a later turn must never record, say, a
        request ``ok`` whose yielded rows were in the group that was lost. The next run redoes
        whatever was not recorded.
        """
        if self._defer_commit is not None and self._conn.in_transaction:
            try:
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                self._failed = f"a commit of the request state failed ({exc})"
                if self._conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self._conn.execute("ROLLBACK")
                raise StateError(
                    f"cannot commit the request state {self.path!r}: {exc}; nothing of the "
                    "last moment was recorded, and nothing more will be in this run"
                ) from exc

    def _w(self) -> sqlite3.Connection:
        """The connection for a transition: inside the group transaction under group commit."""
        if self._failed is not None:
            raise StateError(f"{self._failed}: no more state changes are recorded in this run")
        if self._defer_commit is not None and not self._conn.in_transaction:
            self._conn.execute("BEGIN IMMEDIATE")
            self._defer_commit(self.commit)
        return self._conn

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """A transaction of its own, committed on exit (after the group transaction, if any)."""
        self.commit()
        if self._failed is not None:
            raise StateError(f"{self._failed}: no more state changes are recorded in this run")
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _event(
        self,
        conn: sqlite3.Connection,
        at: str,
        run_id: int | None,
        request_id: int | None,
        event: str,
        detail: str | None = None,
    ) -> None:
        conn.execute(
            "INSERT INTO events (at, run_id, request_id, event, detail) VALUES (?, ?, ?, ?, ?)",
            (at, run_id, request_id, event, detail),
        )

    # --- crawl lock and runs --------------------------------------------------------------------

    def _lock_path(self, court: str) -> Path:
        return self._dir / f"crawl-{_SAFE_NAME.sub('_', court)}.lock"

    def watch_closing(
        self,
        closing: Callable[[], bool],
        bound: float,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """A no-op: this store's crawl locks die with the process that holds them."""

    def acquire_crawl_lock(self, run: RunInfo) -> None:
        if run.court in self._locks:
            raise StateError(
                f"this store already holds the crawl lock of court {run.court!r}; release it first"
            )
        lock = HolderLock(self._lock_path(run.court))
        try:
            lock.acquire(_holder(run, None))
        except LockHeld as exc:
            raise CrawlLocked(run.court, exc.holder, str(exc.path)) from None
        self._locks[run.court] = lock

    def release_crawl_lock(self, court: str | None = None) -> None:
        courts = list(self._locks) if court is None else [court]
        for name in courts:
            lock = self._locks.pop(name, None)
            if lock is not None:
                lock.release()

    def start_run(self, run: RunInfo) -> tuple[int, list[int]]:
        at = utc_now()
        with self._tx() as conn:
            dead = [
                r[0]
                for r in conn.execute(
                    "SELECT id FROM runs WHERE court = ? AND ended_at IS NULL", (run.court,)
                )
            ]
            for rid in dead:
                conn.execute(
                    "UPDATE runs SET ended_at = ?, close_reason = ? WHERE id = ?",
                    (at, KILLED, rid),
                )
            cur = conn.execute(
                "INSERT INTO runs (court, spider, pid, host, job, started_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (run.court, run.spider, run.pid, run.host, run.job, run.started_at),
            )
            run_id = int(cur.lastrowid or 0)
            for rid in dead:
                self._event(conn, at, run_id, None, "run_killed", f"run {rid} never closed")
            self._event(
                conn,
                at,
                run_id,
                None,
                "run_start",
                f"court {run.court} pid {run.pid} host {run.host} job {run.job or '-'}",
            )
        lock = self._locks.get(run.court)
        if lock is not None:
            lock.update(_holder(run, run_id))
        return run_id, dead

    def end_run(self, run_id: int, reason: str) -> None:
        at = utc_now()
        with self._tx() as conn:
            conn.execute(
                "UPDATE runs SET ended_at = ?, close_reason = ? WHERE id = ?", (at, reason, run_id)
            )
            self._event(conn, at, run_id, None, "run_stop", reason)

    # --- transitions ----------------------------------------------------------------------------

    def release_inflight(
        self, court: str, run_id: int, *, ids: Sequence[int] | None = None, why: str
    ) -> int:
        at = utc_now()
        if ids is not None:
            if not ids:
                return 0
            where = f"status = 'inflight' AND id IN ({','.join('?' * len(ids))})"
            params: tuple[Any, ...] = tuple(ids)
        else:
            where = "status = 'inflight' AND court = ?"
            params = (court,)
        cur = self._w().execute(
            "UPDATE requests SET status = 'pending', last_event = 'released', note = ?, "
            f"updated_at = ?, run_id = ? WHERE {where}",
            (why, at, run_id, *params),
        )
        return cur.rowcount

    def add(self, req: NewRequest, run_id: int) -> int | None:
        """See :meth:`extensions.store.RequestStore.add`: insert, or renew a row of an older
        generation, in one statement."""
        at = utc_now()
        row = (
            self._w()
            .execute(
                "INSERT INTO requests (key, kind, court, group_key, status, priority, method, "
                "url, request, created_at, updated_at, run_id, generation, format) "
                f"VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, {REQUEST_FORMAT}) "
                "ON CONFLICT (key) DO "
                "UPDATE SET status = 'pending', last_event = 'renewed', "
                "generation = excluded.generation, request = excluded.request, "
                "format = excluded.format, "
                "url = excluded.url, method = excluded.method, priority = excluded.priority, "
                "group_key = excluded.group_key, attempts = 0, retries = 0, last_error = NULL, "
                "note = NULL, updated_at = excluded.updated_at, run_id = excluded.run_id "
                "WHERE requests.generation < excluded.generation "
                "AND requests.status IN ('ok', 'error', 'pending') RETURNING id",
                (
                    req.key,
                    req.kind,
                    req.court,
                    req.group,
                    req.priority,
                    req.method,
                    req.url,
                    req.blob,
                    at,
                    at,
                    run_id,
                    req.generation,
                ),
            )
            .fetchone()
        )
        return None if row is None else int(row[0])

    # --- generations ----------------------------------------------------------------------------

    def _generation_row(self, conn: sqlite3.Connection, court: str) -> Generation | None:
        row = conn.execute(
            "SELECT court, generation, policy, today, started_at, finished_at FROM generations "
            "WHERE court = ? ORDER BY generation DESC LIMIT 1",
            (court,),
        ).fetchone()
        return None if row is None else Generation(*row)

    def begin_generation(self, court: str, *, policy: str, today: str, run_id: int) -> Generation:
        if policy not in ("none", "due", "all"):
            raise ValueError(f"refresh policy {policy!r} is not one of none, due, all")
        at = utc_now()
        with self._tx() as conn:
            last = self._generation_row(conn, court)
            if last is not None and (not last.finished or policy == "none"):
                return last
            number, kind = (0, "initial") if last is None else (last.number + 1, policy)
            conn.execute(
                "INSERT INTO generations (court, generation, policy, today, started_at, run_id)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (court, number, kind, today, at, run_id),
            )
        return Generation(court, number, kind, today, at, None, started_now=True)

    def finish_generation_if_done(self, court: str, number: int) -> bool:
        busy = self._conn.execute(
            "SELECT 1 FROM requests INDEXED BY requests_pending WHERE court = ? "
            "AND status = 'pending' AND generation = ? UNION ALL "
            "SELECT 1 FROM requests WHERE court = ? AND status = 'inflight' AND generation = ? "
            "LIMIT 1",
            (court, number, court, number),
        ).fetchone()
        if busy is not None:
            return False
        self._w().execute(
            "UPDATE generations SET finished_at = ? WHERE court = ? AND generation = ? "
            "AND finished_at IS NULL",
            (utc_now(), court, number),
        )
        return True

    def generations(self, court: str | None = None) -> list[Generation]:
        if not self._has_generations:
            return []
        where, params = ("WHERE court = ?", (court,)) if court else ("", ())
        return [
            Generation(*r)
            for r in self._conn.execute(
                "SELECT court, generation, policy, today, started_at, finished_at FROM "
                f"generations {where} ORDER BY court, generation",
                params,
            )
        ]

    def row_states(self, court: str, kind: str) -> list[RowState]:
        if not self._has_generations:
            return [
                RowState(r[0], r[1], 0, r[2] if r[1] == "ok" else None)
                for r in self._conn.execute(
                    "SELECT key, status, updated_at FROM requests WHERE court = ? AND kind = ?",
                    (court, kind),
                )
            ]
        return [
            RowState(*r)
            for r in self._conn.execute(
                "SELECT key, status, generation, succeeded_at FROM requests "
                "WHERE court = ? AND kind = ?",
                (court, kind),
            )
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
        at = utc_now()
        cond = ""
        params: list[Any] = [at, run_id, court]
        if only_groups is not None:
            if not only_groups:
                return None
            # the few open groups' unfinished rows, by the group index, instead of a walk of
            # every pending row of the court in priority order
            source = "requests INDEXED BY requests_group_open"
            cond = (
                f" AND status IN ('pending', 'inflight')"
                f" AND group_key IN ({','.join('?' * len(only_groups))})"
            )
            params.extend(only_groups)
        else:
            source = "requests INDEXED BY requests_pending"
        if busy_groups:
            cond += (
                f" AND (group_key IS NULL OR group_key NOT IN ({','.join('?' * len(busy_groups))})"
            )
            params.extend(busy_groups)
            if held:
                cond += f" OR id IN ({','.join('?' * len(held))})"
                params.extend(held)
            cond += ")"
        cur = self._w().execute(
            "UPDATE requests SET status = 'inflight', last_event = 'dispatched', "
            "attempts = attempts + 1, "
            "updated_at = ?, run_id = ? WHERE id = ("
            f"SELECT id FROM {source} "
            f"WHERE court = ? AND status = 'pending'{cond} "
            "ORDER BY priority DESC, id LIMIT 1) "
            "RETURNING id, key, group_key, attempts, retries, request, kind, url, method, format",
            params,
        )
        row = cur.fetchone()
        if row is None:
            return None
        return Claimed(
            id=row[0],
            key=row[1],
            group=row[2],
            attempts=row[3],
            retries=row[4],
            blob=row[5],
            kind=row[6],
            url=row[7],
            method=row[8],
            format=row[9],
        )

    def open_group(self, court: str, group: str, run_id: int) -> None:
        self._w().execute(
            "INSERT INTO open_groups (court, group_key, opened_at, run_id) VALUES (?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING",
            (court, group, utc_now(), run_id),
        )

    def close_group_if_done(self, court: str, group: str) -> bool:
        busy = self._conn.execute(
            "SELECT 1 FROM requests INDEXED BY requests_group_open "
            "WHERE group_key = ? AND status IN ('pending', 'inflight') LIMIT 1",
            (group,),
        ).fetchone()
        if busy is not None:
            return False
        self._w().execute(
            "DELETE FROM open_groups WHERE court = ? AND group_key = ?", (court, group)
        )
        return True

    def open_groups(self, court: str) -> list[str]:
        return [
            str(r[0])
            for r in self._conn.execute(
                "SELECT group_key FROM open_groups WHERE court = ? ORDER BY rowid", (court,)
            )
        ]

    def retry(
        self, request_id: int, run_id: int, *, url: str, priority: int, retries: int
    ) -> bool:
        at = utc_now()
        cur = self._w().execute(
            "UPDATE requests SET status = 'pending', last_event = 'retry', url = ?, priority = ?, "
            "retries = ?, updated_at = ?, run_id = ? WHERE id = ? AND status = 'inflight'",
            (url, priority, retries, at, run_id, request_id),
        )
        return cur.rowcount == 1

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
        at = utc_now()
        status = Status.OK if ok else Status.ERROR
        conn = self._w()
        cur = conn.execute(
            "UPDATE requests SET status = ?, last_event = ?, last_error = ?, "
            "last_status = coalesce(?, last_status), url = coalesce(?, url), updated_at = ?, "
            "succeeded_at = CASE WHEN ? THEN ? ELSE succeeded_at END, "
            "run_id = ? WHERE id = ? AND status = 'inflight'",
            (
                status.value,
                status.value,
                None if ok else reason,
                http_status,
                url,
                at,
                ok,
                at,
                run_id,
                request_id,
            ),
        )
        done = cur.rowcount == 1
        if done and ok:
            conn.execute("DELETE FROM parse_warnings WHERE request_id = ?", (request_id,))
            if warnings:
                conn.executemany(
                    "INSERT INTO parse_warnings (request_id, court, page, label, kind, n) "
                    "SELECT id, court, ?, ?, ?, ? FROM requests WHERE id = ?",
                    [(w.page, w.label, w.kind, w.count, request_id) for w in warnings],
                )
        return done

    def log_exchange(self, run_id: int | None, exchange: Exchange) -> None:
        self._w().execute(
            "INSERT INTO url_log (at, run_id, request_id, method, url, final_url, status, "
            "outcome, bytes, ms, queue_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                utc_now(),
                run_id,
                exchange.request_id,
                exchange.method,
                exchange.url,
                exchange.final_url,
                exchange.status,
                exchange.outcome,
                exchange.bytes,
                round(exchange.ms, 3),
                None if exchange.queue_ms is None else round(exchange.queue_ms, 3),
            ),
        )

    def note(self, run_id: int | None, request_id: int | None, event: str, detail: str) -> None:
        if event not in NOTICES:
            raise ValueError(f"{event!r} is not a notice event (one of {', '.join(NOTICES)})")
        self._event(self._w(), utc_now(), run_id, request_id, event, detail)

    def check_parts(
        self, items_path: Path, *, court: str | None = None, reset_run: int | None = None
    ) -> PartsCheck:
        """See :meth:`extensions.store.RequestStore.check_parts`.

        One query: the item store is attached (read-only where the connection allows) and each
        ``ok`` case/tab row's dedupe key and part, worked out from its request key in SQL, is
        looked up on the item store's primary key ``(dedupe_key, part)``.
        """
        if reset_run is not None and self._readonly:
            raise StateError("check_parts(reset_run=...) needs a writable state store")
        self.commit()  # ATTACH is not allowed inside a transaction
        conn = self._conn
        items = self._attach_items(items_path)
        try:
            where = "status = 'ok' AND kind IN ('case', 'tab')"
            params: dict[str, Any] = {
                "prefix": SOURCE_TYPE_PREFIX,
                "court": court,
                "format": ITEM_SCHEMA_VERSION,
            }
            if court is not None:
                where += " AND court = :court"
            versions = {r[1] for r in conn.execute("PRAGMA harvest_items.table_info(parts)")}
            missing_sql = _MISSING_PARTS_SQL.format(
                where=where,
                # a part of an older item format counts as missing (issue 24): the crawl's
                # start rebuilds from the archive what it can, the rest is fetched again
                current="p.schema_version >= :format" if "schema_version" in versions else "0",
            )
            if reset_run is None:
                rows = conn.execute(missing_sql, params).fetchall()
                return PartsCheck(
                    missing=len(rows), sample=[(r[1], r[3]) for r in rows[:10]], items=items
                )
            at = utc_now()
            with self._tx() as tx:
                tx.execute("DROP TABLE IF EXISTS temp.harvest_missing")
                tx.execute(f"CREATE TEMP TABLE harvest_missing AS {missing_sql}", params)
                sample = [
                    (r[0], r[1])
                    for r in tx.execute("SELECT key, part FROM harvest_missing LIMIT 10")
                ]
                n = tx.execute(
                    "UPDATE requests SET status = 'pending', last_event = 'released', "
                    "note = 'was ok, but its part ' || m.part || ' of ' || m.dedupe_key || "
                    "CASE WHEN m.older THEN ' is of an older item format and its page is not "
                    "in the archive' ELSE ' is missing from items.sqlite' END || "
                    "': fetched again', updated_at = :at, "
                    "run_id = :run FROM temp.harvest_missing AS m "
                    "WHERE requests.id = m.id AND requests.status = 'ok'",
                    {"at": at, "run": reset_run},
                ).rowcount
                tx.execute("DROP TABLE temp.harvest_missing")
            return PartsCheck(missing=n, sample=sample, items=items)
        except sqlite3.DatabaseError as exc:
            raise StateError(
                f"cannot cross-check the request state with the item store {str(items_path)!r}: "
                f"{exc}; if the item store is damaged, move it aside with its -wal/-shm files "
                "and run the crawl again: every request whose parts are missing is fetched again"
            ) from exc
        finally:
            conn.execute("DETACH DATABASE harvest_items")

    def _attach_items(self, items_path: Path) -> str:
        """Attach the item store as ``harvest_items``; an empty stand-in when it has no parts.

        Returns ``present``, ``missing`` or ``empty`` (see :class:`PartsCheck`).
        """
        conn = self._conn
        state = "missing"
        if items_path.is_file():
            target = (
                f"{items_path.resolve().as_uri()}?mode=ro" if self._readonly else str(items_path)
            )
            try:
                conn.execute("ATTACH DATABASE ? AS harvest_items", (target,))
                has_parts = conn.execute(
                    "SELECT 1 FROM harvest_items.sqlite_master "
                    "WHERE type = 'table' AND name = 'parts'"
                ).fetchone()
            except sqlite3.DatabaseError as exc:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("DETACH DATABASE harvest_items")
                raise StateError(
                    f"the item store {str(items_path)!r} cannot be read ({exc}); move it aside "
                    "with its -wal/-shm files, e.g. to items.sqlite.bad, and run the crawl "
                    "again: the request state knows which requests produced parts, and every "
                    "one whose parts are missing is fetched again (nothing is lost)"
                ) from exc
            if has_parts:
                conn.execute(f"PRAGMA harvest_items.cache_size = -{CACHE_KIB}")
                return "present"
            conn.execute("DETACH DATABASE harvest_items")
            state = "empty"
        conn.execute("ATTACH DATABASE ':memory:' AS harvest_items")
        conn.execute(
            "CREATE TABLE harvest_items.parts (dedupe_key TEXT, part TEXT, "
            "schema_version INTEGER, PRIMARY KEY (dedupe_key, part))"
        )
        return state

    def requeue(self, flt: ErrorFilter, *, dry_run: bool = False) -> int:
        where = ["status = 'error'"]
        params: list[Any] = []
        if flt.kind:
            where.append("kind = ?")
            params.append(flt.kind)
        if flt.court:
            where.append("court = ?")
            params.append(flt.court)
        if flt.reason:
            where.append("instr(lower(coalesce(last_error, '')), lower(?)) > 0")
            params.append(flt.reason)
        if flt.older_than:
            where.append("updated_at < ?")
            params.append(flt.older_than)
        if flt.ids is not None:
            where.append(f"id IN ({', '.join('?' * len(flt.ids)) or 'NULL'})")
            params.extend(flt.ids)
        cond = " AND ".join(where)
        if dry_run:
            return int(
                self._conn.execute(
                    f"SELECT count(*) FROM requests WHERE {cond}", params
                ).fetchone()[0]
            )
        cur = self._w().execute(
            "UPDATE requests SET status = 'pending', last_event = 'requeued', retries = 0, "
            f"updated_at = ?, run_id = NULL WHERE {cond}",
            [utc_now(), *params],
        )
        return cur.rowcount

    # --- queries --------------------------------------------------------------------------------

    def has_pending(self, court: str) -> bool:
        row = self._conn.execute(
            "SELECT 1 FROM requests INDEXED BY requests_pending "
            "WHERE court = ? AND status = 'pending' LIMIT 1",
            (court,),
        ).fetchone()
        return row is not None

    def count(self, *, court: str | None = None, status: Status | None = None) -> int:
        where, params = ["1"], []
        if court is not None:
            where.append("court = ?")
            params.append(court)
        if status is not None:
            where.append("status = ?")
            params.append(status.value)
        sql = f"SELECT coalesce(sum(n), 0) FROM request_counts WHERE {' AND '.join(where)}"
        return int(self._conn.execute(sql, params).fetchone()[0])

    def status_report(self, *, court: str | None = None, limit: int = 10) -> StatusReport:
        c_where = " WHERE court = ?" if court else ""
        c_and = " AND court = ?" if court else ""
        c_params: tuple[Any, ...] = (court,) if court else ()
        self.commit()
        conn = self._conn
        conn.execute("BEGIN")  # one consistent snapshot for the whole report
        try:
            counts = [
                {"court": r[0], "kind": r[1], "status": r[2], "count": r[3]}
                for r in conn.execute(
                    f"SELECT court, kind, status, n FROM request_counts{c_where}"
                    f"{' AND' if court else ' WHERE'} n > 0 ORDER BY court, kind, status",
                    c_params,
                )
            ]
            cols = (
                "id, key, kind, court, status, attempts, url, last_status, last_error, updated_at"
            )
            names = cols.split(", ")
            oldest = [
                dict(zip(names, r, strict=True))
                for r in conn.execute(
                    f"SELECT {cols} FROM requests INDEXED BY requests_age "
                    f"WHERE status = 'pending'{c_and} ORDER BY updated_at, id LIMIT ?",
                    (*c_params, limit),
                )
            ]
            errors = [
                dict(zip(names, r, strict=True))
                for r in conn.execute(
                    f"SELECT {cols} FROM requests INDEXED BY requests_age "
                    f"WHERE status = 'error'{c_and} ORDER BY updated_at DESC, id DESC LIMIT ?",
                    (*c_params, limit),
                )
            ]
            run_cols = "id, court, spider, pid, host, job, started_at, ended_at, close_reason"
            run_names = run_cols.split(", ")
            runs = [
                dict(zip(run_names, r, strict=True))
                for r in conn.execute(
                    f"SELECT {run_cols} FROM runs{c_where} ORDER BY id DESC LIMIT ?",
                    (*c_params, limit),
                )
            ]
            notices, latest_notices = self._notices(court, limit)
            warn_names = ["court", "page", "label", "kind", "pages", "count", "example_url"]
            w_and = " AND w.court = ?" if court else ""
            warnings = (
                [
                    dict(zip(warn_names, r, strict=True))
                    for r in conn.execute(
                        "SELECT w.court, w.page, w.label, w.kind, w.pages, w.n, r.url "
                        "FROM parse_warning_counts AS w LEFT JOIN requests AS r "
                        f"ON r.id = w.example WHERE w.pages > 0{w_and}"
                        " ORDER BY w.pages DESC, w.court, w.page, w.label, w.kind LIMIT ?",
                        (*c_params, limit),
                    )
                ]
                if self._has_warnings
                else []
            )
        finally:
            conn.execute("COMMIT")
        return StatusReport(
            counts=counts,
            oldest_pending=oldest,
            latest_errors=errors,
            runs=runs,
            notices=notices,
            latest_notices=latest_notices,
            warnings=warnings,
        )

    def _notices(
        self, court: str | None, limit: int
    ) -> tuple[dict[str, int], list[dict[str, Any]]]:
        """Notice counts by event and the newest notices (on the partial index events_notice:
        the events are written as literals, as in the index's WHERE, else SQLite cannot tell the
        index covers them and scans every event)."""
        marks = ", ".join(f"'{e}'" for e in NOTICES)
        join = " LEFT JOIN requests AS r ON r.id = e.request_id"
        c_and = " AND (r.court = ? OR (r.id IS NULL AND instr(e.detail, ?) > 0))" if court else ""
        params: list[Any] = []
        if court:
            params += [court, court]
        counts = {
            str(event): int(n)
            for event, n in self._conn.execute(
                f"SELECT e.event, count(*) FROM events AS e{join} "
                f"WHERE e.event IN ({marks}){c_and} GROUP BY e.event",
                params,
            )
        }
        names = ("at", "event", "key", "url", "detail")
        latest = [
            dict(zip(names, r, strict=True))
            for r in self._conn.execute(
                f"SELECT e.at, e.event, r.key, r.url, e.detail FROM events AS e{join} "
                f"WHERE e.event IN ({marks}){c_and} ORDER BY e.id DESC LIMIT ?",
                [*params, limit],
            )
        ]
        return counts, latest


def _migrate_to_3(conn: sqlite3.Connection) -> None:
    """Create the schema (a new file) or bring a version 1/2 file to version 3, atomically.

    Version 3 adds ``requests.generation`` (0 for every existing row: the first harvest) and
    ``requests.succeeded_at`` (the ``updated_at`` of rows that are ``ok``: their last change was
    their ``ok``), the ``generations`` table with generation 0 of every court the file holds
    (started at its first row, today = that day, finished when nothing of it is pending or in
    flight, at its last change), and the transition trigger's ``renewed`` detail.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        existed = (
            conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'requests'"
            ).fetchone()
            is not None
        )
        if existed:
            columns = {r[1] for r in conn.execute("PRAGMA table_info(requests)")}
            if "generation" not in columns:
                conn.execute(
                    "ALTER TABLE requests ADD COLUMN generation INTEGER NOT NULL DEFAULT 0"
                )
            if "succeeded_at" not in columns:
                conn.execute("ALTER TABLE requests ADD COLUMN succeeded_at TEXT")
                conn.execute("UPDATE requests SET succeeded_at = updated_at WHERE status = 'ok'")
            conn.execute("DROP TRIGGER IF EXISTS requests_transition")
        for statement in sqlite_statements(SCHEMA):
            conn.execute(statement)
        if existed:
            conn.execute(
                "INSERT OR IGNORE INTO generations (court, generation, policy, today, started_at,"
                " finished_at, run_id) SELECT court, 0, 'initial', substr(min(created_at), 1, 10),"
                " min(created_at), CASE WHEN sum(status IN ('pending', 'inflight')) > 0"
                " THEN NULL ELSE max(updated_at) END, NULL FROM requests GROUP BY court"
            )
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


# --- additive step (issue 24; no version change: older code never reads the column) --------
def _add_request_format(conn: sqlite3.Connection) -> None:
    """``requests.format``: the request format (:data:`extensions.serialization.
    REQUEST_FORMAT`) that wrote the row's pickle; 1 for the rows of older code (all format 1),
    and for the rows older code adds later (the column's default)."""
    columns = {r[1] for r in conn.execute("PRAGMA table_info(requests)")}
    if "format" not in columns:
        conn.execute("ALTER TABLE requests ADD COLUMN format INTEGER NOT NULL DEFAULT 1")


# --- end of the additive step ---------------------------------------------------------------


def _add_queue_ms(conn: sqlite3.Connection) -> None:
    """A state made before ``url_log.queue_ms`` existed gets the column (NULL in old rows)."""
    columns = {r[1] for r in conn.execute("PRAGMA table_info(url_log)")}
    if "queue_ms" not in columns:
        conn.execute("ALTER TABLE url_log ADD COLUMN queue_ms REAL")


def _holder(run: RunInfo, run_id: int | None) -> dict[str, Any]:
    """The crawl lock's holder record: what a refused second crawl names."""
    return {
        "pid": run.pid,
        "host": run.host,
        "started_at": run.started_at,
        "job": run.job,
        "run_id": run_id,
        "court": run.court,
    }
