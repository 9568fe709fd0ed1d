"""Endpoints: the base URLs (validated), and fallback between them.

A token travels in every request, so :func:`parse_endpoints` refuses URLs that would leak it or
cannot work: not http(s), credentials or a query in the URL, a malformed host or port, and
plain ``http://`` to anything but a loopback address unless the user opts in
(``--allow-plain-http``).
"""

from __future__ import annotations

import ipaddress
import logging
import threading
from collections.abc import Sequence
from urllib.parse import urlsplit

from harvest.shipping.errors import ConfigError, EndpointUnusable

__all__ = ["ENDPOINT_ENV", "EndpointPool", "is_loopback", "parse_endpoints"]

logger = logging.getLogger(__name__)

ENDPOINT_ENV = "INGEST_URL"
TOKEN_ENV = "INGEST_TOKEN"


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback IP literal (127.0.0.0/8, ::1)."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_endpoints(
    values: Sequence[str], *, source: str, allow_plain_http: bool = False
) -> tuple[str, ...]:
    """Validated endpoint base URLs (no trailing ``/``), duplicates removed, order kept.

    ``source`` names where they came from (``--endpoint`` or ``INGEST_URL``) for the messages.
    Credentials in the URL are refused: the token belongs in ``INGEST_TOKEN`` only.
    """
    result: list[str] = []
    for raw in values:
        value = raw.strip()
        if not value:
            continue
        try:
            parts = urlsplit(value)
            host = parts.hostname
            parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
        except ValueError as exc:
            raise ConfigError(
                f"{source}: {value!r} is not a valid URL ({exc}); give the ingest API's base "
                "URL, e.g. http://127.0.0.1:8900"
            ) from None
        if parts.scheme not in ("http", "https") or not host:
            raise ConfigError(
                f"{source}: {value!r} is not an http(s) URL; give the ingest API's base URL, "
                "e.g. http://127.0.0.1:8900 (ship.py posts to <endpoint>/items)"
            )
        if parts.username is not None or parts.password is not None:
            raise ConfigError(
                f"{source}: an endpoint must not carry credentials; put the token in "
                f"{TOKEN_ENV} and give the URL without user:password@"
            )
        if parts.query or parts.fragment:
            raise ConfigError(f"{source}: {value!r} must not have a query or fragment")
        if parts.scheme == "http" and not is_loopback(host) and not allow_plain_http:
            raise ConfigError(
                f"{source}: {value!r} is plain http to a host that is not this machine: the "
                "bearer token and the documents would cross the network unencrypted; use "
                "https://, or pass --allow-plain-http if that network is trusted"
            )
        base = value.rstrip("/")
        if base not in result:
            result.append(base)
    if not result:
        raise ConfigError(
            f"no ingest endpoint: give --endpoint URL (repeatable, in fallback order) or set "
            f"{ENDPOINT_ENV} (comma-separated)"
        )
    return tuple(result)


class EndpointPool:
    """The endpoints in fallback order, starting with the one that last worked. Thread-safe.

    A connection failure (the request never reached the server) moves on to the next endpoint
    at once; only after every endpoint failed in a row does the caller back off. An endpoint
    that answers like something else than this API (3xx, 404, 405, 410, 421, a 2xx that is not
    the contract's answer) is retired for the run. The endpoint a document was last shipped
    through is what the next run starts with (the ship-log remembers it).
    """

    def __init__(self, endpoints: Sequence[str], *, preferred: str | None = None) -> None:
        order = list(endpoints)
        if preferred in order:
            i = order.index(preferred)
            order = order[i:] + order[:i]
        self._live = order
        self._configured = tuple(endpoints)
        self._index = 0
        self._unreachable_streak = 0
        self._lock = threading.Lock()
        self.last_success: str | None = None

    @property
    def current(self) -> str:
        with self._lock:
            if not self._live:
                raise EndpointUnusable(
                    f"no usable ingest endpoint left; check --endpoint / {ENDPOINT_ENV}"
                )
            return self._live[self._index]

    @property
    def live(self) -> tuple[str, ...]:
        return tuple(self._live)

    def unreachable(self, endpoint: str) -> bool:
        """Record a connection failure; True when another endpoint should be tried at once."""
        with self._lock:
            self._unreachable_streak += 1
            if self._live and endpoint == self._live[self._index] and len(self._live) > 1:
                self._index = (self._index + 1) % len(self._live)
                logger.warning(
                    "endpoint %s unreachable; trying %s", endpoint, self._live[self._index]
                )
            return self._unreachable_streak % max(1, len(self._live)) != 0

    def answered(self, endpoint: str) -> None:
        """The endpoint answered (any HTTP status): it is reachable."""
        self._unreachable_streak = 0

    def succeeded(self, endpoint: str) -> None:
        if endpoint != self.last_success and endpoint != self._configured[0]:
            logger.info("shipping through fallback endpoint %s", endpoint)
        self.last_success = endpoint

    def retire(self, endpoint: str, reason: str) -> None:
        """Stop using ``endpoint`` this run; raise :class:`EndpointUnusable` if none is left."""
        with self._lock:
            retired = endpoint in self._live
            if retired:
                i = self._live.index(endpoint)
                del self._live[i]
                if self._index > i:
                    self._index -= 1
                if self._index >= len(self._live):
                    self._index = 0
            left = bool(self._live)
        if retired:
            logger.error("endpoint %s is not usable: %s", endpoint, reason)
        if not left:
            raise EndpointUnusable(
                f"no usable ingest endpoint left (last: {endpoint} {reason}); check --endpoint / "
                f"{ENDPOINT_ENV}"
            )
