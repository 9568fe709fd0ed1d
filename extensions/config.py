"""The scheduler's settings (``HARVEST_STATE_*``), parsed once into a validated frozen dataclass.

==============================  =======  ===============================================
setting                         type     default / meaning
==============================  =======  ===============================================
``HARVEST_WORKSPACE``           str      see :mod:`harvest.base.workspace`; state.sqlite
                                         lives there
``HARVEST_STATE_STORE``         str      ``extensions.sqlite_store.SqliteRequestStore``
``HARVEST_STATE_BUSY_TIMEOUT``  float    ``30.0`` seconds SQLite waits for a lock
``HARVEST_STATE_SYNCHRONOUS``   str      ``NORMAL`` (or ``FULL``: survive power loss too)
``HARVEST_STATE_URL_LOG``       bool     ``True``: write every HTTP exchange to url_log
``HARVEST_STATE_COMMIT``        str      ``turn``: the transitions of one reactor turn are
                                         committed together at its end (group commit);
                                         ``each``: every transition commits on its own
``HARVEST_CASE_LOOKAHEAD``      int      ``1``: a court works on at most its concurrency
                                         (``CONCURRENT_REQUESTS_PER_DOMAIN``, or its
                                         ``DOWNLOAD_SLOTS`` entry) + this many cases
                                         (request groups) at once; ``-1``: no cap
``HARVEST_DATABASE_URL``        str      unset (SQLite); ``postgresql://user:pw@host/db``:
                                         the request state on PostgreSQL
                                         (:mod:`extensions.pg_store`, docs/postgres.md);
                                         the setting, else the environment variable
``HARVEST_LEASE_TTL``           float    :data:`extensions.store.DEFAULT_LEASE_TTL` seconds
                                         a court lease (PostgreSQL) lives without a
                                         heartbeat; the setting, else the environment
                                         variable
==============================  =======  ===============================================
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING

from scrapy.utils.misc import load_object

from harvest.base.settings_error import SettingsError
from harvest.base.workspace import STATE_DB, WORKSPACE_ENV, ensure_workspace, resolve_workspace

from .store import DEFAULT_LEASE_TTL

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.settings import BaseSettings

    from .store import RequestStore

__all__ = ["DEFAULT_STORE", "SchedulerConfig"]

DEFAULT_STORE = "extensions.sqlite_store.SqliteRequestStore"
DEFAULT_BUSY_TIMEOUT = 30.0
DEFAULT_SYNCHRONOUS = "NORMAL"
DEFAULT_URL_LOG = True
DEFAULT_COMMIT = "turn"
DEFAULT_CASE_LOOKAHEAD = 1
#: Scrapy's default CONCURRENT_REQUESTS_PER_DOMAIN (the court concurrency if nothing says more).
DEFAULT_COURT_CONCURRENCY = 8
DATABASE_URL_ENV = "HARVEST_DATABASE_URL"
LEASE_TTL_ENV = "HARVEST_LEASE_TTL"
PG_STORE = "extensions.pg_store.PostgresRequestStore"
_SYNCHRONOUS = ("NORMAL", "FULL", "EXTRA")
_COMMIT = ("turn", "each")


@dataclasses.dataclass(frozen=True)
class SchedulerConfig:
    workspace: str
    store: str = DEFAULT_STORE
    busy_timeout: float = DEFAULT_BUSY_TIMEOUT
    synchronous: str = DEFAULT_SYNCHRONOUS
    url_log: bool = DEFAULT_URL_LOG
    commit: str = DEFAULT_COMMIT
    #: extra cases beyond the court's concurrency; ``-1``: no cap on started cases
    case_lookahead: int = DEFAULT_CASE_LOOKAHEAD
    #: requests in flight per court (``CONCURRENT_REQUESTS_PER_IP`` or ``_PER_DOMAIN``)
    court_concurrency: int = DEFAULT_COURT_CONCURRENCY
    #: ``DOWNLOAD_SLOTS`` concurrency by host (slot key), where set
    slot_concurrency: tuple[tuple[str, int], ...] = ()
    #: ``HARVEST_DATABASE_URL``: PostgreSQL instead of ``state.sqlite`` (never in a repr: it
    #: may hold a password)
    database_url: str | None = dataclasses.field(default=None, repr=False)
    #: ``HARVEST_LEASE_TTL``: seconds a court lease lives without a heartbeat (PostgreSQL)
    lease_ttl: float = DEFAULT_LEASE_TTL

    def __post_init__(self) -> None:
        if self.database_url:
            from harvest.base.dburl import is_database_url
            from harvest.base.scrubbing import redact_url

            if not is_database_url(self.database_url):
                raise SettingsError(
                    f"{DATABASE_URL_ENV} must be a postgresql:// URL "
                    "(postgresql://user:password@host:port/dbname), got "
                    f"{redact_url(self.database_url)!r}; unset it to keep the state in SQLite"
                )
            if self.store not in (DEFAULT_STORE, PG_STORE):
                raise SettingsError(
                    f"{DATABASE_URL_ENV} and HARVEST_STATE_STORE {self.store!r} both choose the "
                    "state store: set only one"
                )
            object.__setattr__(self, "store", PG_STORE)
        if not self.lease_ttl > 0:
            raise SettingsError(
                f"{LEASE_TTL_ENV} must be a positive number of seconds, got {self.lease_ttl!r} "
                f"(default {DEFAULT_LEASE_TTL})"
            )
        if self.case_lookahead < -1:
            raise SettingsError(
                f"HARVEST_CASE_LOOKAHEAD must be a whole number >= 0 (or -1: no cap on started "
                f"cases), got {self.case_lookahead!r} (default {DEFAULT_CASE_LOOKAHEAD})"
            )
        if self.commit not in _COMMIT:
            raise SettingsError(
                f"HARVEST_STATE_COMMIT must be one of {', '.join(_COMMIT)}, got "
                f"{self.commit!r} (default {DEFAULT_COMMIT})"
            )
        if not self.busy_timeout > 0:
            raise SettingsError(
                f"HARVEST_STATE_BUSY_TIMEOUT must be a positive number of seconds, got "
                f"{self.busy_timeout!r} (default {DEFAULT_BUSY_TIMEOUT})"
            )
        if self.synchronous not in _SYNCHRONOUS:
            raise SettingsError(
                f"HARVEST_STATE_SYNCHRONOUS must be one of {', '.join(_SYNCHRONOUS)}, got "
                f"{self.synchronous!r} (default {DEFAULT_SYNCHRONOUS})"
            )
        try:
            load_object(self.store)
        except (ImportError, NameError, ValueError, AttributeError) as exc:
            raise SettingsError(
                f"HARVEST_STATE_STORE {self.store!r} cannot be imported ({exc}); give the "
                f"import path of a RequestStore class, default {DEFAULT_STORE}"
            ) from exc

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> SchedulerConfig:
        try:
            busy = settings.getfloat("HARVEST_STATE_BUSY_TIMEOUT", DEFAULT_BUSY_TIMEOUT)
        except ValueError as exc:
            raise SettingsError(
                "HARVEST_STATE_BUSY_TIMEOUT must be a number of seconds, got "
                f"{settings.get('HARVEST_STATE_BUSY_TIMEOUT')!r}"
            ) from exc
        try:
            lookahead = settings.getint("HARVEST_CASE_LOOKAHEAD", DEFAULT_CASE_LOOKAHEAD)
        except ValueError as exc:
            raise SettingsError(
                "HARVEST_CASE_LOOKAHEAD must be a whole number (-1: no cap), got "
                f"{settings.get('HARVEST_CASE_LOOKAHEAD')!r}"
            ) from exc
        slots = settings.getdict("DOWNLOAD_SLOTS")
        ttl = settings.get(LEASE_TTL_ENV) or os.environ.get(LEASE_TTL_ENV) or DEFAULT_LEASE_TTL
        try:
            lease_ttl = float(ttl)
        except ValueError as exc:
            raise SettingsError(
                f"{LEASE_TTL_ENV} must be a number of seconds, got {ttl!r}"
            ) from exc
        database = str(settings.get(DATABASE_URL_ENV) or os.environ.get(DATABASE_URL_ENV) or "")
        given_store = str(settings.get("HARVEST_STATE_STORE") or "").strip()
        if database and given_store and given_store != PG_STORE:
            # even the default SQLite store, named explicitly: the two settings disagree
            raise SettingsError(
                f"HARVEST_STATE_STORE={given_store} and {DATABASE_URL_ENV} both choose the "
                "request state store: set only one (HARVEST_DATABASE_URL alone keeps the state "
                "in PostgreSQL; HARVEST_STATE_STORE alone in SQLite)"
            )
        return cls(
            database_url=database or None,
            lease_ttl=lease_ttl,
            case_lookahead=lookahead,
            court_concurrency=settings.getint("CONCURRENT_REQUESTS_PER_IP")
            or settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN", DEFAULT_COURT_CONCURRENCY),
            slot_concurrency=tuple(
                (str(host), int(slot["concurrency"]))
                for host, slot in slots.items()
                if isinstance(slot, dict) and "concurrency" in slot
            ),
            workspace=str(settings.get(WORKSPACE_ENV) or ""),
            store=str(settings.get("HARVEST_STATE_STORE") or DEFAULT_STORE),
            busy_timeout=busy,
            synchronous=str(
                settings.get("HARVEST_STATE_SYNCHRONOUS") or DEFAULT_SYNCHRONOUS
            ).upper(),
            url_log=settings.getbool("HARVEST_STATE_URL_LOG", DEFAULT_URL_LOG),
            commit=str(settings.get("HARVEST_STATE_COMMIT") or DEFAULT_COMMIT).lower(),
        )

    def case_cap(self, host: str | None) -> int | None:
        """Cases (request groups) a court on ``host`` works on at once; ``None``: no cap.

        The court's concurrency (its ``DOWNLOAD_SLOTS`` entry, else the per-domain setting)
        plus ``HARVEST_CASE_LOOKAHEAD``: enough cases to keep every allowed request in flight
        and one ready when the politeness delay ends.
        """
        if self.case_lookahead < 0:
            return None
        concurrency = dict(self.slot_concurrency).get(host or "", self.court_concurrency)
        return max(1, concurrency) + self.case_lookahead

    def open_store(
        self,
        *,
        readonly: bool = False,
        defer_commit: Callable[[Callable[[], None]], None] | None = None,
    ) -> RequestStore:
        """Open ``<workspace>/state.sqlite`` with the configured store class, or the
        PostgreSQL database of ``HARVEST_DATABASE_URL`` when it is set.

        ``defer_commit`` (group commit) is passed on only when ``HARVEST_STATE_COMMIT`` is
        ``turn``.

        Raises :class:`harvest.base.workspace.WorkspaceError` (workspace not usable) or
        :class:`extensions.store.StateError` (state missing when ``readonly``, or damaged).
        """
        if self.database_url:
            from .pg_store import PostgresRequestStore

            return PostgresRequestStore.open(
                self.database_url,
                readonly=readonly,
                busy_timeout=self.busy_timeout,
                synchronous=self.synchronous,
                defer_commit=defer_commit if self.commit == "turn" else None,
                lease_ttl=self.lease_ttl,
            )
        workspace = resolve_workspace(self.workspace)
        if not readonly:
            ensure_workspace(workspace)
        store: RequestStore = load_object(self.store).open(
            workspace / STATE_DB,
            readonly=readonly,
            busy_timeout=self.busy_timeout,
            synchronous=self.synchronous,
            defer_commit=defer_commit if self.commit == "turn" else None,
        )
        return store
