"""What the two PostgreSQL stores share: the request store (:mod:`extensions.pg_store`) and
the item store (:mod:`pipelines.pg_items`) connect (:func:`connect`) and create or check their
schema (:func:`prepare_schema`) the same way.

Each store keeps its version in a one-column table of its own (``harvest_schema``,
``harvest_item_schema``) and creates its tables under an advisory lock, so that workers
starting together create them once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import psycopg
from psycopg import sql

from harvest.base.dburl import scrub
from harvest.base.scrubbing import redact_url

__all__ = [
    "CONNECT_TIMEOUT",
    "connect",
    "drop_lease",
    "hold_lease",
    "lease_token",
    "prepare_schema",
]

#: Seconds to wait for the server when connecting.
CONNECT_TIMEOUT: Final = 10


# --- the fencing tokens of this process's court leases ------------------------------------------
#: (database, court) -> the token (``court_leases.holder``) of the lease this process took. Kept
#: after the lease is lost (taken over): the item store then finds another token in the row and
#: refuses the write (:mod:`pipelines.pg_items`); removed when the lease is given up.
_LEASES: dict[tuple[str, str], str] = {}


def hold_lease(url: str, court: str, token: str) -> None:
    """Record that this process holds ``court``'s lease in the database of ``url``."""
    _LEASES[(redact_url(url), court)] = token


def drop_lease(url: str, court: str) -> None:
    """This process gave ``court``'s lease up: its writes are no longer fenced by it."""
    _LEASES.pop((redact_url(url), court), None)


def lease_token(url: str, court: str) -> str | None:
    """The token of the lease this process took on ``court`` (``None``: it took none)."""
    return _LEASES.get((redact_url(url), court))


def connect(
    url: str,
    *,
    what: str,
    error: Callable[[str], Exception],
    session: Mapping[str, str] | None = None,
) -> psycopg.Connection[Any]:
    """An autocommit connection to ``url`` with the ``session`` settings (``set_config``, so
    the URL's own options, e.g. ``search_path``, stay). Fails with ``error(message)``: the
    message names the ``what`` database by its URL without the password, the driver's reason
    (scrubbed of it too) and what to check."""
    try:
        conn = psycopg.connect(
            url,
            autocommit=True,
            connect_timeout=CONNECT_TIMEOUT,
            fallback_application_name="harvest",
        )
        try:
            for name, value in (session or {}).items():
                conn.execute("SELECT set_config(%s, %s, false)", (name, value))
        except BaseException:
            conn.close()
            raise
        return conn
    except psycopg.Error as exc:
        raise error(
            f"cannot connect to the {what} database {redact_url(url)}: "
            f"{scrub(str(exc).strip(), url)}; check that the PostgreSQL server runs and accepts "
            "connections from this machine, and the user, password and database name in "
            "HARVEST_DATABASE_URL"
        ) from None


def prepare_schema(
    conn: psycopg.Connection[Any],
    *,
    version_table: str,
    version: int,
    schema: str,
    lock: Sequence[int],
    columns: Mapping[str, str] | Callable[[int], Mapping[str, str]],
    readonly: bool,
    nothing_yet: Callable[[], Exception],
    other_version: Callable[[object], Exception],
    upgrades: Mapping[int, Callable[[psycopg.Connection[Any]], None]] | None = None,
) -> int:
    """In the caller's transaction: without ``version_table``, raise ``nothing_yet()`` when
    ``readonly``, else take the advisory lock ``lock`` and run ``schema`` (idempotent
    statements) and record ``version``. A recorded older version with an entry in ``upgrades``
    is upgraded (writable: under the lock, re-read first, since another worker may have done it
    meanwhile; the upgrade records ``version``) or, read-only, read as it is. Then raise
    ``other_version(found)`` unless the version is ``version`` or a readable older one, and
    select ``columns`` (of that version, when a function) of each table (a table of that name
    that is not ours fails with the driver's error). Returns the version found."""
    table = sql.Identifier(version_table)
    keys = sql.SQL(", ").join(sql.Literal(k) for k in lock)
    present = conn.execute("SELECT to_regclass(%s)", (version_table,)).fetchone()
    if present is None or present[0] is None:
        if readonly:
            raise nothing_yet()
        conn.execute(sql.SQL("SELECT pg_advisory_xact_lock({})").format(keys))
        conn.execute(schema)  # type: ignore[arg-type]  # no parameters: many statements
        if conn.execute(sql.SQL("SELECT version FROM {}").format(table)).fetchone() is None:
            conn.execute(sql.SQL("INSERT INTO {} (version) VALUES (%s)").format(table), (version,))

    def recorded() -> int | None:
        row = conn.execute(sql.SQL("SELECT max(version) FROM {}").format(table)).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    found = recorded()
    upgrades = upgrades or {}
    if found in upgrades and not readonly:
        conn.execute(sql.SQL("SELECT pg_advisory_xact_lock({})").format(keys))
        found = recorded()
        upgrade = upgrades.get(found) if found is not None else None
        if upgrade is not None:
            upgrade(conn)
            found = recorded()
    if found != version and found not in upgrades:
        raise other_version(found)
    assert found is not None  # == version, or a key of upgrades
    wanted = columns(found) if callable(columns) else columns
    for name, cols in wanted.items():
        conn.execute(
            sql.SQL("SELECT {} FROM {} LIMIT 0").format(sql.SQL(cols), sql.Identifier(name))  # type: ignore[arg-type]
        )
    return found
