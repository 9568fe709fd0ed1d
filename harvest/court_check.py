"""``scrapy courts check``: how each registered court can be reached (docs/national.md).

One polite probe a court: a GET of its SIPP root with the crawl's User-Agent (which names the
contact), through the court's proxy if it has one; a redirect is followed (at most
:data:`MAX_HOPS`, the court's own delay between two requests). The answer is classified as one
of :data:`ACCESS`:

``ok``            the root is a SIPP page;
``redirected``    the root redirects to a SIPP page on another host, scheme, port or path: the
                  court's *effective base URL* becomes that one (the registered one is kept);
``challenge``     a JavaScript gate: the court is crawled through the browser pass;
``refused``       401/403 for us (a WAF refusing the client): not crawled (a proxy may help);
``unreachable``   DNS, connection refused or reset, timeout;
``tls_error``     the TLS handshake failed;
``server_error``  5xx, or a SIPP error page (database, PHP, application error);
``not_sipp``      an answer that is not a SIPP site (404, another web page, a redirect away).

:func:`classify` is pure (tested on its own); :func:`probe` does the HTTP.
"""

from __future__ import annotations

import dataclasses
import logging
import socket
import ssl
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit, urlunsplit

from scrapy.settings import SETTINGS_PRIORITIES

from extensions.store import CourtCheck, CourtRecord
from harvest.base.clock import utc_now
from harvest.base.settings_error import SettingsError
from harvest.contact import user_agent
from harvest.courts import resolve_proxy
from harvest.sipp import page_error
from harvest.sipp.error_pages import JS_CHALLENGE

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from scrapy.settings import BaseSettings

__all__ = [
    "ACCESS",
    "CRAWLED",
    "MAX_HOPS",
    "Answer",
    "Hop",
    "check_courts",
    "classify",
    "crawl_user_agent",
    "effective_base",
    "probe",
    "recheck_after",
    "stale",
]

logger = logging.getLogger(__name__)

#: The classes of a court's access, in the order ``scrapy status`` lists them.
ACCESS = (
    "ok", "redirected", "challenge", "refused", "unreachable", "tls_error", "server_error",
    "not_sipp",
)  # fmt: skip
#: The classes of the courts a crawl takes (the others are not requested after their check).
CRAWLED = ("ok", "redirected", "challenge")
#: What a user can do about a court that is not crawled (``scrapy status`` shows it).
ADVICE = {
    "refused": "the court refuses this client: give the court a proxy (proxy column, "
    "docs/national.md) or ask the court to allow the crawl's User-Agent, then check again",
    "unreachable": "check again later (scrapy courts check); if it stays so, the URL may have "
    "changed: fix base_url with scrapy courts add",
    "tls_error": "the court's TLS is broken: try its http:// URL, or check again later",
    "server_error": "the court's server fails: check again later (scrapy courts check)",
    "not_sipp": "the URL is not a SIPP site: fix base_url with scrapy courts add",
}
#: Redirects followed at most.
MAX_HOPS = 5
#: Bytes of a body read at most.
MAX_BODY = 2 * 1024 * 1024
#: Path segments of SIPP pages a landing URL may end with (stripped for the base URL).
_SIPP_PAGES = ("list_perkara", "index.php")


@dataclasses.dataclass(frozen=True)
class Hop:
    """One request of a probe and its answer (``status`` ``None``: no answer, ``error``)."""

    url: str
    status: int | None = None
    location: str | None = None
    body: str = ""
    error: str | None = None  # "unreachable: ..." or "tls_error: ..."


@dataclasses.dataclass(frozen=True)
class Answer:
    """A probe: its requests in order (the last is the answer classified)."""

    hops: tuple[Hop, ...]


def effective_base(url: str) -> str:
    """The SIPP root of a page URL: no query, up to the last ``/`` (a trailing SIPP page name
    such as ``list_perkara`` dropped)."""
    parts = urlsplit(url)
    path = parts.path or "/"
    segments = path.split("/")
    if segments[-1] in _SIPP_PAGES or not path.endswith("/"):
        segments = segments[:-1]
    while segments and segments[-1] in _SIPP_PAGES:
        segments = segments[:-1]
    base_path = "/".join(segments).rstrip("/") + "/"
    return urlunsplit((parts.scheme, parts.netloc, base_path, "", ""))


