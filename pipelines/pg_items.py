"""The item store on PostgreSQL: the tables of ``items.sqlite`` in the database of
``HARVEST_DATABASE_URL``, shared by every crawl of every machine.

:class:`PostgresItemStore` is an :class:`pipelines.store.ItemStore`: validation, the upsert, the
merge, the content hash, the versions and completeness are that class's code and SQL; this
module supplies only the backend (docs/postgres.md, "The item store"):

* the schema: ``parts`` and ``cases`` with the columns of ``items.sqlite`` (the same
  ``CREATE`` statements), and ``harvest_item_schema (version)`` for SQLite's ``user_version``;
  created once under an advisory lock (workers starting together);
* writes: one transaction per upsert (autocommit connection, ``BEGIN``/``COMMIT``), which first
  takes a **per-case advisory lock** (``pg_advisory_xact_lock(class, hashtext(dedupe_key))``):
  two processes writing parts of one case are serialised, so the second sees the first's part
  when it merges the case (no part lost from ``cases``, versions strictly increasing); writers
  of different cases never wait on each other;
* reads: :meth:`~pipelines.store.ItemStore.iter_documents` runs in one ``REPEATABLE READ``
  transaction through a server-side cursor: one snapshot, memory flat.

The URL's password never appears in a message: the store is named by
:func:`harvest.base.scrubbing.redact_url` (:attr:`location`) and driver messages are scrubbed.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar, Final, Self

import psycopg
from psycopg.pq import TransactionStatus

from harvest.base.dburl import is_database_url, scrub
from harvest.base.scrubbing import redact_url
from harvest.postgres import connect, lease_token, prepare_schema
from pipelines.store import (
    _HISTORY_SCHEMA,
    _SCHEMA,
    BUSY_TIMEOUT_MS,
    SCHEMA_VERSION,
    ItemStore,
    ItemStoreError,
    LeaseFenced,
    _Rows,
)

__all__ = ["PostgresItemStore"]

#: First key of the item store's advisory locks (two-key form: apart from the request
#: store's one-key schema lock). Second key: 0 for the schema, ``hashtext(dedupe_key)`` for a case.
_LOCK_CLASS: Final = 0x6974656D  # "item"

#: ``items.sqlite``'s statements, made idempotent (workers create them concurrently), without
#: SQLite's ``WITHOUT ROWID``, keys in the ``"C"`` collation (byte order, as SQLite sorts them:
#: documents stream in the same order whatever the database's locale); ``parts_by_court``:
#: the request store's per-court cross-check reads the pairs of one court.
_PG_SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS harvest_item_schema (version INTEGER NOT NULL);"
    + re.sub(r"\b(dedupe_key|part)(\s+)TEXT", r'\1\2TEXT COLLATE "C"', _SCHEMA)
    .replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS")
    .replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS")
    .replace(") WITHOUT ROWID;", ");")
    + "CREATE INDEX IF NOT EXISTS parts_by_court ON parts (court);"
)
#: The part history (issue 28, additive): ``items.sqlite``'s statement, keys in "C" collation;
#: created under the schema lock by every writable connection (an older database gains it).
_PG_HISTORY_SCHEMA: Final = re.sub(
    r"\b(dedupe_key|part)(\s+)TEXT", r'\1\2TEXT COLLATE "C"', _HISTORY_SCHEMA
)
_COLUMNS: Final = {
    "parts": "dedupe_key, part, court, source_id, case_number_raw, data_json, part_hash, "
    "schema_version, url, fetched_at, first_seen, last_changed, last_seen",
    "cases": "dedupe_key, court, source_id, has_case, complete, missing_tabs, content_hash, "
    "first_seen, updated_at",
}
_cursor_names = itertools.count(1)


class PostgresItemStore(ItemStore):
    """:class:`~pipelines.store.ItemStore` on a PostgreSQL database (module docstring)."""

    _db_errors: ClassVar[tuple[type[Exception], ...]] = (psycopg.Error,)

    def __init__(self, url: str, conn: psycopg.Connection[Any], *, readonly: bool) -> None:
        # not ItemStore.__init__: no file, no sqlite3 connection
        self.location = redact_url(url)
        self.readonly = readonly
        self._url = url
        self._pg = conn
        self._part_versions = True

    @classmethod
    def open(cls, path: Path, *, readonly: bool = False) -> Self:
        """Not for this backend (no file): :meth:`connect` to a database URL."""
        raise TypeError(
            f"PostgresItemStore stores in a database, not in {str(path)!r}: use "
            "PostgresItemStore.connect(url) or pipelines.item_backends.open_item_store"
        )

    @classmethod
    def connect(cls, url: str, *, readonly: bool = False) -> PostgresItemStore:
        """Connect to the database at ``url``; create the tables unless ``readonly``.

        Raises :class:`ItemStoreError` (not a PostgreSQL URL, server unreachable, login refused,
        no item store yet when ``readonly``, tables that are not harvest's, another schema
        version), never naming the password.
        """
        where = redact_url(url)
        if not is_database_url(url):
            raise ItemStoreError(
                f"{where!r} is not a PostgreSQL URL; give "
                "HARVEST_DATABASE_URL=postgresql://user:password@host:port/dbname, or unset it "
                "to keep the items in the workspace (items.sqlite)"
            )
        conn = connect(
            url,
            what="item-store",
            error=ItemStoreError,
            # as items.sqlite's synchronous=NORMAL: a commit survives the writer's crash, not
            # the server's last moment; WAL order keeps the request state behind the items
            session={"lock_timeout": f"{BUSY_TIMEOUT_MS}ms", "synchronous_commit": "off"},
        )
        try:
            conn.read_only = readonly
            _prepare(conn, url, readonly=readonly)
        except psycopg.Error as exc:
            conn.close()
            raise ItemStoreError(
                f"cannot use item store {where}: {scrub(str(exc).strip(), url)}; the database "
                "is damaged or holds tables named parts or cases that are not a harvest item "
                "store. Nothing was changed. Give HARVEST_DATABASE_URL a database of its own "
                "(createdb harvest), or restore this one from its backup (pg_dump / pg_restore)"
            ) from None
        except BaseException:
            conn.close()
            raise
        return cls(url, conn, readonly=readonly)

    def close(self) -> None:
        """Disconnect. Nothing depends on it: every upsert is already committed."""
        self._pg.close()

    # -- backend hooks --------------------------------------------------------------------------

    def _execute(self, sql: str, params: Iterable[Any] = ()) -> _Rows:
        return self._pg.execute(sql.replace("?", "%s"), tuple(params))  # type: ignore[arg-type]

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        if self._pg.info.transaction_status != TransactionStatus.IDLE:
            yield  # already inside a transaction (an upsert reading): its snapshot
            return
        with self._pg.transaction():
            self._pg.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            yield

    def _stream(self, sql: str, params: Iterable[Any]) -> Iterator[Any]:
        with self._pg.cursor(name=f"harvest_items_{next(_cursor_names)}") as cursor:
            cursor.itersize = 500
            cursor.execute(sql.replace("?", "%s"), tuple(params))  # type: ignore[arg-type]
            yield from cursor

    @contextmanager
    def _write(self, case_key: str | None = None) -> Iterator[None]:
        """One transaction, committed on exit; with ``case_key``, first the case's lock."""
        try:
            with self._pg.transaction():
                if case_key is not None:
                    self._pg.execute(
                        "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_CLASS, case_key)
                    )
                yield
        except psycopg.Error as exc:
            raise self._error("cannot write", exc) from None

    def _fence(self, court: str) -> None:
        """The fencing token: when this process took ``court``'s lease in this database
        (:func:`harvest.postgres.lease_token`), the lease row must still name it, read with a
        ``FOR SHARE`` lock in the write's own transaction, so that a takeover waits for this
        write and a write after a takeover is refused (nothing written)."""
        token = lease_token(self._url, court)
        if token is None:
            return  # this process holds no lease of the court (not a crawl): nothing to fence
        row = self._pg.execute(
            "SELECT holder, pid, host FROM court_leases WHERE court = %s FOR SHARE", (court,)
        ).fetchone()
        if row is None or row[0] != token:
            who = "nobody" if row is None else f"pid {row[1]} host {row[2]}"
            raise LeaseFenced(
                f"item store {self.location}: the lease of court {court!r} is no longer this "
                f"crawl's (it stalled past HARVEST_LEASE_TTL and the court is now held by "
                f"{who}): the part was not written, the crawl that holds the court stores it"
            )

    def _error(self, what: str, exc: Exception) -> ItemStoreError:
        return ItemStoreError(
            f"item store {self.location}: {what}: {scrub(_one_line(exc), self._url)}; check "
            "that the PostgreSQL server runs and is reachable (nothing of this write was kept: "
            "the request that produced it is not marked done, the next crawl fetches it again)"
        )


