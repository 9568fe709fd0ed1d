"""``scrapy status`` as a user reads it: complete cases per court, errors grouped by reason,
live vs dead runs, ``--json``, and ``--html`` opened in a real headless Chromium."""

from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from extensions.state_queries import reason_group
from harvest.clearance import DEFAULT_EXECUTABLE
from reference.sipp_site.testing import running_replica
from tests.support.browser import needs_chromium
from tests.support.harvest_run import crawl, crawl_command, scrapy_command, start, state_query
from tests.support.paths import REPO
from tests.support.scheduler import wait_for_progress

pytestmark = pytest.mark.slow

COURT = "pn-replika"


@pytest.fixture(scope="module")
def faulty_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A court crawled through 8% faults without retries: complete cases and failures (each
    case makes ~14 exchanges: ~0.3 of the cases complete, so neither none nor all do)."""
    workspace = tmp_path_factory.mktemp("status") / "ws"
    with running_replica(cases=25, seed=8, court_id=COURT, faults=0.08, fault_seed=5) as replica:
        result = crawl(replica.url, COURT, workspace, settings={"RETRY_TIMES": "0"})
        assert result.returncode == 3, result.stderr[-3000:]

        # the 25 cases sit on two list pages: a fault on one (no retries) would leave its cases
        # unknown, so failed list pages are requeued (with the faults still on) until both read
        def lists_read() -> int:
            sql = "SELECT count(*) FROM requests WHERE kind = 'list' AND status = 'ok'"
            return int(state_query(workspace, sql)[0][0])

        for _ in range(6):
            if lists_read() == 2:
                break
            assert scrapy_command("requeue", workspace, "--kind", "list").returncode == 0
            result = crawl(replica.url, COURT, workspace, settings={"RETRY_TIMES": "0"})
            assert result.returncode in (0, 3), result.stderr[-3000:]
    assert lists_read() == 2
    return workspace


def _expected(workspace: Path) -> dict[str, Any]:
    errors = state_query(workspace, "SELECT last_error FROM requests WHERE status = 'error'")
    by_reason = Counter(reason_group(r) for (r,) in errors)
    cases = state_query(
        workspace,
        "SELECT count(*), sum(done) FROM (SELECT sum(status != 'ok') = 0 AND sum(kind = 'case')"
        " AS done FROM requests WHERE group_key IS NOT NULL GROUP BY group_key)",
    )[0]
    ok = state_query(workspace, "SELECT count(*) FROM requests WHERE status = 'ok'")[0][0]
    return {"by_reason": by_reason, "known": cases[0], "complete": cases[1], "ok": ok}


def test_status_json_has_complete_cases_and_errors_by_reason(faulty_workspace: Path) -> None:
    want = _expected(faulty_workspace)
    result = scrapy_command("status", faulty_workspace, "--json", "--limit", "50")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    (court,) = doc["courts"]
    assert court["court"] == COURT
    assert court["cases_known"] == want["known"] == 25
    assert court["cases_complete"] == want["complete"]
    assert 0 < court["cases_complete"] < 25
    assert court["ok"] == want["ok"]
    groups = {g["reason"]: g for g in doc["error_groups"]}
    assert {k: g["count"] for k, g in groups.items()} == dict(want["by_reason"])
    for g in groups.values():
        assert g["example_url"].startswith("http://127.0.0.1:")
        assert g["courts"] == [COURT]
    counts = [g["count"] for g in doc["error_groups"]]
    assert counts == sorted(counts, reverse=True)
    assert doc["runs"][0]["state"] == "ended"


def test_status_text_shows_the_same(faulty_workspace: Path) -> None:
    want = _expected(faulty_workspace)
    result = scrapy_command("status", faulty_workspace, "--limit", "50")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"{COURT}: {want['complete']}/25 complete" in out
    for reason, count in want["by_reason"].items():
        assert re.search(rf"^\s+{count}  {re.escape(reason)}  \[", out, re.MULTILINE), reason


def test_a_killed_run_shows_dead_and_a_running_one_live(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    log = tmp_path / "crawl.log"
    with running_replica(cases=60, seed=3, court_id=COURT) as replica:
        cmd = crawl_command(
            replica.url,
            COURT,
            workspace,
            settings={"DOWNLOAD_DELAY": "0.2", "CONCURRENT_REQUESTS_PER_DOMAIN": "1"},
        )
        proc = start(cmd, log)
        try:
            wait_for_progress(workspace, 4, timeout=60, proc=proc)
            live = json.loads(scrapy_command("status", workspace, "--json").stdout)
            assert [r["state"] for r in live["runs"]] == ["live"]
            assert live["runs"][0]["pid"] == proc.pid
            text = scrapy_command("status", workspace).stdout
            assert "running (live: its process holds the crawl lock)" in text
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
    dead = json.loads(scrapy_command("status", workspace, "--json").stdout)
    assert [r["state"] for r in dead["runs"]] == ["dead"]
    assert dead["runs"][0]["ended_at"] is None
    text = scrapy_command("status", workspace).stdout
    assert "dead: killed or crashed (the next crawl of the court takes over)" in text


@needs_chromium
def test_the_status_page_renders_in_chromium_with_its_numbers(
    faulty_workspace: Path, tmp_path: Path
) -> None:
    want = _expected(faulty_workspace)
    page = tmp_path / "status.html"
    result = scrapy_command("status", faulty_workspace, "--html", str(page), "--limit", "50")
    assert result.returncode == 0, result.stderr
    assert page.stat().st_mode & 0o777 == 0o600
    source = page.read_text()
    # self-contained: nothing to fetch
    assert not re.search(r"<script|<link|src=|https?://(?!127\.0\.0\.1)", source)
    assert source.count("<svg") == 3
    chrome = [
        DEFAULT_EXECUTABLE,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--window-size=820,1600",
    ]
    shot = tmp_path / "status.png"
    subprocess.run(
        [*chrome, f"--screenshot={shot}", page.as_uri()],
        cwd=REPO,
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 30_000  # charts and tables, not a blank page
    dom = subprocess.run(
        [*chrome, "--dump-dom", page.as_uri()],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    text = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom)))
    assert f"{COURT} {want['complete']}/25" in text
    assert f"{want['ok']} ok" in text
    assert f"{COURT}: {want['ok']}" in text  # the progress chart's legend
    for reason, count in want["by_reason"].items():
        assert f" {count} {reason[:40]}" in text, reason
    assert "Throughput (HTTP exchanges per minute)" in text
    assert " ended " in text


def test_status_json_is_versioned_and_check_applies_the_thresholds(
    faulty_workspace: Path,
) -> None:
    """docs/status.md: the document's version and keys; --check fails on the error share
    (exit 1, one line naming the court and the numbers) and passes under a looser limit."""
    doc = json.loads(scrapy_command("status", faulty_workspace, "--json").stdout)
    assert doc["version"] == 1
    assert set(doc) == {
        "version", "state", "totals", "counts", "oldest_pending", "latest_errors", "runs",
        "notices", "latest_notices", "parse_warnings", "courts", "error_groups",
        "error_groups_total", "run_states", "parts", "refresh", "pauses", "national",
    }  # fmt: skip
    assert doc["pauses"] == []
    ((ok, failed),) = state_query(
        faulty_workspace,
        "SELECT sum(status = 'ok'), sum(status = 'error') FROM requests",
    )
    share = failed / (ok + failed)
    assert 0 < share < 1
    limit = share / 2
    strict = scrapy_command(
        "status", faulty_workspace, "--check", "--json", "--max-error-share", f"{limit}"
    )
    assert strict.returncode == 1
    assert (
        f"scrapy status --check: FAIL court {COURT}: {failed} of {ok + failed} ended requests "
        f"failed ({100 * share:.1f}% > {100 * limit:g}%)\n"
    ) in strict.stderr
    checks = json.loads(strict.stdout)["checks"]
    assert (checks[0]["court"], checks[0]["check"]) == (COURT, "error_share")
    assert (checks[0]["value"], checks[0]["limit"]) == (round(share, 4), limit)
    loose = scrapy_command(
        "status", faulty_workspace, "--check", "--max-error-share", "1",
        "--max-warnings-per-page", "1000",
    )  # fmt: skip
    assert loose.returncode == 0, loose.stderr
    assert loose.stderr.endswith("scrapy status --check: ok (no court exceeds a threshold)\n")
