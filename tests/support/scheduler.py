"""The scheduler tests' helpers: the mini spider's crawls, state checks, a stats stub, a unit
spider. Crawls run as subprocesses (tests/support/harvest_run.py)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from scrapy import Request, Spider

from harvest.base.meta import META_KEY
from tests.support.harvest_run import FAST_SETTINGS, settings_args, state_query
from tests.support.paths import SCRAPY
from tests.support.waiting import wait_until

#: Settings of the mini spider's crawls: the shared fast settings with a 5 s timeout, without
#: the SIPP middlewares (they judge SIPP pages), with its own store.
MINI = {
    **FAST_SETTINGS,
    "DOWNLOAD_TIMEOUT": "5",
    "SPIDER_MODULES": "tests.support.minispider",
    "ITEM_PIPELINES": json.dumps({"tests.support.minispider.MiniStorePipeline": 300}),
    "DOWNLOADER_MIDDLEWARES": json.dumps(
        {
            "extensions.outcome.OutcomeDownloaderMiddleware": 20,
            "extensions.urllog.UrlLogMiddleware": 950,
        }
    ),
    "RETRY_TIMES": "3",
}


def mini_crawl_cmd(ws: Path, url: str, **extra: str) -> list[str]:
    return [
        *SCRAPY,
        "crawl",
        "mini",
        "-a",
        f"base_url={url}",
        *settings_args({**MINI, "HARVEST_WORKSPACE": str(ws), **extra}),
    ]


def wait_for_progress(
    ws: Path, at_least: int, timeout: float = 120, proc: subprocess.Popen[bytes] | None = None
) -> int:
    """Wait until ``url_log`` holds at least ``at_least`` exchanges; return the count.

    With ``proc`` (the crawl), fail as soon as it has exited short of them.
    """
    return wait_until(
        lambda: (n := exchanges(ws)) >= at_least and n,
        timeout=timeout,
        what=f"the crawl makes {at_least} exchanges (url_log rows)",
        proc=proc,
    )


def exchanges(ws: Path) -> int:
    try:
        return int(state_query(ws, "SELECT count(*) FROM url_log")[0][0])
    except sqlite3.OperationalError:
        return 0


def counts_by_status(ws: Path) -> dict[str, int]:
    return dict(state_query(ws, "SELECT status, count(*) FROM requests GROUP BY status"))  # type: ignore[arg-type]


def assert_state_invariants(ws: Path) -> None:
    """No row in flight, one row per key, every error with a reason, counts exact."""
    assert state_query(ws, "SELECT count(*) FROM requests WHERE status = 'inflight'") == [(0,)]
    total, distinct = state_query(ws, "SELECT count(*), count(DISTINCT key) FROM requests")[0]
    assert total == distinct
    assert state_query(
        ws,
        "SELECT count(*) FROM requests WHERE status = 'error' AND coalesce(last_error, '') = ''",
    ) == [(0,)]
    # the counts `scrapy status` shows (kept by triggers) equal a direct count
    assert state_query(
        ws, "SELECT court, kind, status, n FROM request_counts WHERE n > 0 ORDER BY 1, 2, 3"
    ) == state_query(ws, "SELECT court, kind, status, count(*) FROM requests GROUP BY 1, 2, 3")


def interrupt(proc: subprocess.Popen[bytes], times: int, log: Path) -> int:
    """Send SIGINT ``times`` times, each after Scrapy logged the one before; return the exit code.

    ``log`` is the crawl's output (see :func:`tests.support.harvest_run.start`): Scrapy logs
    "Received SIGINT" as it handles each signal, so a second signal is never folded into the first.
    """
    for _ in range(times):
        if proc.poll() is not None:
            break
        seen = _sigints(log)
        os.kill(proc.pid, signal.SIGINT)
        wait_until(
            lambda seen=seen: proc.poll() is not None or _sigints(log) > seen,
            timeout=60,
            what="the crawl handles SIGINT",
        )
    return proc.wait(timeout=120)


def _sigints(log: Path) -> int:
    return log.read_bytes().count(b"Received SIGINT")


class StatsStub:
    def __init__(self) -> None:
        self.values: dict[str, int] = {}

    def inc_value(self, key: str, count: int = 1, start: int = 0) -> None:
        self.values[key] = self.values.get(key, start) + count


class UnitSpider(Spider):
    """A spider for scheduler unit tests: callbacks are methods, so requests serialize."""

    name = "unit"
    court_id = "c1"

    def parse_list(self, response: Any) -> None:
        pass

    def parse_case(self, response: Any) -> None:
        pass


def req(key: str | None, url: str = "http://127.0.0.1/x", **kw: Any) -> Request:
    meta = dict(kw.pop("meta", {}))
    if key is not None:
        meta[META_KEY] = key
    return Request(url, callback=UnitSpider().parse_case, meta=meta, **kw)