def _prepare(conn: psycopg.Connection[Any], url: str, *, readonly: bool) -> None:
    """Create the tables (writable) and check they are harvest's, at this version."""
    where = redact_url(url)
    with conn.transaction():
        prepare_schema(
            conn,
            version_table="harvest_item_schema",
            version=SCHEMA_VERSION,
            schema=_PG_SCHEMA,
            lock=(_LOCK_CLASS, 0),
            columns=_COLUMNS,
            readonly=readonly,
            nothing_yet=lambda: ItemStoreError(
                f"no item store in {where}: nothing has been harvested into this database "
                "yet (run a crawl with this HARVEST_DATABASE_URL first, or check it)"
            ),
            other_version=lambda found: ItemStoreError(
                f"{where} has item-store schema version {found}, this code expects "
                f"{SCHEMA_VERSION}; use a matching harvest version or another database"
            ),
        )
        if not readonly:
            exists = conn.execute("SELECT to_regclass('part_history')").fetchone()
            if exists is None or exists[0] is None:
                conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (_LOCK_CLASS,))
                conn.execute(_PG_HISTORY_SCHEMA)  # type: ignore[arg-type]  # many statements


def _one_line(exc: BaseException) -> str:
    """The text of ``exc`` on one line (libpq's messages span several)."""
    return " ".join(str(exc).split())
