"""The item store (``<workspace>/items.sqlite``): case parts and merged documents.

Owns the upsert of one part on ``(dedupe_key, part)``, completeness of a case and the merged case
document (docs/contracts.md, Items), on SQLite here and on PostgreSQL through the backend hooks
:class:`pipelines.pg_items.PostgresItemStore` replaces (``HARVEST_DATABASE_URL``,
docs/postgres.md). Every caller opens the store with :func:`open_item_store`. Imports nothing
from Scrapy: ``ship.py`` and ``scrapy export`` read documents through :class:`ItemStore` too.

Files written (an implementation detail; only this module reads them):

``items.sqlite`` (+ ``-wal``/``-shm``), mode ``0600``, WAL, ``synchronous=NORMAL``:

- ``parts``: one row per ``(dedupe_key, part)`` with the canonical JSON of the part's data, its
  ``part_hash``, the item format it was parsed in (``schema_version``, :data:`ITEM_SCHEMA_VERSION`
  for every part this code writes; 1 for the parts of an item store of schema 1), the raw case
  number, url and fetch time (volatile, never hashed), and the times first seen / last changed
  / last seen.
- ``cases``: one row per dedupe key, rewritten in the same transaction whenever one of its parts
  is created or updated: court, source id, ``complete``, the tabs still missing, and the merged
  document's ``content_hash``.

Every upsert is one committed transaction: when :meth:`ItemStore.upsert_part` returns, the part is
on disk (it survives ``kill -9`` of the writer), so the request that produced it may be marked ok.
Nothing is cached in memory: a store of a million cases costs the same RAM as an empty one.
"""

from __future__ import annotations

import calendar
import enum
import hashlib
import itertools
import json
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, NotRequired, Protocol, Self, TypedDict
from urllib.parse import quote

from harvest.base.canonical import (
    ITEM_SCHEMA_VERSION,
    NotCanonicalisable,
    canonical_json,
    document_hash,
    document_hash_from_json,
)
from harvest.base.clock import format_utc, utc_now
from harvest.base.identity import (
    IdentityError,
    normalise_case_number,
    source_type,
    validate_court_id,
)
from harvest.base.items import CASE_PART, TAB_PART_PREFIX
from harvest.base.workspace import private_file, secure_sqlite_files

__all__ = [
    "BUSY_TIMEOUT_MS",
    "CACHE_KIB",
    "SCHEMA_VERSION",
    "InvalidPart",
    "ItemStore",
    "ItemStoreError",
    "LeaseFenced",
    "PartFetch",
    "PartRecord",
    "ShippedDocument",
    "UpsertResult",
    "ValidPart",
    "merge_document",
    "missing_tab_slugs",
    "validate_part",
]

#: ``PRAGMA user_version`` of an item store this module writes. Schema 1 (no
#: ``parts.schema_version``) is upgraded when opened for writing and read as item format 1.
SCHEMA_VERSION = 2
_READABLE_VERSIONS = (1, SCHEMA_VERSION)
#: How long a write waits for another writer (a second crawl, a court in parallel) to finish.
BUSY_TIMEOUT_MS = 30_000
#: SQLite page cache per connection: bounded, whatever the size of the store.
CACHE_KIB = 16_384

_SLUG_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")

_SCHEMA = """
CREATE TABLE parts (
    dedupe_key      TEXT NOT NULL,
    part            TEXT NOT NULL,
    court           TEXT NOT NULL,
    source_id       TEXT NOT NULL,
    case_number_raw TEXT NOT NULL,
    data_json       TEXT NOT NULL,
    part_hash       TEXT NOT NULL,
    schema_version  INTEGER NOT NULL DEFAULT 1,
    url             TEXT NOT NULL,
    fetched_at      TEXT NOT NULL,
    first_seen      TEXT NOT NULL,
    last_changed    TEXT NOT NULL,
    last_seen       TEXT NOT NULL,
    PRIMARY KEY (dedupe_key, part)
);
CREATE TABLE cases (
    dedupe_key    TEXT PRIMARY KEY,
    court         TEXT NOT NULL,
    source_id     TEXT NOT NULL,
    has_case      INTEGER NOT NULL,
    complete      INTEGER NOT NULL,
    missing_tabs  TEXT NOT NULL,
    content_hash  TEXT NOT NULL,
    first_seen    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX cases_by_complete ON cases (complete, dedupe_key);
CREATE INDEX cases_by_court ON cases (court, complete, dedupe_key);
"""


