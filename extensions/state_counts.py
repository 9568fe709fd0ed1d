"""The request state's counts, kept as requests change: requests per court x kind x status and
cases known / complete per court, read in time independent of the number of rows.

Owns the count schema of both stores (created, and filled from the existing rows once, by
:func:`ensure_sqlite` / :func:`ensure_postgres` on a writable open) and the one read of the case
counts (:func:`case_totals`, what ``scrapy status`` and the progress lines show).

A case is a request group (``group_key``): *known* once a ``case`` row of it exists, *complete*
when it is known and every row of the group is ``ok`` (the definition of
:func:`extensions.state_queries.court_progress`, which used to group the whole ``requests``
table to answer it).

* ``case_counts`` (court, group_key, cases, not_ok): per group, its ``case`` rows and its rows
  that are not ``ok``; ``case_groups`` (court, known, complete): per court, the groups with
  ``cases > 0`` and those of them with ``not_ok = 0``.
* **SQLite**: row triggers on ``requests`` keep ``case_counts`` (and ``request_counts``, which
  :mod:`extensions.sqlite_store` owns) in the statement that changes a row; triggers on
  ``case_counts`` keep ``case_groups``. One writer at a time: nothing to contend on.
* **PostgreSQL**: many workers write at once, and a counter row per court would serialize every
  transition of a court. Statement-level triggers (transition tables) *append* deltas to
  ``request_count_deltas`` / ``case_count_deltas`` (no row is updated, so nothing waits), and
  :data:`FOLD_FUNCTION` ``harvest_fold_counts(courts)`` moves the deltas of the given courts into
  ``request_count_totals`` / ``case_counts`` / ``case_groups`` (one folder at a time, an
  advisory lock; a worker finding it taken folds next time). Each worker's lease heartbeat folds
  its own courts. The views ``request_counts`` and ``case_progress`` add the deltas not folded
  yet, so every read is exact at any moment (the delta tables stay small: one heartbeat's
  transitions).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import psycopg

    from .state_queries import StateReader

__all__ = [
    "FOLD_FUNCTION",
    "case_totals",
    "ensure_postgres",
    "ensure_sqlite",
    "fold_postgres",
    "old_case_totals",
]

logger = logging.getLogger(__name__)

#: The PostgreSQL function the heartbeat calls to fold the deltas of its courts.
FOLD_FUNCTION: Final = "harvest_fold_counts"
#: Advisory lock key held (per transaction) by the one folder at a time: "fold".
_FOLD_LOCK: Final = 0x666F6C64

# --- SQLite ------------------------------------------------------------------------------------

_SQLITE_TABLES = """
CREATE TABLE IF NOT EXISTS case_counts (
    court     TEXT NOT NULL,
    group_key TEXT NOT NULL,
    cases     INTEGER NOT NULL,               -- rows of kind 'case' of the group
    not_ok    INTEGER NOT NULL,               -- rows of the group whose status is not 'ok'
    PRIMARY KEY (court, group_key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS case_groups (
    court     TEXT PRIMARY KEY,
    known     INTEGER NOT NULL,               -- groups with cases > 0
    complete  INTEGER NOT NULL                -- ... and not_ok = 0
) WITHOUT ROWID;
CREATE VIEW IF NOT EXISTS case_progress AS SELECT court, known, complete FROM case_groups;
"""

_SQLITE_TRIGGERS = """
CREATE TRIGGER IF NOT EXISTS requests_case_insert AFTER INSERT ON requests
WHEN NEW.group_key IS NOT NULL BEGIN
    INSERT INTO case_counts VALUES
        (NEW.court, NEW.group_key, NEW.kind = 'case', NEW.status <> 'ok')
        ON CONFLICT DO UPDATE SET cases = cases + excluded.cases,
                                  not_ok = not_ok + excluded.not_ok;
END;
CREATE TRIGGER IF NOT EXISTS requests_case_update AFTER UPDATE OF status ON requests
WHEN NEW.group_key IS NOT NULL AND (OLD.status = 'ok') <> (NEW.status = 'ok') BEGIN
    UPDATE case_counts SET not_ok = not_ok + CASE WHEN NEW.status = 'ok' THEN -1 ELSE 1 END
        WHERE court = NEW.court AND group_key = NEW.group_key;
END;
CREATE TRIGGER IF NOT EXISTS requests_case_delete AFTER DELETE ON requests
WHEN OLD.group_key IS NOT NULL BEGIN
    UPDATE case_counts SET cases = cases - (OLD.kind = 'case'),
                           not_ok = not_ok - (OLD.status <> 'ok')
        WHERE court = OLD.court AND group_key = OLD.group_key;
END;
CREATE TRIGGER IF NOT EXISTS case_counts_insert AFTER INSERT ON case_counts BEGIN
    INSERT INTO case_groups VALUES
        (NEW.court, NEW.cases > 0, NEW.cases > 0 AND NEW.not_ok = 0)
        ON CONFLICT DO UPDATE SET known = known + excluded.known,
                                  complete = complete + excluded.complete;
END;
CREATE TRIGGER IF NOT EXISTS case_counts_update AFTER UPDATE ON case_counts BEGIN
    UPDATE case_groups SET
        known = known + (NEW.cases > 0) - (OLD.cases > 0),
        complete = complete + (NEW.cases > 0 AND NEW.not_ok = 0)
                            - (OLD.cases > 0 AND OLD.not_ok = 0)
        WHERE court = NEW.court;
END;
"""

_SQLITE_FILL = (
    (
        "INSERT INTO case_counts (court, group_key, cases, not_ok) "
        "SELECT court, group_key, sum(kind = 'case'), sum(status <> 'ok') "
        "FROM requests WHERE group_key IS NOT NULL GROUP BY court, group_key"
    ),
    (
        "INSERT INTO case_groups (court, known, complete) "
        "SELECT court, sum(cases > 0), sum(cases > 0 AND not_ok = 0) "
        "FROM case_counts GROUP BY court"
    ),
)


def sqlite_statements(script: str) -> list[str]:
    """The statements of a SQLite schema script (``CREATE TRIGGER ... END;`` kept whole); the
    request store's schema is split by it too."""
    out: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            if current.strip():
                out.append(current.strip())
            current = ""
    return out


def ensure_sqlite(conn: sqlite3.Connection) -> float | None:
    """Create the case counts of a writable ``state.sqlite`` (autocommit connection) if it has
    none yet, filling them from the existing rows, in one transaction with the triggers (so no
    change is counted twice or missed). Returns the seconds the fill took, or ``None`` when the
    counts were there already."""
    present = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = 'case_counts_update'"
    ).fetchone()
    if present is not None:
        return None
    t0 = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in sqlite_statements(_SQLITE_TABLES):
            conn.execute(statement)
        conn.execute("DELETE FROM case_counts")  # a half-made earlier attempt (never committed)
        conn.execute("DELETE FROM case_groups")
        for statement in _SQLITE_FILL:
            conn.execute(statement)
        for statement in sqlite_statements(_SQLITE_TRIGGERS):
            conn.execute(statement)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    took = time.perf_counter() - t0
    logger.info("request state: case counts filled from the existing rows in %.2f s", took)
    return took


# --- PostgreSQL --------------------------------------------------------------------------------

_PG_TABLES = """
CREATE TABLE IF NOT EXISTS request_count_totals (
    court  TEXT NOT NULL,
    kind   TEXT NOT NULL,
    status TEXT NOT NULL,
    n      BIGINT NOT NULL,
    PRIMARY KEY (court, kind, status)
);
CREATE TABLE IF NOT EXISTS request_count_deltas (
    court  TEXT NOT NULL,
    kind   TEXT NOT NULL,
    status TEXT NOT NULL,
    n      BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS request_count_deltas_court ON request_count_deltas (court);
CREATE TABLE IF NOT EXISTS case_counts (
    court     TEXT NOT NULL,
    group_key TEXT NOT NULL,
    cases     BIGINT NOT NULL,
    not_ok    BIGINT NOT NULL,
    PRIMARY KEY (court, group_key)
);
CREATE TABLE IF NOT EXISTS case_groups (
    court     TEXT PRIMARY KEY,
    known     BIGINT NOT NULL,
    complete  BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS case_count_deltas (
    court     TEXT NOT NULL,
    group_key TEXT NOT NULL,
    cases     BIGINT NOT NULL,
    not_ok    BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS case_count_deltas_court ON case_count_deltas (court);
-- the requests that succeeded, by court and kind (refresh and parts checks read only them)
CREATE INDEX IF NOT EXISTS requests_ok ON requests (court, kind) WHERE status = 'ok';
"""

_PG_VIEWS = """
CREATE OR REPLACE VIEW request_counts AS
    SELECT court, kind, status, sum(n)::bigint AS n FROM (
        SELECT court, kind, status, n FROM request_count_totals
        UNION ALL
        SELECT court, kind, status, n FROM request_count_deltas
    ) AS u GROUP BY court, kind, status;
CREATE OR REPLACE VIEW case_progress AS
    SELECT court, sum(known)::bigint AS known, sum(complete)::bigint AS complete FROM (
        SELECT court, known, complete FROM case_groups
        UNION ALL
        SELECT d.court,
               ((coalesce(c.cases, 0) + d.cases > 0)::int
                - (coalesce(c.cases, 0) > 0)::int)::bigint,
               ((coalesce(c.cases, 0) + d.cases > 0
                 AND coalesce(c.not_ok, 0) + d.not_ok = 0)::int
                - (coalesce(c.cases, 0) > 0 AND coalesce(c.not_ok, 0) = 0)::int)::bigint
        FROM (SELECT court, group_key, sum(cases) AS cases, sum(not_ok) AS not_ok
              FROM case_count_deltas GROUP BY court, group_key) AS d
        LEFT JOIN case_counts AS c ON c.court = d.court AND c.group_key = d.group_key
    ) AS u GROUP BY court;
"""

_PG_FUNCTIONS = """
CREATE OR REPLACE FUNCTION harvest_count_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO request_count_deltas (court, kind, status, n)
        SELECT court, kind, status, count(*) FROM new_rows GROUP BY court, kind, status;
    INSERT INTO case_count_deltas (court, group_key, cases, not_ok)
        SELECT court, group_key, sum((kind = 'case')::int), sum((status <> 'ok')::int)
        FROM new_rows WHERE group_key IS NOT NULL GROUP BY court, group_key;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION harvest_count_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO request_count_deltas (court, kind, status, n)
        SELECT court, kind, status, sum(n) FROM (
            SELECT o.court, o.kind, o.status, -1 AS n FROM old_rows AS o
                JOIN new_rows AS w ON w.id = o.id WHERE w.status IS DISTINCT FROM o.status
            UNION ALL
            SELECT w.court, w.kind, w.status, 1 FROM old_rows AS o
                JOIN new_rows AS w ON w.id = o.id WHERE w.status IS DISTINCT FROM o.status
        ) AS t GROUP BY court, kind, status;
    INSERT INTO case_count_deltas (court, group_key, cases, not_ok)
        SELECT w.court, w.group_key, 0,
               sum(CASE WHEN w.status = 'ok' THEN -1 ELSE 1 END)
        FROM old_rows AS o JOIN new_rows AS w ON w.id = o.id
        WHERE w.group_key IS NOT NULL AND (o.status = 'ok') <> (w.status = 'ok')
        GROUP BY w.court, w.group_key;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION harvest_count_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO request_count_deltas (court, kind, status, n)
        SELECT court, kind, status, -count(*) FROM old_rows GROUP BY court, kind, status;
    INSERT INTO case_count_deltas (court, group_key, cases, not_ok)
        SELECT court, group_key, -sum((kind = 'case')::int), -sum((status <> 'ok')::int)
        FROM old_rows WHERE group_key IS NOT NULL GROUP BY court, group_key;
    RETURN NULL;
END $$;
-- move the deltas of `courts` (NULL: all) into the totals; one folder at a time (another
-- folder holding the lock: nothing done now, 0 returned). Returns the delta rows folded.
CREATE OR REPLACE FUNCTION harvest_fold_counts(fold_courts TEXT[]) RETURNS BIGINT
LANGUAGE plpgsql AS $$
DECLARE
    folded BIGINT := 0;
    step_rows BIGINT;
BEGIN
    IF NOT pg_try_advisory_xact_lock({lock}) THEN
        RETURN 0;
    END IF;
    WITH d AS (
        DELETE FROM request_count_deltas WHERE fold_courts IS NULL OR court = ANY(fold_courts)
        RETURNING court, kind, status, n
    ), s AS (
        SELECT court, kind, status, sum(n) AS n FROM d GROUP BY court, kind, status
    )
    INSERT INTO request_count_totals AS t (court, kind, status, n)
        SELECT court, kind, status, n FROM s
        ON CONFLICT (court, kind, status) DO UPDATE SET n = t.n + excluded.n;
    GET DIAGNOSTICS step_rows = ROW_COUNT;
    folded := folded + step_rows;
    WITH d AS (
        DELETE FROM case_count_deltas WHERE fold_courts IS NULL OR court = ANY(fold_courts)
        RETURNING court, group_key, cases, not_ok
    ), s AS (
        SELECT court, group_key, sum(cases) AS cases, sum(not_ok) AS not_ok
        FROM d GROUP BY court, group_key
    ), before AS (
        SELECT s.court, s.group_key, coalesce(c.cases, 0) AS cases,
               coalesce(c.not_ok, 0) AS not_ok
        FROM s LEFT JOIN case_counts AS c ON c.court = s.court AND c.group_key = s.group_key
    ), after AS (
        INSERT INTO case_counts AS c (court, group_key, cases, not_ok)
            SELECT court, group_key, cases, not_ok FROM s
            ON CONFLICT (court, group_key) DO UPDATE
                SET cases = c.cases + excluded.cases, not_ok = c.not_ok + excluded.not_ok
            RETURNING c.court, c.group_key, c.cases, c.not_ok
    ), moved AS (
        SELECT a.court,
               (a.cases > 0)::int - (b.cases > 0)::int AS known,
               (a.cases > 0 AND a.not_ok = 0)::int - (b.cases > 0 AND b.not_ok = 0)::int
                   AS complete
        FROM after AS a JOIN before AS b ON b.court = a.court AND b.group_key = a.group_key
    )
    INSERT INTO case_groups AS g (court, known, complete)
        SELECT court, sum(known), sum(complete) FROM moved GROUP BY court
        ON CONFLICT (court) DO UPDATE
            SET known = g.known + excluded.known, complete = g.complete + excluded.complete;
    GET DIAGNOSTICS step_rows = ROW_COUNT;
    RETURN folded + step_rows;
END $$;
""".replace("{lock}", str(_FOLD_LOCK))

_PG_TRIGGERS = """
DROP TRIGGER IF EXISTS requests_count_insert ON requests;
CREATE TRIGGER requests_count_insert AFTER INSERT ON requests
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION harvest_count_insert();
DROP TRIGGER IF EXISTS requests_count_update ON requests;
CREATE TRIGGER requests_count_update AFTER UPDATE ON requests
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION harvest_count_update();
DROP TRIGGER IF EXISTS requests_count_delete ON requests;
CREATE TRIGGER requests_count_delete AFTER DELETE ON requests
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION harvest_count_delete();
"""

_PG_FILL = (
    (
        "TRUNCATE request_count_totals, request_count_deltas, case_counts, case_groups, "
        "case_count_deltas"
    ),
    (
        "INSERT INTO request_count_totals (court, kind, status, n) "
        "SELECT court, kind, status, count(*) FROM requests GROUP BY court, kind, status"
    ),
    (
        "INSERT INTO case_counts (court, group_key, cases, not_ok) "
        "SELECT court, group_key, sum((kind = 'case')::int), sum((status <> 'ok')::int) "
        "FROM requests WHERE group_key IS NOT NULL GROUP BY court, group_key"
    ),
    (
        "INSERT INTO case_groups (court, known, complete) "
        "SELECT court, sum((cases > 0)::int), sum((cases > 0 AND not_ok = 0)::int) "
        "FROM case_counts GROUP BY court"
    ),
)


def ensure_postgres(
    conn: psycopg.Connection[Any], *, lock: int, before: Callable[[], None] | None = None
) -> float | None:
    """Inside the caller's transaction (under the schema lock): create the count schema if the
    database has none yet and fill it from the existing rows, with ``requests`` locked against
    writes from before the fill until the triggers exist (the transaction's end), so no change
    is missed or counted twice; ``lock``: the advisory lock of schema changes (two workers
    upgrading at once); ``before``: called under that lock before anything changes (the
    store waits there for the crawls of an older version to end). Returns the seconds the
    fill took, or ``None`` when the counts were there already (nothing is locked then)."""

    def present() -> bool:
        row = conn.execute("SELECT to_regprocedure('harvest_fold_counts(text[])')").fetchone()
        return row is not None and row[0] is not None

    if present():
        return None
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock,))
    if present():  # another worker did it meanwhile
        return None
    if before is not None:
        before()
    t0 = time.perf_counter()
    conn.execute("LOCK TABLE requests IN SHARE ROW EXCLUSIVE MODE")
    conn.execute(_PG_TABLES)
    conn.execute("DROP VIEW IF EXISTS request_counts")  # the grouping view of older versions
    conn.execute(_PG_VIEWS)
    for statement in _PG_FILL:
        conn.execute(statement)  # type: ignore[arg-type]  # constant SQL
    conn.execute(_PG_FUNCTIONS)  # type: ignore[arg-type]  # constant SQL
    conn.execute(_PG_TRIGGERS)
    took = time.perf_counter() - t0
    logger.info("request state: counts filled from the existing rows in %.2f s", took)
    return took


