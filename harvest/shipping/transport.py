"""The transport: one POST over a kept-alive connection (``requests``), no retries, no redirects.

Each :class:`RequestsTransport` is one ``requests.Session`` (one kept-alive connection per
endpoint); a concurrent run makes one per connection. Errors come back as
:class:`TransportError` (no answer) whose text never holds the token.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

import requests
import urllib3.exceptions
from requests.adapters import HTTPAdapter

from harvest.shipping.errors import ConfigError

__all__ = ["Answer", "RequestsTransport", "Transport", "TransportError"]

DEFAULT_CONNECT_TIMEOUT = 3.05
DEFAULT_TIMEOUT = 30.0


@dataclass(frozen=True)
class Answer:
    """What the server answered (the parts ``ship.py`` looks at)."""

    status: int
    body: bytes = b""
    retry_after: str | None = None
    location: str | None = None
    content_type: str | None = None


class TransportError(Exception):
    """No answer. ``connect``: the request provably never reached the server (fail over)."""

    def __init__(self, message: str, *, connect: bool) -> None:
        super().__init__(message)
        self.connect = connect


class Transport(Protocol):
    """Sends one POST; returns the answer or raises :class:`TransportError`."""

    def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> Answer: ...

    def close(self) -> None: ...


class _BearerAuth(requests.auth.AuthBase):
    """``Authorization: Bearer <token>``; its ``repr`` hides the token."""

    def __init__(self, token: str) -> None:
        self._token = token

    def __call__(self, r: requests.PreparedRequest) -> requests.PreparedRequest:
        r.headers["Authorization"] = f"Bearer {self._token}"
        return r

    def __repr__(self) -> str:
        return "_BearerAuth(<token hidden>)"


class RequestsTransport:
    """A kept-alive ``requests.Session``: no adapter retries, no redirects, explicit timeouts."""

    def __init__(
        self,
        token: str,
        *,
        endpoints: Sequence[str] = (),
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        read_timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self._session = requests.Session()
        self._auth = _BearerAuth(token)
        # The environment (proxies, CA bundle) is read once here instead of on every request
        # (requests re-scans os.environ per request, about 1 ms each); no_proxy is honoured;
        # ~/.netrc is never consulted.
        self._session.trust_env = False
        for endpoint in endpoints:
            parts = urlsplit(endpoint)
            proxies = requests.utils.get_environ_proxies(endpoint)
            proxy = proxies.get(parts.scheme) or proxies.get("all")
            if proxy:
                self._session.proxies[f"{parts.scheme}://{parts.hostname}"] = proxy
        ca_bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
        if ca_bundle:
            self._session.verify = ca_bundle
        for prefix in ("http://", "https://"):
            # max_retries=0: every attempt surfaces here and lands in the ship-log.
            self._session.mount(prefix, HTTPAdapter(max_retries=0, pool_maxsize=1))
        self._timeout = (connect_timeout, read_timeout)

    def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> Answer:
        # Prepared directly and sent with Session.send: Session.post would merge cookies and
        # settings on every request, which doubles the client's CPU per document.
        prepared = requests.PreparedRequest()
        try:
            prepared.prepare(
                method="POST", url=url, headers=dict(headers), data=body, auth=self._auth
            )
            response = self._session.send(prepared, timeout=self._timeout, allow_redirects=False)
            content = response.content
        except requests.exceptions.ConnectTimeout as exc:
            raise TransportError(f"connect timeout: {exc}", connect=True) from exc
        except requests.exceptions.ReadTimeout as exc:
            raise TransportError(f"read timeout after {self._timeout[1]}s", connect=False) from exc
        except requests.exceptions.ConnectionError as exc:
            reason = getattr(exc.args[0], "reason", None) if exc.args else None
            # NewConnectionError (refused, DNS) is a ConnectTimeoutError in urllib3 2
            connect = isinstance(reason, urllib3.exceptions.ConnectTimeoutError)
            what = "cannot connect" if connect else "connection lost"
            raise TransportError(f"{what}: {reason or exc}", connect=connect) from exc
        except (
            requests.exceptions.InvalidURL,
            requests.exceptions.InvalidSchema,
            requests.exceptions.MissingSchema,
            urllib3.exceptions.LocationParseError,
            ValueError,
        ) as exc:
            raise ConfigError(f"endpoint URL {url!r} is not usable: {exc}") from exc
        except requests.exceptions.RequestException as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}", connect=False) from exc
        headers_in = response.headers
        return Answer(
            status=response.status_code,
            body=content,
            retry_after=headers_in.get("Retry-After"),
            location=headers_in.get("Location"),
            content_type=headers_in.get("Content-Type"),
        )

    def close(self) -> None:
        self._session.close()