# -- part history (additive: issue 28) ------------------------------------------------------
#: One row per upsert of a part (every fetch that produced it): when, from which URL, its
#: hash and item format, and its data when it was created or changed (NULL when the fetch found
#: the stored data). ``scrapy case`` rebuilds every version of a document from it. Created, if
#: missing, by every writable open on both backends; a store without it has no history yet.
_HISTORY_SCHEMA = """
CREATE TABLE IF NOT EXISTS part_history (
    dedupe_key      TEXT NOT NULL,
    part            TEXT NOT NULL,
    seen_at         TEXT NOT NULL,
    fetched_at      TEXT NOT NULL,
    url             TEXT NOT NULL,
    part_hash       TEXT NOT NULL,
    schema_version  INTEGER NOT NULL,
    result          TEXT NOT NULL,
    data_json       TEXT
);
CREATE INDEX IF NOT EXISTS part_history_by_key ON part_history (dedupe_key, seen_at);
"""
# -- end of part history ----------------------------------------------------------------------

#: The remedy for a damaged item store that loses nothing (the crawl's cross-check rebuilds it).
_MOVE_ASIDE = (
    "move it aside with its -wal/-shm files (e.g. rename it to items.sqlite.bad; nothing was "
    "deleted) and run the crawl again: the request state knows which requests produced parts, "
    "and the crawl fetches again every one whose parts are missing, so the new item store is "
    "complete (`sqlite3 items.sqlite.bad .recover | sqlite3 items.sqlite` first keeps what "
    "can still be read)"
)


class UpsertResult(enum.Enum):
    """What one :meth:`ItemStore.upsert_part` did; ``value`` is the stat name."""

    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    #: the stored part was fetched later than this one: kept, nothing written
    STALE = "stale"


class ItemStoreError(RuntimeError):
    """The item store cannot be used (corrupt, foreign, missing, locked); nothing was written."""


class LeaseFenced(ItemStoreError):
    """The court's lease is no longer this crawl's (it stalled past its TTL and another crawl
    took the court over): the part was not written."""


