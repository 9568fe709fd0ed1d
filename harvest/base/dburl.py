"""``HARVEST_DATABASE_URL``: the PostgreSQL database of the request state and the item store.

A base module (standard library only): the request store (:mod:`extensions.pg_store`), the
item store (:mod:`pipelines.store`), the commands and the shipper all read the URL and name it
through these functions; its password is hidden by :mod:`harvest.base.scrubbing` (``redact_url``,
``hide``), the same way everywhere.
"""

from __future__ import annotations

import os
from urllib.parse import parse_qsl, urlsplit

from harvest.base.scrubbing import hide

__all__ = [
    "DATABASE_URL_ENV",
    "database_url",
    "is_database_url",
    "scrub",
    "url_password",
]

DATABASE_URL_ENV = "HARVEST_DATABASE_URL"

_SCHEMES = ("postgresql", "postgres")


def database_url(setting: object = None) -> str | None:
    """The database URL: the Scrapy setting ``setting`` when given, else the environment
    variable; ``None`` (SQLite in the workspace) when neither is set or both are empty."""
    return str(setting or os.environ.get(DATABASE_URL_ENV) or "") or None


def is_database_url(url: str) -> bool:
    """Whether ``url`` is a PostgreSQL URL (``postgresql://`` or ``postgres://``)."""
    return urlsplit(url).scheme in _SCHEMES


def url_password(url: str) -> str | None:
    """The password ``url`` carries (user part or ``password=`` parameter), if any."""
    try:
        parts = urlsplit(url)
        if parts.password:
            return parts.password
        for k, v in parse_qsl(parts.query):
            if k.lower() == "password" and v:
                return v
    except ValueError:
        return None
    return None


def scrub(text: str, url: str) -> str:
    """``text`` (a driver's message) with the password of ``url`` replaced by ``***``."""
    return hide(text, url_password(url))
