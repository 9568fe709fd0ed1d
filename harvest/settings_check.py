"""Every project setting given is one the project knows, with a value of its type.

:class:`SettingsCheckAddon` (``ADDONS`` in harvest/settings.py) runs once every source of settings
has been read (project, environment, ``-s``, scrapyd's ``setting=``), before anything starts:

* a setting named with one of the project's prefixes (``HARVEST_``, ``SIPP_``) that no component
  reads is refused, naming the closest known setting (``-s HARVEST_WORKSPCE=...`` would silently
  write to the default workspace), as ``-a`` arguments are;
* a boolean setting (ours, or Scrapy's: its default is a bool) whose value is not one of
  ``True``/``False``/``true``/``false``/``1``/``0`` is refused with its name (Scrapy raises a
  ``ValueError`` traceback from deep inside a component, or takes any non-empty string as true).

A refusal is a :class:`harvest.base.settings_error.SettingsError`: ``scrapy crawl`` prints it
as one line and exits 1 (README, "Exit status").
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from scrapy.settings import default_settings

from harvest import settings as project_settings
from harvest.base.settings_error import SettingsError

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

__all__ = ["BOOLEAN_SETTINGS", "COMPONENT_SETTINGS", "PREFIXES", "SettingsCheckAddon", "check"]

#: The prefixes of the project's own settings.
PREFIXES = ("HARVEST_", "SIPP_")

#: Settings our components read that have no line in harvest/settings.py (their defaults are
#: module constants of the component: README, "Settings reference").
COMPONENT_SETTINGS = (
    "HARVEST_STATE_STORE",
    "HARVEST_STATE_BUSY_TIMEOUT",
    "HARVEST_STATE_SYNCHRONOUS",
    "HARVEST_STATE_URL_LOG",
    "HARVEST_STATE_COMMIT",
    "HARVEST_CASE_LOOKAHEAD",
    "HARVEST_DATABASE_URL",
    "HARVEST_LEASE_TTL",
    "HARVEST_PROGRESS_INTERVAL",
    "HARVEST_ALLOW_FEEDS",
    "HARVEST_ARCHIVE",
    "HARVEST_ARCHIVE_MAX_FILE_BYTES",
    "HARVEST_ARCHIVE_WRITER",
    "SIPP_BROWSER",
    "SIPP_BROWSER_TIMEOUT",
    "SIPP_BROWSER_EXECUTABLE",
    "SIPP_BROWSER_COOKIES",
    "SIPP_SESSION_MAX_JARS",
    "DEDUPE_ENABLED",
    "HARVEST_ALERT_WEBHOOK",
    "HARVEST_ARCHIVE_RETENTION_DAYS",
    "HARVEST_CHECK_CONCURRENCY",
    "HARVEST_CHECK_TIMEOUT",
    "HARVEST_COURTS_RECHECK_AFTER",
    "HARVEST_PAUSE_AFTER",
    "HARVEST_PAUSE_BACKOFF",
    "HARVEST_PAUSE_BACKOFF_MAX",
    "HARVEST_PAUSE_WAIT_MAX",
    "HARVEST_REFRESH_CALENDAR",
    "HARVEST_REFRESH_MIN_DAYS",
    "HARVEST_REFRESH_MAX_DAYS",
    "HARVEST_REFRESH_STEP_DAYS",
    "HARVEST_STOP_TIMEOUT",
)

#: Our boolean settings without a line in harvest/settings.py.
BOOLEAN_SETTINGS = (
    "HARVEST_STATE_URL_LOG",
    "HARVEST_ALLOW_FEEDS",
    "HARVEST_ARCHIVE",
    "DEDUPE_ENABLED",
    "HARVEST_REFRESH_CALENDAR",
)

_TRUE_FALSE = ("True", "False", "true", "false", "1", "0")


def _defaults() -> dict[str, object]:
    out: dict[str, object] = {}
    for module in (default_settings, project_settings):
        out.update({k: getattr(module, k) for k in dir(module) if k.isupper()})
    return out


def known_settings() -> frozenset[str]:
    """Every setting name the project or Scrapy defines."""
    return frozenset(_defaults()) | frozenset(COMPONENT_SETTINGS)


def check(settings: BaseSettings) -> None:
    """Raise :class:`SettingsError` for the first unknown prefixed name or non-boolean boolean."""
    known = known_settings()
    ours = sorted(n for n in known if n.startswith(PREFIXES))
    for name in sorted(settings.attributes):
        if name.startswith(PREFIXES) and name not in known:
            close = difflib.get_close_matches(name, ours, n=1, cutoff=0.6)
            hint = (
                f"did you mean {close[0]}?" if close else f"the project's are: {', '.join(ours)}"
            )
            raise SettingsError(
                f"unknown setting {name} (README.md, 'Settings reference'): {hint}"
            )
    defaults = _defaults()
    booleans = {n for n, v in defaults.items() if isinstance(v, bool)} | set(BOOLEAN_SETTINGS)
    for name in sorted(booleans & set(settings.attributes)):
        value = settings.get(name)
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int) and value in (0, 1):
            continue
        if isinstance(value, str) and value.strip() in _TRUE_FALSE:
            continue
        raise SettingsError(
            f"{name} is a boolean setting: give True or False (or 1/0), not {str(value)!r}"
        )


class SettingsCheckAddon:
    """A Scrapy add-on (``ADDONS``) that runs :func:`check` on the crawl's final settings."""

    def update_settings(self, settings: BaseSettings) -> None:
        check(settings)