def fold_postgres(conn: psycopg.Connection[Any], courts: Sequence[str] | None) -> int:
    """Fold the count deltas of ``courts`` (``None``: every court) into the totals, in one
    statement (its own transaction on an autocommit connection). Returns the rows folded (0
    when another worker was folding)."""
    row = conn.execute(
        "SELECT harvest_fold_counts(%s)", (list(courts) if courts is not None else None,)
    ).fetchone()
    return int(row[0]) if row is not None else 0


# --- reading -----------------------------------------------------------------------------------


def _has_counts(conn: StateReader) -> bool:
    if isinstance(conn, sqlite3.Connection):
        sql = "SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = 'case_progress'"
    else:
        sql = "SELECT 1 WHERE to_regclass('case_progress') IS NOT NULL"
    return conn.execute(sql).fetchone() is not None


def case_totals(
    conn: StateReader, courts: Sequence[str] | None = None
) -> dict[str, tuple[int, int]]:
    """Cases ``(known, complete)`` by court, for ``courts`` (``None``: every court), from the
    kept counts; a state written before them (opened read-only, never upgraded) is counted by
    grouping its rows (:func:`old_case_totals`)."""
    if not _has_counts(conn):
        return old_case_totals(conn, courts)
    where, params = _court_filter(courts)
    out: dict[str, tuple[int, int]] = {}
    for court, known, complete in conn.execute(
        f"SELECT court, known, complete FROM case_progress{where}", params
    ):
        if int(known or 0):
            out[str(court)] = (int(known), int(complete or 0))
    return out


