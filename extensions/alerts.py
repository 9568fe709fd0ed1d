"""Alerts: one JSON message to a webhook per state change of a court.

Set ``HARVEST_ALERT_WEBHOOK`` (environment, or the Scrapy setting of that name) to an
``http://`` or ``https://`` URL; each time a court of a crawl changes state (``paused``,
``resumed``; docs/multi-court.md, "Courts that come back by themselves") the crawl POSTs one
JSON object to it (``Content-Type: application/json``)::

    {"version": 1, "event": "court_state", "court": "pn-x", "state": "paused",
     "at": "2026-12-02T01:02:03.456Z", "reason": "ConnectionRefusedError: ...",
     "paused_until": "2026-12-02T01:07:03.456Z", "pause_count": 1}

(``reason``, ``paused_until`` and ``pause_count`` only for ``paused``). The POST runs in a
thread of its own with a 10 s timeout, so a slow receiver never holds the crawl back; a failure
is one WARNING line (the URL without its query, which may carry a token), never retried. Unset:
no message is sent.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from harvest.base.clock import utc_now
from harvest.base.settings_error import SettingsError

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

__all__ = ["ALERT_VERSION", "WEBHOOK_ENV", "CourtAlerts"]

logger = logging.getLogger(__name__)

WEBHOOK_ENV = "HARVEST_ALERT_WEBHOOK"
#: The version of the message format (a field of every message).
ALERT_VERSION = 1
TIMEOUT = 10.0


def _shown(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


class CourtAlerts:
    """Posts court state changes to the webhook (``None``: sends nothing)."""

    def __init__(self, url: str | None) -> None:
        if url and urlsplit(url).scheme not in ("http", "https"):
            raise SettingsError(
                f"{WEBHOOK_ENV} must be an http:// or https:// URL, got {_shown(url)!r}"
            )
        self.url = url or None
        self.sent: list[threading.Thread] = []

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CourtAlerts:
        return cls(crawler.settings.get(WEBHOOK_ENV) or os.environ.get(WEBHOOK_ENV))

    def court_changed(self, court: str, state: str, **fields: Any) -> None:
        """One message: ``court`` is now ``state`` (``fields``: reason, until, count)."""
        if self.url is None:
            return
        message: dict[str, Any] = {
            "version": ALERT_VERSION,
            "event": "court_state",
            "court": court,
            "state": state,
            "at": utc_now(),
        }
        if "reason" in fields:
            message["reason"] = fields["reason"]
        if "until" in fields:
            message["paused_until"] = fields["until"]
        if "count" in fields:
            message["pause_count"] = fields["count"]
        thread = threading.Thread(
            target=self._post, args=(self.url, message), name="harvest-alert", daemon=True
        )
        self.sent.append(thread)
        thread.start()

    @staticmethod
    def _post(url: str, message: dict[str, Any]) -> None:
        request = urllib.request.Request(
            url,
            data=json.dumps(message).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                answer.read()
        except (OSError, urllib.error.URLError) as exc:
            logger.warning(
                "alert webhook %s: %s not delivered (%s)", _shown(url), message["state"], exc
            )
