"""The scheduler's settings (``HARVEST_STATE_*``), parsed once into a validated frozen dataclass.

==============================  =======  ===============================================
setting                         type     default / meaning
==============================  =======  ===============================================
``HARVEST_WORKSPACE``           str      see :mod:`harvest.workspace`; state.sqlite lives there
``HARVEST_STATE_STORE``         str      ``extensions.sqlite_store.SqliteRequestStore``
``HARVEST_STATE_BUSY_TIMEOUT``  float    ``30.0`` seconds SQLite waits for a lock
``HARVEST_STATE_SYNCHRONOUS``   str      ``NORMAL`` (or ``FULL``: survive power loss too)
``HARVEST_STATE_URL_LOG``       bool     ``True``: write every HTTP exchange to url_log
``HARVEST_STATE_COMMIT``        str      ``turn``: the transitions of one reactor turn are
                                         committed together at its end (group commit);
                                         ``each``: every transition commits on its own
==============================  =======  ===============================================
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from scrapy.utils.misc import load_object

from harvest.settings_error import SettingsError
from harvest.workspace import STATE_DB, WORKSPACE_ENV, ensure_workspace, resolve_workspace

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

    def __post_init__(self) -> None:
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
        return cls(
            workspace=str(settings.get(WORKSPACE_ENV) or ""),
            store=str(settings.get("HARVEST_STATE_STORE") or DEFAULT_STORE),
            busy_timeout=busy,
            synchronous=str(
                settings.get("HARVEST_STATE_SYNCHRONOUS") or DEFAULT_SYNCHRONOUS
            ).upper(),
            url_log=settings.getbool("HARVEST_STATE_URL_LOG", DEFAULT_URL_LOG),
            commit=str(settings.get("HARVEST_STATE_COMMIT") or DEFAULT_COMMIT).lower(),
        )

    def open_store(
        self,
        *,
        readonly: bool = False,
        defer_commit: Callable[[Callable[[], None]], None] | None = None,
    ) -> RequestStore:
        """Open ``<workspace>/state.sqlite`` with the configured store class.

        ``defer_commit`` (group commit) is passed on only when ``HARVEST_STATE_COMMIT`` is
        ``turn``.

        Raises :class:`harvest.workspace.WorkspaceError` (workspace not usable) or
        :class:`extensions.store.StateError` (state missing when ``readonly``, or damaged).
        """
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