def _court_filter(
    courts: Sequence[str] | None, *, and_: bool = False
) -> tuple[str, tuple[str, ...]]:
    if courts is None:
        return "", ()
    marks = ", ".join("?" * len(courts)) or "NULL"
    return f" {'AND' if and_ else 'WHERE'} court IN ({marks})", tuple(courts)


def old_case_totals(
    conn: StateReader, courts: Sequence[str] | None = None
) -> dict[str, tuple[int, int]]:
    """The same answer as :func:`case_totals`, by grouping every row of the courts: what the
    counts replace (kept for states without them, and as the tests' reference)."""
    where, params = _court_filter(courts, and_=True)
    out: dict[str, tuple[int, int]] = {}
    for court, known, complete in conn.execute(
        "SELECT court, count(*), sum(done) FROM ("
        "SELECT court, group_key, sum(CASE WHEN kind = 'case' THEN 1 ELSE 0 END) AS has_case, "
        "CASE WHEN sum(CASE WHEN status <> 'ok' THEN 1 ELSE 0 END) = 0 "
        "AND sum(CASE WHEN kind = 'case' THEN 1 ELSE 0 END) > 0 THEN 1 ELSE 0 END AS done "
        f"FROM requests WHERE group_key IS NOT NULL{where} GROUP BY court, group_key) AS g "
        "WHERE has_case > 0 GROUP BY court",
        params,
    ):
        out[str(court)] = (int(known), int(complete or 0))
    return out