class InvalidPart(ValueError):
    """A part that cannot be stored. ``reason`` is a short stable slug (used in stat names)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class ValidPart:
    """A part that passed :func:`validate_part`: keys computed, data canonicalised and hashed."""

    court: str
    source_type: str
    source_id: str
    dedupe_key: str
    case_number_raw: str
    part: str
    data_json: str
    part_hash: str


@dataclass(frozen=True)
class PartRecord:
    """One stored part as :meth:`ItemStore.get_part` returns it (times:
    :mod:`harvest.base.clock`)."""

    dedupe_key: str
    part: str
    court: str
    source_id: str
    case_number_raw: str
    data: Any
    part_hash: str
    url: str
    fetched_at: str
    first_seen: str
    last_changed: str
    last_seen: str


@dataclass(frozen=True)
class PartFetch:
    """One row of the part history (:meth:`ItemStore.part_history`): one upsert of a part.

    ``result`` is ``created``, ``updated`` or ``unchanged``; ``data`` is the part's data for
    the first two (``None`` when unchanged: the data of the version before)."""

    dedupe_key: str
    part: str
    seen_at: str
    fetched_at: str
    url: str
    part_hash: str
    schema_version: int
    result: str
    data: Any


def validate_part(*, court: Any, case_number: Any, part: Any, data: Any) -> ValidPart:
    """Check one part and compute its keys and canonical form, or raise :class:`InvalidPart`.

    Reasons: ``missing-court``, ``bad-court``, ``missing-case-number``, ``bad-part`` (part is not
    ``"case"`` or ``"tab:<slug>"``), ``not-serialisable`` (data is not plain JSON: NaN, bytes,
    sets, objects ...), ``bad-case-data`` (the ``case`` part is not an object with a ``tabs`` list
    of ``{"slug": str, "label": str, "available": bool}``).
    """
    if not isinstance(court, str) or not court.strip():
        raise InvalidPart("missing-court", f"part has no court id (got {court!r})")
    try:
        court_id = validate_court_id(court)
    except IdentityError as exc:
        raise InvalidPart("bad-court", str(exc)) from exc
    if not isinstance(case_number, str) or not normalise_case_number(case_number):
        raise InvalidPart(
            "missing-case-number", f"part has no case number (nomor_perkara {case_number!r})"
        )
    source_id = normalise_case_number(case_number)
    if not isinstance(part, str) or not (
        part == CASE_PART
        or (part.startswith(TAB_PART_PREFIX) and _is_slug(part[len(TAB_PART_PREFIX) :]))
    ):
        raise InvalidPart(
            "bad-part",
            f"part name {part!r} is neither 'case' nor 'tab:<slug>' (slug [A-Za-z0-9_-])",
        )
    try:
        data_json = canonical_json(data)
    except NotCanonicalisable as exc:
        raise InvalidPart("not-serialisable", f"data of part {part!r} is {exc}") from exc
    bad_key = _non_string_key(data)
    if bad_key is not None:
        # json.dumps would silently turn it into a string: the stored data would not be the data.
        raise InvalidPart(
            "not-serialisable", f"data of part {part!r} has a non-string object key {bad_key!r}"
        )
    if part == CASE_PART:
        _check_case_data(data)
    stype = source_type(court_id)
    return ValidPart(
        court=court_id,
        source_type=stype,
        source_id=source_id,
        dedupe_key=f"{stype}:{source_id}",
        case_number_raw=case_number,
        part=part,
        data_json=data_json,
        part_hash=_hash_of_canonical(data_json),
    )


def _non_string_key(data: Any) -> object | None:
    """The first object key in ``data`` that is not a string (JSON keys are strings), if any."""
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key in value:
                if not isinstance(key, str):
                    return key  # type: ignore[no-any-return]
            stack.extend(v for v in value.values() if isinstance(v, dict | list | tuple))
        elif isinstance(value, list | tuple):
            stack.extend(v for v in value if isinstance(v, dict | list | tuple))
    return None


def _hash_of_canonical(text: str) -> str:
    """:func:`harvest.base.canonical.content_hash` of the data whose canonical JSON is ``text``.

    The same digest without serialising the data a second time (a test pins the equality).
    """
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _is_slug(text: str) -> bool:
    return _SLUG_RE.fullmatch(text) is not None


def _check_case_data(data: Any) -> None:
    if not isinstance(data, dict):
        raise InvalidPart(
            "bad-case-data",
            f"data of the 'case' part must be an object, not {type(data).__name__}",
        )
    tabs = data.get("tabs")
    if not isinstance(tabs, list):
        raise InvalidPart(
            "bad-case-data", f"the 'case' part must list its tabs in data['tabs'], got {tabs!r}"
        )
    for tab in tabs:
        if not (
            isinstance(tab, dict)
            and isinstance(tab.get("slug"), str)
            and _is_slug(tab["slug"])
            and isinstance(tab.get("available"), bool)
        ):
            raise InvalidPart(
                "bad-case-data",
                f"tab entry {tab!r} of the 'case' part needs a 'slug' ([A-Za-z0-9_-]) and a "
                "boolean 'available'",
            )


class ShippedDocument(TypedDict):
    """The merged case document: what ``ship.py`` posts and ``scrapy export`` writes.

    Its contract is docs/contracts.md (Items); :func:`merge_document` is its one maker.
    """

    dedupe_key: str
    source_type: str
    source_id: str
    #: The item format (docs/item-format.md, "Versions"): the oldest format among its parts.
    schema_version: int
    #: :func:`harvest.base.canonical.document_hash` over ``schema_version``, ``complete``, ``case``
    #: and ``tabs`` (format 1: without ``schema_version``).
    content_hash: str
    complete: bool
    #: The ``case`` part's data; ``None`` while that part is missing (a partial document).
    case: dict[str, Any] | None
    #: Tab slug -> that ``tab:<slug>`` part's data (an object or a list of rows).
    tabs: dict[str, Any]
    #: With ``iter_documents(versions=True)``: milliseconds since the epoch of the merged
    #: document's last change (``cases.updated_at``), strictly increasing per key.
    version: NotRequired[int]


def merge_document(
    *,
    dedupe_key: str,
    source_type: str,
    source_id: str,
    parts: Iterable[tuple[str, Any]],
    schema_version: int = ITEM_SCHEMA_VERSION,
) -> ShippedDocument:
    """The case document (docs/contracts.md, Items) from the ``(part, data)`` pairs of one key.

    ``schema_version`` is the item format of the document: the oldest format among its parts
    (a case only partly parsed again by new code is still of the old format). ``case`` is the
    ``case`` part's data (``None`` while it is missing); ``tabs`` maps each slug to its
    ``tab:<slug>`` part's data, for every tab part present. ``complete`` is true when the
    ``case`` part is present and every tab it lists with ``available`` true has a part.
    ``content_hash`` is :func:`harvest.base.canonical.document_hash` of the document.
    """
    case: Any = None
    tabs: dict[str, Any] = {}
    for part, data in parts:
        if part == CASE_PART:
            case = data
        else:
            tabs[part[len(TAB_PART_PREFIX) :]] = data
    document = ShippedDocument(
        dedupe_key=dedupe_key,
        source_type=source_type,
        source_id=source_id,
        schema_version=schema_version,
        content_hash="",
        complete=case is not None and not missing_tab_slugs(case, tabs),
        case=case,
        tabs=tabs,
    )
    document["content_hash"] = document_hash(document)
    return document


def _later_than(previous: str, now: str) -> str:
    """``now``, or one millisecond after ``previous`` when the clock has not passed it.

    A change's time is strictly after the one before it, also for two changes within one
    millisecond (or after the clock stepped back), so a newer version always compares greater.
    """
    return now if now > previous else format_utc((_version_of(previous) + 1) / 1000)


def _version_of(updated_at: str) -> int:
    """Milliseconds since the epoch of a ``format_utc`` text (``2026-11-30T01:02:03.456Z``)."""
    seconds = calendar.timegm(time.strptime(updated_at[:19], "%Y-%m-%dT%H:%M:%S"))
    return seconds * 1000 + int(updated_at[20:23])


def missing_tab_slugs(case: Any, tabs: dict[str, Any]) -> list[str]:
    """Slugs the ``case`` part lists as available that have no tab part yet (in listed order)."""
    if not isinstance(case, dict):
        return []
    return [
        t["slug"]
        for t in case.get("tabs", [])
        if isinstance(t, dict) and t.get("available") and t.get("slug") not in tabs
    ]


class _Rows(Protocol):
    """What a backend's ``execute`` returns (an sqlite3 or a psycopg cursor)."""

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class ItemStore:
    """The item store: upsert parts, read merged case documents. One instance per process.

    This class owns the contract: validation, the upsert of a part, the merge, the content hash,
    the versions and completeness, in SQL written once (``?`` placeholders, portable between
    SQLite and PostgreSQL). It stores in ``items.sqlite``; :class:`pipelines.pg_items.
    PostgresItemStore` overrides only the backend hooks (connection, schema, transactions,
    per-case lock, snapshot reads, error messages). Open through :func:`open_item_store`.

    Not thread-safe (one connection). Readers (``readonly=True``) may run while a crawl writes:
    each :meth:`iter_documents` sees one consistent snapshot.
    """

    #: The driver's errors a backend hook or query may raise (turned into ItemStoreError).
    _db_errors: ClassVar[tuple[type[Exception], ...]] = (sqlite3.DatabaseError,)

    def __init__(self, path: Path, conn: sqlite3.Connection, *, readonly: bool) -> None:
        self.path = path
        #: How messages name the store: its file, or the database URL without its password.
        self.location = str(path)
        self.readonly = readonly
        self._conn = conn
        self._part_versions = True  # parts.schema_version exists (schema 2)

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, *, readonly: bool = False) -> Self:
        """Open (and, unless ``readonly``, create ``0600``) the item store at ``path``.

        Raises :class:`ItemStoreError` naming the file when it is missing (readonly), not an
        SQLite database, or an SQLite database that is not a harvest item store. Nothing is ever
        deleted or overwritten: the message says to move the file aside.
        """
        path = Path(path)
        if readonly:
            if not path.is_file():
                raise ItemStoreError(
                    f"no item store at {str(path)!r}: nothing has been harvested into this "
                    "workspace yet (run a crawl first, or check HARVEST_WORKSPACE)"
                )
            uri = f"file:{quote(str(path.resolve()))}?mode=ro"
            conn = cls._connect(path, uri, uri=True)
        else:
            cls._create_private(path)
            conn = cls._connect(path, str(path), uri=False)
        store = cls(path, conn, readonly=readonly)
        try:
            store._prepare()
        except BaseException:
            conn.close()
            raise
        return store

    @staticmethod
    def _create_private(path: Path) -> None:
        try:
            private_file(path)
            secure_sqlite_files(path)
        except OSError as exc:
            raise ItemStoreError(
                f"cannot create item store {str(path)!r}: {exc.strerror}; the workspace "
                "directory must exist and be writable by this user (HARVEST_WORKSPACE)"
            ) from exc

    @staticmethod
    def _connect(path: Path, target: str, *, uri: bool) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                target, uri=uri, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000
            )
        except sqlite3.Error as exc:
            raise ItemStoreError(f"cannot open item store {str(path)!r}: {exc}") from exc
        return conn

    def _prepare(self) -> None:
        conn = self._conn
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {
                row[0]
                for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
        except sqlite3.DatabaseError as exc:
            raise ItemStoreError(
                f"{str(self.path)!r} is not a readable SQLite database ({exc}); {_MOVE_ASIDE}"
            ) from exc
        if version == 0 and not tables:
            if self.readonly:
                raise ItemStoreError(
                    f"item store {str(self.path)!r} is empty: nothing has been harvested yet"
                )
            self._create_schema()
        elif version not in _READABLE_VERSIONS or not {"parts", "cases"} <= tables:
            raise ItemStoreError(
                f"{str(self.path)!r} is an SQLite database but not a harvest item store of "
                f"schema {SCHEMA_VERSION} (user_version {version}, tables {sorted(tables)}); "
                "move it aside and re-run: nothing was deleted"
            )
        elif version == 1 and not self.readonly:
            self._upgrade_from_1()
        self._part_versions = version == SCHEMA_VERSION or not self.readonly
        if not self.readonly:
            try:
                conn.executescript(_HISTORY_SCHEMA)
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
            except sqlite3.DatabaseError as exc:
                raise self._error("cannot switch to WAL mode", exc) from exc
            secure_sqlite_files(self.path)

    def _upgrade_from_1(self) -> None:
        """Schema 1 -> 2: ``parts.schema_version``, 1 for every part already stored."""
        with self._write():
            if self._conn.execute("PRAGMA user_version").fetchone()[0] != 1:
                return  # another process upgraded it while we waited for the write lock
            self._conn.execute(
                "ALTER TABLE parts ADD COLUMN schema_version INTEGER NOT NULL DEFAULT 1"
            )
            self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _create_schema(self) -> None:
        with self._write():
            if self._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
                return  # another process created it while we waited for the write lock
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._conn.execute(statement)
            self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        """Close the connection. Nothing depends on it: every upsert is already committed."""
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- backend hooks (SQLite here; PostgresItemStore overrides them) -------------------------

    def _execute(self, sql: str, params: Iterable[Any] = ()) -> _Rows:
        """Run one statement (``?`` placeholders) on the store's connection."""
        return self._conn.execute(sql, tuple(params))

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        """Reads inside see one snapshot (SQLite: each statement already does)."""
        yield

    def _stream(self, sql: str, params: Iterable[Any]) -> Iterator[Any]:
        """The rows of a long query, fetched as they are consumed (memory stays flat)."""
        return self._conn.execute(sql, tuple(params))  # the cursor streams

    @contextmanager
    def _write(self, case_key: str | None = None) -> Iterator[None]:
        """One committed write transaction. SQLite: ``BEGIN IMMEDIATE`` takes the database's
        write lock, so writers of every case are serialised and ``case_key`` needs no lock of
        its own."""
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as exc:
            raise self._error("cannot start a write", exc) from exc
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        try:
            self._conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            self._conn.execute("ROLLBACK")
            raise self._error("cannot commit", exc) from exc

    def _fence(self, court: str) -> None:
        """Inside a write: raise :class:`LeaseFenced` unless this process may write ``court``.
        SQLite: the crawl lock is an ``flock`` no one else can take while its holder lives, so
        there is nothing to check; PostgreSQL checks the court's lease (a fencing token)."""

    def _error(self, what: str, exc: Exception) -> ItemStoreError:
        if "full" in str(exc).lower():
            return ItemStoreError(
                f"item store {str(self.path)!r}: {what}: {exc}: the disk holding the workspace "
                "is full; free space and run the crawl again (nothing is lost: a request is "
                "recorded done only after its parts are stored)"
            )
        return ItemStoreError(
            f"item store {str(self.path)!r}: {what}: {exc} (if it is locked, another process "
            f"held it for more than {BUSY_TIMEOUT_MS // 1000}s; if it is malformed, {_MOVE_ASIDE})"
        )

    def upsert_part(
        self,
        *,
        court: str,
        case_number: str,
        part: str,
        data: Any,
        url: str = "",
        fetched_at: str = "",
        replay: bool = False,
    ) -> UpsertResult:
        """Store one part of one case on ``(dedupe_key, part)``, committed before returning.

        New -> ``CREATED``; same canonical data -> ``UNCHANGED`` (only ``last_seen``, url and
        fetch time move); different data -> ``UPDATED`` (``last_changed`` moves); a part whose
        ``fetched_at`` is older than the stored one's -> ``STALE`` (nothing written: an older
        page never overwrites a newer one; not with ``replay``, a part made again from the archived
        page of the stored one, whose archive time precedes the crawl's parse time of that very
        page: ``scrapy reparse``). On created or updated, the case's completeness and
        document hash are recomputed in the same transaction. Raises :class:`InvalidPart`
        (nothing written) for bad input, :class:`LeaseFenced` when this crawl lost the court's
        lease, and :class:`ItemStoreError` when the database fails (nothing written either).
        """
        if self.readonly:
            raise ItemStoreError(f"item store {self.location!r} was opened read-only")
        valid = validate_part(court=court, case_number=case_number, part=part, data=data)
        with self._write(valid.dedupe_key):
            self._fence(valid.court)
            now = utc_now()  # after the case's lock: later than its last writer's time
            try:
                row = self._execute(
                    "SELECT part_hash, schema_version, last_changed, fetched_at FROM parts"
                    " WHERE dedupe_key = ? AND part = ?",
                    (valid.dedupe_key, valid.part),
                ).fetchone()
                if (
                    not replay
                    and row is not None
                    and fetched_at
                    and row[3]
                    and fetched_at < row[3]
                ):
                    return UpsertResult.STALE  # an older page: the newer one stays
                if row is None:
                    self._execute(
                        "INSERT INTO parts (dedupe_key, part, court, source_id, case_number_raw,"
                        " data_json, part_hash, schema_version, url, fetched_at, first_seen,"
                        " last_changed, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            valid.dedupe_key,
                            valid.part,
                            valid.court,
                            valid.source_id,
                            valid.case_number_raw,
                            valid.data_json,
                            valid.part_hash,
                            ITEM_SCHEMA_VERSION,
                            url,
                            fetched_at,
                            now,
                            now,
                            now,
                        ),
                    )
                    result = UpsertResult.CREATED
                elif row[0] == valid.part_hash and row[1] == ITEM_SCHEMA_VERSION:
                    self._execute(
                        "UPDATE parts SET case_number_raw = ?, url = ?, fetched_at = ?,"
                        " last_seen = ? WHERE dedupe_key = ? AND part = ?",
                        (
                            valid.case_number_raw,
                            url,
                            fetched_at,
                            now,
                            valid.dedupe_key,
                            valid.part,
                        ),
                    )
                    result = UpsertResult.UNCHANGED
                else:
                    # new data, or the same data parsed again in a newer item format
                    changed = _later_than(row[2], now)
                    self._execute(
                        "UPDATE parts SET case_number_raw = ?, data_json = ?, part_hash = ?,"
                        " schema_version = ?, url = ?, fetched_at = ?, last_changed = ?,"
                        " last_seen = ? WHERE dedupe_key = ? AND part = ?",
                        (
                            valid.case_number_raw,
                            valid.data_json,
                            valid.part_hash,
                            ITEM_SCHEMA_VERSION,
                            url,
                            fetched_at,
                            changed,
                            now,
                            valid.dedupe_key,
                            valid.part,
                        ),
                    )
                    result = UpsertResult.UPDATED
                self._record_fetch(valid, result, now, url, fetched_at)
                if result is not UpsertResult.UNCHANGED:
                    self._refresh_case(valid, now, data)
            except self._db_errors as exc:
                raise self._error("cannot write a part", exc) from exc
        return result

    def _record_fetch(
        self, valid: ValidPart, result: UpsertResult, now: str, url: str, fetched_at: str
    ) -> None:
        """The part history row of one upsert (in the upsert's transaction), ``seen_at``
        strictly after the part's previous one (two fetches within a millisecond keep their
        order)."""
        previous = self._execute(
            "SELECT max(seen_at) FROM part_history WHERE dedupe_key = ? AND part = ?",
            (valid.dedupe_key, valid.part),
        ).fetchone()
        if previous is not None and previous[0] is not None:
            now = _later_than(previous[0], now)
        self._execute(
            "INSERT INTO part_history (dedupe_key, part, seen_at, fetched_at, url, part_hash,"
            " schema_version, result, data_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                valid.dedupe_key,
                valid.part,
                now,
                fetched_at,
                url,
                valid.part_hash,
                ITEM_SCHEMA_VERSION,
                result.value,
                None if result is UpsertResult.UNCHANGED else valid.data_json,
            ),
        )

    def _refresh_case(self, valid: ValidPart, now: str, case: Any = None) -> None:
        """The ``cases`` row of ``valid``'s key from its parts' stored canonical texts: the
        document's hash over those texts (:func:`document_hash_from_json`), only the ``case``
        part parsed (for its tab list; ``case``: the data of the part being stored, when it is
        the ``case`` part). The same row as merging the document (a test pins it)."""
        # updated_at is the document's version (iter_documents(versions=True)): strictly
        # increasing per key, also for two changes within one millisecond.
        row = self._execute(
            "SELECT updated_at FROM cases WHERE dedupe_key = ?", (valid.dedupe_key,)
        ).fetchone()
        if row is not None:
            now = _later_than(row[0], now)
        rows = self._execute(
            f"SELECT part, data_json, {self._version_column()} FROM parts WHERE dedupe_key = ?",
            (valid.dedupe_key,),
        ).fetchall()
        case_json: str | None = None
        tabs_json: dict[str, str] = {}
        for part, data_json, _ in rows:
            if part == CASE_PART:
                case_json = data_json
            else:
                tabs_json[part[len(TAB_PART_PREFIX) :]] = data_json
        version = min((r[2] for r in rows), default=ITEM_SCHEMA_VERSION)
        if case_json is not None and (case is None or valid.part != CASE_PART):
            case = json.loads(case_json)
        missing = missing_tab_slugs(case, tabs_json) if case_json is not None else []
        complete = case_json is not None and not missing
        self._execute(
            "INSERT INTO cases (dedupe_key, court, source_id, has_case, complete, missing_tabs,"
            " content_hash, first_seen, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (dedupe_key) DO UPDATE SET has_case = excluded.has_case,"
            " complete = excluded.complete, missing_tabs = excluded.missing_tabs,"
            " content_hash = excluded.content_hash, updated_at = excluded.updated_at",
            (
                valid.dedupe_key,
                valid.court,
                valid.source_id,
                int(case_json is not None),
                int(complete),
                canonical_json(missing),
                document_hash_from_json(
                    schema_version=version,
                    complete=complete,
                    case_json=case_json,
                    tabs_json=tabs_json,
                ),
                now,
                now,
            ),
        )

    def _version_column(self, prefix: str = "") -> str:
        """``parts.schema_version``, or 1 on a schema-1 store opened read-only."""
        return f"{prefix}schema_version" if self._part_versions else "1"

    def _parts_of(self, dedupe_key: str) -> tuple[list[tuple[str, Any]], int]:
        """The ``(part, data)`` pairs of one key and the oldest item format among them."""
        rows = self._execute(
            f"SELECT part, data_json, {self._version_column()} FROM parts WHERE dedupe_key = ?"
            " ORDER BY part",
            (dedupe_key,),
        ).fetchall()
        parts = [(part, json.loads(data_json)) for part, data_json, _ in rows]
        return parts, min((row[2] for row in rows), default=ITEM_SCHEMA_VERSION)

    # -- reading -------------------------------------------------------------------------------

    def iter_documents(
        self,
        *,
        complete_only: bool = True,
        court: str | None = None,
        versions: bool = False,
        changed_since: str | None = None,
    ) -> Iterator[ShippedDocument]:
        """Stream the merged case documents ordered by ``dedupe_key`` (memory stays flat).

        ``complete_only`` keeps complete cases only; ``court`` keeps one court id;
        ``changed_since`` (:mod:`harvest.base.clock` text) the documents created or changed at or
        after that time. The whole iteration reads one snapshot of the store, even while a
        crawl keeps writing.
        """
        where: list[str] = []
        params: list[Any] = []
        if complete_only:
            where.append("c.complete = 1")
        if court is not None:
            where.append("c.court = ?")
            params.append(court)
        if changed_since is not None:
            where.append("c.updated_at >= ?")
            params.append(changed_since)
        sql = (
            "SELECT c.dedupe_key, c.court, c.source_id, p.part, p.data_json, c.updated_at,"
            f" {self._version_column('p.')}"
            " FROM cases AS c JOIN parts AS p ON p.dedupe_key = c.dedupe_key"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY c.dedupe_key, p.part"
        )
        try:
            with self._snapshot():
                rows = self._stream(sql, params)
                for key, grouped in itertools.groupby(rows, key=lambda row: row[0]):
                    case = list(grouped)  # the parts of one case only
                    document = merge_document(
                        dedupe_key=key,
                        source_type=source_type(case[0][1]),
                        source_id=case[0][2],
                        parts=((row[3], json.loads(row[4])) for row in case),
                        schema_version=min(row[6] for row in case),
                    )
                    if versions:
                        document["version"] = _version_of(case[0][5])
                    yield document
        except self._db_errors as exc:
            raise self._error("cannot read documents", exc) from exc

    def get_document(self, dedupe_key: str) -> ShippedDocument | None:
        """The merged document of one dedupe key, complete or not; ``None`` if no part exists."""
        try:
            row = self._execute(
                "SELECT court, source_id FROM cases WHERE dedupe_key = ?", (dedupe_key,)
            ).fetchone()
            if row is None:
                return None
            parts, version = self._parts_of(dedupe_key)
            return merge_document(
                dedupe_key=dedupe_key,
                source_type=source_type(row[0]),
                source_id=row[1],
                parts=parts,
                schema_version=version,
            )
        except self._db_errors as exc:
            raise self._error("cannot read a document", exc) from exc

    def count_documents(self, *, complete_only: bool = False) -> int:
        """How many cases have at least one part (``complete_only``: how many are complete)."""
        sql = "SELECT count(*) FROM cases" + (" WHERE complete = 1" if complete_only else "")
        try:
            return int(self._execute(sql).fetchone()[0])
        except self._db_errors as exc:
            raise self._error("cannot count documents", exc) from exc

    def changes_since(self, since: str, *, court: str) -> tuple[int, int]:
        """For a refresh that started at ``since`` (:mod:`harvest.base.clock` text): how many
        of the court's documents stored before it changed after it (their version moved), and
        how many were first stored after it."""
        try:
            row = self._execute(
                "SELECT coalesce(sum(CASE WHEN first_seen < ? AND updated_at >= ? THEN 1 ELSE 0"
                " END), 0), coalesce(sum(CASE WHEN first_seen >= ? THEN 1 ELSE 0 END), 0)"
                " FROM cases WHERE court = ?",
                (since, since, since, court),
            ).fetchone()
        except self._db_errors as exc:
            raise self._error("cannot count changed documents", exc) from exc
        return int(row[0]), int(row[1])

    def count_parts(self) -> int:
        """How many part rows the store holds."""
        try:
            return int(self._execute("SELECT count(*) FROM parts").fetchone()[0])
        except self._db_errors as exc:
            raise self._error("cannot count parts", exc) from exc

    def get_part(self, dedupe_key: str, part: str) -> PartRecord | None:
        """One stored part with its hash and timestamps, or ``None``."""
        try:
            row = self._execute(
                "SELECT dedupe_key, part, court, source_id, case_number_raw, data_json, part_hash,"
                " url, fetched_at, first_seen, last_changed, last_seen"
                " FROM parts WHERE dedupe_key = ? AND part = ?",
                (dedupe_key, part),
            ).fetchone()
        except self._db_errors as exc:
            raise self._error("cannot read a part", exc) from exc
        if row is None:
            return None
        values = list(row)
        values[5] = json.loads(values[5])
        return PartRecord(*values)

    def part_history(self, dedupe_key: str) -> list[PartFetch]:
        """Every recorded upsert of the parts of one case, oldest first (``[]``: none, or a
        store written before the history existed)."""
        try:
            rows = self._execute(
                "SELECT dedupe_key, part, seen_at, fetched_at, url, part_hash, schema_version,"
                " result, data_json FROM part_history WHERE dedupe_key = ?"
                " ORDER BY seen_at, part",
                (dedupe_key,),
            ).fetchall()
        except self._db_errors as exc:
            if self._missing_table(exc):
                return []
            raise self._error("cannot read the part history", exc) from exc
        return [
            PartFetch(
                dedupe_key=row[0],
                part=row[1],
                seen_at=row[2],
                fetched_at=row[3],
                url=row[4],
                part_hash=row[5],
                schema_version=int(row[6]),
                result=row[7],
                data=json.loads(row[8]) if row[8] is not None else None,
            )
            for row in rows
        ]

    def _missing_table(self, exc: Exception) -> bool:
        """True when ``exc`` says a table does not exist (an older store, read-only)."""
        text = str(exc)
        return "no such table" in text or ('relation "' in text and "does not exist" in text)

    def find_by_number(self, number: str) -> list[str]:
        """The dedupe keys of every court's case with this (normalised) case number."""
        try:
            rows = self._execute(
                "SELECT dedupe_key FROM cases WHERE source_id = ? ORDER BY dedupe_key", (number,)
            ).fetchall()
        except self._db_errors as exc:
            raise self._error("cannot look up a case number", exc) from exc
        return [str(row[0]) for row in rows]

    def iter_case_parts(self, court: str | None = None) -> Iterator[tuple[str, Any]]:
        """``(dedupe_key, data)`` of every stored ``case`` part (of one court), in key order,
        from one snapshot."""
        sql = "SELECT dedupe_key, data_json FROM parts WHERE part = ?"
        params: list[Any] = [CASE_PART]
        if court is not None:
            sql += " AND court = ?"
            params.append(court)
        try:
            with self._snapshot():
                for key, data_json in self._stream(sql + " ORDER BY dedupe_key", params):
                    yield str(key), json.loads(data_json)
        except self._db_errors as exc:
            raise self._error("cannot read case parts", exc) from exc

    def older_parts(self, court: str) -> list[tuple[str, str]]:
        """``(source_id, part)`` of the court's parts stored in an item format older than
        :data:`ITEM_SCHEMA_VERSION` (written by an older harvest), in key order."""
        try:
            rows = self._execute(
                f"SELECT source_id, part FROM parts WHERE court = ? AND {self._version_column()}"
                " < ? ORDER BY dedupe_key, part",
                (court, ITEM_SCHEMA_VERSION),
            ).fetchall()
        except self._db_errors as exc:
            raise self._error("cannot list the parts of an older format", exc) from exc
        return [(str(r[0]), str(r[1])) for r in rows]

    def missing_tabs(self, dedupe_key: str) -> list[str] | None:
        """The available tabs a case still waits for (``None``: no such case, or no case part)."""
        try:
            row = self._execute(
                "SELECT has_case, missing_tabs FROM cases WHERE dedupe_key = ?", (dedupe_key,)
            ).fetchone()
        except self._db_errors as exc:
            raise self._error("cannot read a case", exc) from exc
        if row is None or not row[0]:
            return None
        result: list[str] = json.loads(row[1])
        return result
