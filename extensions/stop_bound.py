"""The bound on a stop: how long a crawl may take to close (``HARVEST_STOP_TIMEOUT``), and the
engine probe that tells when its closing began.

:mod:`extensions.stopping` forces the process out once a signalled stop overruns the bound; the
PostgreSQL store stops renewing its court leases once *any* close overruns it (a hung pipeline,
a stuck ``close_spider``), so another worker takes its courts over after the lease TTL
(:meth:`extensions.pg_store.PostgresRequestStore.watch_closing`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harvest.base.settings_error import SettingsError

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

__all__ = ["STOP_MARGIN", "engine_closing", "stop_timeout"]

#: Seconds added to ``DOWNLOAD_TIMEOUT`` for the default ``HARVEST_STOP_TIMEOUT``: the last
#: exchange in flight ends by its timeout, then the state and the stores close.
STOP_MARGIN = 15.0


def stop_timeout(settings: BaseSettings) -> float:
    """``HARVEST_STOP_TIMEOUT`` in seconds (unset or empty: ``DOWNLOAD_TIMEOUT`` + 15)."""
    raw = settings.get("HARVEST_STOP_TIMEOUT")
    if raw in (None, ""):
        return settings.getfloat("DOWNLOAD_TIMEOUT", 180.0) + STOP_MARGIN
    try:
        value = float(raw)
    except (TypeError, ValueError):
        value = -1.0
    if value <= 0:
        raise SettingsError(
            f"HARVEST_STOP_TIMEOUT must be a positive number of seconds, got {raw!r} (default: "
            f"DOWNLOAD_TIMEOUT + {STOP_MARGIN:g})"
        )
    return value


def engine_closing(crawler: Crawler) -> Callable[[], bool]:
    """A probe, safe from any thread, that is true once ``crawler``'s engine began closing its
    spider (``Closing spider (...)``: the engine slot's ``closing``; Scrapy names no public
    flag for it). Not before the engine runs: opening is not closing."""

    def closing() -> bool:
        engine = crawler.engine
        if engine is None:
            return False
        slot = getattr(engine, "_slot", None)  # Scrapy's ExecutionEngine slot (private)
        return slot is not None and getattr(slot, "closing", None) is not None

    return closing
