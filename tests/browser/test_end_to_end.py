"""``scrapy crawl sipp`` of a court behind the replica's JavaScript gate, with and without browser.

The whole product runs as a user runs it (subprocesses, a workspace in ``tmp_path``): the
replica with ``--challenge`` (every request without a valid clearance cookie bound to the
User-Agent gets a 403 page whose script computes the cookie and reloads), then

* ``-s SIPP_BROWSER=challenge``: one Chromium pass, then plain HTTP; ``scrapy export
  --complete-only`` must equal the replica's ground truth exactly;
* the browser off: the crawl ends with the instruction recorded as the request's error, and
  nothing harvested.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harvest.clearance import OFF_REASON
from reference.sipp_site.challenge import COOKIE
from reference.sipp_site.testing import running_replica
from tests.support.browser import needs_chromium
from tests.support.paths import REPO, SCRAPY

pytestmark = [pytest.mark.browser, pytest.mark.slow]

COURT = "pn-gate"
CASES = 20
SEED = 11
FAST = [
    "-s", "DOWNLOAD_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False",
    "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8", "-s", "DOWNLOAD_TIMEOUT=20",
]  # fmt: skip


@pytest.fixture(scope="module")
def gated_court(tmp_path_factory):
    truth = tmp_path_factory.mktemp("truth") / "truth.jsonl"
    with running_replica(cases=CASES, seed=SEED, challenge=True, court_id=COURT) as replica:
        replica.write_truth(truth)
        yield replica, truth


def _scrapy(
    args: list[str], workspace: Path, timeout: float = 150
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HARVEST_WORKSPACE": str(workspace)}
    try:
        return subprocess.run(
            [*SCRAPY, *args],
            check=False,
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        output = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else ""
        pytest.fail(
            f"scrapy {args[0]} hung for {timeout:g} s; its log ends with:\n{output[-4000:]}"
        )


def _crawl(
    url: str, workspace: Path, *extra: str, exit_status: int = 0
) -> subprocess.CompletedProcess[str]:
    proc = _scrapy(
        ["crawl", "sipp", "-a", f"base_url={url}", "-a", f"court_id={COURT}", *FAST, *extra],
        workspace,
    )
    assert proc.returncode == exit_status, proc.stderr[-4000:]
    return proc


def _export(workspace: Path, tmp_path: Path) -> list[dict[str, Any]]:
    out = tmp_path / "export.jsonl"
    proc = _scrapy(["export", "--complete-only", "--no-hash", "--out", str(out)], workspace)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def _stat(log: str, name: str) -> int | None:
    m = re.search(rf"'{re.escape(name)}': (\d+)", log)
    return int(m.group(1)) if m else None


def _status(workspace: Path) -> dict[str, Any]:
    proc = _scrapy(["status", "--json"], workspace)
    assert proc.returncode == 0, proc.stderr[-4000:]
    status: dict[str, Any] = json.loads(proc.stdout)
    return status


@needs_chromium
def test_crawl_behind_the_gate_with_the_browser_equals_the_ground_truth(gated_court, tmp_path):
    replica, truth_file = gated_court
    workspace = tmp_path / "ws"
    proc = _crawl(
        replica.url,
        workspace,
        "-s",
        "SIPP_BROWSER=challenge",
        "-s",
        f"SIPP_BROWSER_COOKIES={COOKIE}",
    )
    log = proc.stderr
    # one browser pass; every other exchange was plain HTTP carrying its clearance
    assert _stat(log, "harvest/browser/passes") == 1
    assert _stat(log, "harvest/browser/passes/ok") == 1
    assert _stat(log, "harvest/browser/failed_requests") is None
    assert _stat(log, "playwright/page_count") == 1
    assert "clearance cookies: sipp_clearance" in log
    truth = [json.loads(line) for line in truth_file.read_text(encoding="utf-8").splitlines()]
    assert len(truth) == CASES
    # every request done: the list page, each case, each of its tabs
    tabs = sum(len(doc["tabs"]) for doc in truth)
    status = _status(workspace)
    assert status["totals"] == {"pending": 0, "inflight": 0, "ok": 1 + CASES + tabs, "error": 0}
    assert status["latest_errors"] == []
    exported = _export(workspace, tmp_path)
    assert {d["dedupe_key"] for d in exported} == {d["dedupe_key"] for d in truth}
    assert sorted(exported, key=lambda d: d["dedupe_key"]) == sorted(
        truth, key=lambda d: d["dedupe_key"]
    )


def test_crawl_behind_the_gate_without_the_browser_records_the_instruction(gated_court, tmp_path):
    replica, _ = gated_court
    workspace = tmp_path / "ws"
    # exit status 4: blocked by a JavaScript challenge with the browser off (README)
    proc = _crawl(replica.url, workspace, exit_status=4)
    log = proc.stderr
    assert "run with -s SIPP_BROWSER=challenge" in log
    assert _stat(log, "harvest/browser/passes") is None
    assert "scrapy-playwright" not in log  # Playwright never started
    # the first list page failed with the instruction (what `scrapy status` shows the user);
    # nothing else was ever found
    status = _status(workspace)
    assert status["totals"] == {"pending": 0, "inflight": 0, "ok": 0, "error": 1}
    assert [(e["key"], e["last_error"]) for e in status["latest_errors"]] == [
        (f"list|{COURT}|all|1", OFF_REASON)
    ]
    assert _export(workspace, tmp_path) == []