def classify(base_url: str, answer: Answer, *, at: str | None = None) -> CourtCheck:
    """The court's access from its probe (pure)."""
    when = at or utc_now()
    last = answer.hops[-1]
    redirects = [h for h in answer.hops[:-1] if h.location]
    if last.error is not None:
        access, _, detail = last.error.partition(": ")
        return CourtCheck(access, None, None, detail or access, when)
    status = last.status
    assert status is not None
    if last.location is not None:  # the hops ran out, or a redirect without a usable target
        reason = f"more than {MAX_HOPS} redirects (last to {last.location})"
        return CourtCheck("not_sipp", None, status, reason, when)
    problem = page_error(last.body, expect="list")
    if problem == JS_CHALLENGE:
        reason = "JavaScript challenge: crawled through the browser pass"
        return CourtCheck("challenge", _moved(base_url, last.url), status, reason, when)
    if status in (401, 403):
        return CourtCheck("refused", None, status, f"HTTP {status} for this client", when)
    if status >= 500:
        return CourtCheck("server_error", None, status, f"HTTP {status}", when)
    if status == 404:
        return CourtCheck("not_sipp", None, status, "HTTP 404 at the SIPP root", when)
    if problem is None and 200 <= status < 300:
        moved = _moved(base_url, last.url)
        if moved is None:
            return CourtCheck("ok", None, status, "SIPP answers", when)
        codes = ", ".join(str(h.status) for h in redirects)
        return CourtCheck("redirected", moved, status, f"redirect ({codes}) to {moved}", when)
    if problem in ("database error", "php error", "application error"):
        return CourtCheck("server_error", None, status, f"SIPP error page ({problem})", when)
    where = f" (after a redirect to {last.url})" if redirects else ""
    return CourtCheck("not_sipp", None, status, f"not a SIPP page: {problem}{where}", when)


def _moved(base_url: str, landing: str) -> str | None:
    """The landing page's SIPP root when it is not the registered one (``None``: it is)."""
    base = effective_base(landing)
    return None if base.rstrip("/") == base_url.rstrip("/") else base


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def _opener(proxy: str | None) -> urllib.request.OpenerDirector:
    proxies = {"http": proxy, "https": proxy} if proxy else {}
    context = ssl.create_default_context()
    # as the crawl (Scrapy does not verify certificates): a self-signed court is readable
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return urllib.request.build_opener(
        urllib.request.ProxyHandler(proxies),
        _NoRedirect(),
        urllib.request.HTTPSHandler(context=context),
    )


def _read(stream: object) -> str:
    read = getattr(stream, "read", None)
    if read is None:
        return ""
    data = read(MAX_BODY)
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else ""


def _fetch(opener: urllib.request.OpenerDirector, url: str, user_agent: str,
           timeout: float) -> Hop:  # fmt: skip
    request = urllib.request.Request(url, headers={"User-Agent": user_agent, "Accept": "*/*"})
    try:
        with opener.open(request, timeout=timeout) as response:
            return Hop(url, response.status, None, _read(response))
    except urllib.error.HTTPError as exc:
        location = exc.headers.get("Location") if 300 <= exc.code < 400 else None
        body = _read(exc)
        return Hop(url, exc.code, urljoin(url, location) if location else None, body)
    except urllib.error.URLError as exc:
        return Hop(url, error=_network_error(exc.reason))
    except (TimeoutError, ConnectionError, OSError) as exc:
        return Hop(url, error=_network_error(exc))


def _network_error(reason: object) -> str:
    if isinstance(reason, ssl.SSLError | ssl.CertificateError):
        return f"tls_error: {reason}"
    if isinstance(reason, socket.gaierror):
        return f"unreachable: DNS ({reason.strerror or reason})"
    if isinstance(reason, TimeoutError):
        return "unreachable: timeout"
    if isinstance(reason, ConnectionRefusedError):
        return "unreachable: connection refused"
    if isinstance(reason, OSError):
        return f"unreachable: {reason.strerror or reason}"
    return f"unreachable: {reason}"


