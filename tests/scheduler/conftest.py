"""Helpers of the scheduler tests: crawl commands, state queries, a stats stub, a test spider."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from scrapy import Request, Spider

from tests.support.harvest_run import FAST_SETTINGS, settings_args

REPO = Path(__file__).resolve().parents[2]
SCRAPY = [sys.executable, "-m", "scrapy"]

#: Settings of every test crawl: the shared fast settings, with a 5 s timeout for the mini site.
FAST = {**FAST_SETTINGS, "DOWNLOAD_TIMEOUT": "5"}
#: The mini spider runs without the SIPP middlewares (they judge SIPP pages), with its own store.
MINI = {
    **FAST,
    "SPIDER_MODULES": "tests.scheduler.minispider",
    "ITEM_PIPELINES": json.dumps({"tests.scheduler.minispider.MiniStorePipeline": 300}),
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


def run(
    cmd: list[str], *, timeout: float = 180, log: Path | None = None
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        cmd, check=False, cwd=REPO, capture_output=True, text=True, timeout=timeout
    )
    if log is not None:
        with log.open("a") as f:
            f.write(f"$ {' '.join(cmd)}\n{proc.stderr}\n")
    return proc


def start(cmd: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(cmd, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)


def wait_for_progress(ws: Path, at_least: int, timeout: float = 120) -> int:
    """Wait until ``url_log`` holds at least ``at_least`` exchanges; return the count."""
    deadline = time.monotonic() + timeout
    n = 0
    while time.monotonic() < deadline:
        n = exchanges(ws)
        if n >= at_least:
            return n
        time.sleep(0.05)
    raise AssertionError(f"crawl made only {n} exchanges in {timeout}s (wanted {at_least})")


def exchanges(ws: Path) -> int:
    try:
        return int(query(ws, "SELECT count(*) FROM url_log")[0][0])
    except sqlite3.OperationalError:
        return 0


def query(ws: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    path = ws / "state.sqlite"
    if not path.exists():
        raise sqlite3.OperationalError("no state yet")
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        return db.execute(sql, params).fetchall()
    finally:
        db.close()


def counts_by_status(ws: Path) -> dict[str, int]:
    return dict(query(ws, "SELECT status, count(*) FROM requests GROUP BY status"))  # type: ignore[arg-type]


def assert_state_invariants(ws: Path) -> None:
    """No row in flight, one row per key, every error with a reason, counts exact."""
    assert query(ws, "SELECT count(*) FROM requests WHERE status = 'inflight'") == [(0,)]
    total, distinct = query(ws, "SELECT count(*), count(DISTINCT key) FROM requests")[0]
    assert total == distinct
    assert query(
        ws,
        "SELECT count(*) FROM requests WHERE status = 'error' AND coalesce(last_error, '') = ''",
    ) == [(0,)]
    # the counts `scrapy status` shows (kept by triggers) equal a direct count
    assert query(
        ws, "SELECT court, kind, status, n FROM request_counts WHERE n > 0 ORDER BY 1, 2, 3"
    ) == query(ws, "SELECT court, kind, status, count(*) FROM requests GROUP BY 1, 2, 3")


def interrupt(proc: subprocess.Popen[bytes], times: int) -> int:
    """Send SIGINT ``times`` times (0.05 s apart), wait for the exit and return its code."""
    for i in range(times):
        if i:
            time.sleep(0.05)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGINT)
    return proc.wait(timeout=120)


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
        meta["harvest_key"] = key
    return Request(url, callback=UnitSpider().parse_case, meta=meta, **kw)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return tmp_path / "ws"
