"""``HARVEST_DATABASE_URL``: the PostgreSQL database of the request state and the item store.

A base module (standard library only): the request store (:mod:`extensions.pg_store`), the
item store (:mod:`pipelines.store`), the commands and the shipper all read the URL and name it
through these functions, so the password is redacted the same way everywhere.
"""

from __future__ import annotations

import os
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = [
    "DATABASE_URL_ENV",
    "database_url",
    "is_database_url",
    "redact_url",
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


def redact_url(url: str) -> str:
    """``url`` with its password (in the user part or a ``password=`` parameter) as ``***``."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, _, hostport = netloc.rpartition("@")
            if ":" in userinfo:
                userinfo = userinfo.split(":", 1)[0] + ":***"
            netloc = f"{userinfo}@{hostport}"
        query = parts.query
        if query:
            pairs = parse_qsl(query, keep_blank_values=True)
            query = urlencode(
                [(k, "***" if k.lower() == "password" else v) for k, v in pairs], safe="*/"
            )
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:
        return "(a database URL that cannot be parsed)"


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
    secret = url_password(url)
    return text.replace(secret, "***") if secret else text