def probe(
    base_url: str,
    *,
    user_agent: str,
    timeout: float,
    delay: float,
    proxy: str | None = None,
    sleep: object = time.sleep,
) -> Answer:
    """GET the court's root, following redirects (``delay`` seconds between two requests)."""
    opener = _opener(proxy)
    hops: list[Hop] = []
    url = base_url
    for number in range(MAX_HOPS + 1):
        if number and delay > 0 and callable(sleep):
            sleep(delay)
        hop = _fetch(opener, url, user_agent, timeout)
        hops.append(hop)
        if hop.location is None or not hop.location.startswith(("http://", "https://")):
            break
        url = hop.location
    return Answer(tuple(hops))


def court_delay(court: str, slots: Mapping[str, object], default: float) -> float:
    """The court's delay between requests: ``DOWNLOAD_SLOTS[court]["delay"]``, else
    ``DOWNLOAD_DELAY``."""
    slot = slots.get(court)
    if isinstance(slot, dict) and isinstance(slot.get("delay"), int | float):
        return float(slot["delay"])
    return default


def _positive(settings: BaseSettings, name: str, default: float) -> float:
    try:
        value = float(settings.get(name) or default)
    except (TypeError, ValueError):
        raise SettingsError(f"{name} must be a number, not {settings.get(name)!r}") from None
    if value <= 0:
        raise SettingsError(f"{name} must be more than 0 (got {value:g}); default {default:g}")
    return value


def crawl_user_agent(settings: BaseSettings) -> str:
    """The User-Agent a crawl sends: a ``USER_AGENT`` set anywhere, else the one
    :class:`harvest.contact.ContactAddon` builds from ``HARVEST_CONTACT`` (add-ons do not run
    for a command such as ``scrapy courts check``, so it is built here the same way)."""
    priority = settings.getpriority("USER_AGENT") or 0
    if priority > SETTINGS_PRIORITIES["default"] and priority != SETTINGS_PRIORITIES["addon"]:
        return str(settings.get("USER_AGENT"))
    return user_agent(str(settings.get("HARVEST_CONTACT") or ""))


def check_courts(
    courts: Sequence[CourtRecord], settings: BaseSettings
) -> list[tuple[CourtRecord, CourtCheck]]:
    """Probe and classify each court (not recorded: the caller does), in the courts' order.

    ``HARVEST_CHECK_CONCURRENCY`` courts at a time (default 8), each court one request at a
    time with its own delay between a redirect's requests (``DOWNLOAD_SLOTS[court]["delay"]``,
    else ``DOWNLOAD_DELAY``); ``HARVEST_CHECK_TIMEOUT`` seconds a request (default 30). A
    court whose proxy names an unset environment variable stops the check before any request
    (:class:`harvest.courts.CourtListError`)."""
    agent = crawl_user_agent(settings)
    timeout = _positive(settings, "HARVEST_CHECK_TIMEOUT", 30.0)
    workers = int(_positive(settings, "HARVEST_CHECK_CONCURRENCY", 8))
    slots = settings.getdict("DOWNLOAD_SLOTS")
    default_delay = settings.getfloat("DOWNLOAD_DELAY", 0.0)
    proxies = {c.court: resolve_proxy(c.proxy) for c in courts}
    if not courts:
        return []

    def one(court: CourtRecord) -> tuple[CourtRecord, CourtCheck]:
        answer = probe(
            court.base_url,
            user_agent=agent,
            timeout=timeout,
            delay=court_delay(court.court, slots, default_delay),
            proxy=proxies[court.court],
        )
        check = classify(court.base_url, answer)
        logger.info("court %s: %s (%s)", court.court, check.access, check.reason)
        return court, check

    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(courts)))) as pool:
        return list(pool.map(one, courts))


def stale(court: CourtRecord, max_age: float, now: datetime) -> bool:
    """Whether the court's last check is missing or older than ``max_age`` seconds."""
    if court.checked_at is None:
        return True
    at = datetime.fromisoformat(court.checked_at)
    return (now - at).total_seconds() > max_age


def recheck_after(settings: BaseSettings) -> float:
    """``HARVEST_COURTS_RECHECK_AFTER``: seconds after which a worker checks a court again
    before it crawls it (0, the default: never; ``scrapy courts check`` is then the only
    check)."""
    raw = settings.get("HARVEST_COURTS_RECHECK_AFTER") or 0
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise SettingsError(
            f"HARVEST_COURTS_RECHECK_AFTER must be a number of seconds, not {raw!r}"
        ) from None
    if value < 0:
        raise SettingsError(f"HARVEST_COURTS_RECHECK_AFTER must be 0 or more, not {value:g}")
    return value
