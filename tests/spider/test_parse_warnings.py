"""Parse warnings end to end: parser -> spider (stats) -> state (with the request's ok) ->
``scrapy status``, through a SIGKILL and a resume."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
from pathlib import Path

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl_command, run, scrapy_command, start
from tests.support.harvest_run import state_query as query
from tests.support.scheduler import exchanges, wait_for_progress

pytestmark = pytest.mark.slow

COURT = "pn-saksi"
CASES = 60


def test_warnings_are_counted_recorded_with_the_ok_and_shown_by_status(tmp_path: Path) -> None:
    ws, log = tmp_path / "ws", tmp_path / "crawl.log"
    with running_replica(cases=CASES, seed=3, court_id=COURT) as rep:
        cmd = crawl_command(
            rep.url, COURT, ws, settings={"SPIDER_MODULES": "tests.support.warn_spider"}
        )
        proc = start(cmd, log)
        wait_for_progress(ws, exchanges(ws) + 150, timeout=120)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        final = run(cmd, timeout=300, log=log)
        assert final.returncode == 0, final.stderr[-3000:]
    saksi_ok = query(
        ws, "SELECT count(*) FROM requests WHERE key LIKE 'tab|%|saksi' AND status = 'ok'"
    )[0][0]
    assert saksi_ok > 5
    assert query(ws, "SELECT count(*) FROM requests WHERE status != 'ok'") == [(0,)]
    # every Saksi page carries its warning, recorded exactly once per page, killed or not
    assert query(
        ws,
        "SELECT count(*), count(DISTINCT request_id), sum(n) FROM parse_warnings "
        "WHERE page = 'tab:saksi' AND label = 'saksi' AND kind = 'page'",
    ) == [(saksi_ok, saksi_ok, saksi_ok)]
    assert query(ws, "SELECT count(*) FROM parse_warnings WHERE page != 'tab:saksi'") == [(0,)]
    # ... and the Saksi parts in the item store are the generic record
    con = sqlite3.connect(ws / "items.sqlite")
    parts = [
        json.loads(d)
        for (d,) in con.execute("SELECT data_json FROM parts WHERE part = ?", ("tab:saksi",))
    ]
    con.close()
    assert len(parts) == saksi_ok
    assert all(p["generic"] is True for p in parts)
    # the resumed run counted the pages it parsed in its stats
    stats = re.findall(r"'harvest/parse_warnings/tab:saksi/saksi': (\d+)", final.stderr)
    count = re.findall(r"'harvest/parse_warnings/count': (\d+)", final.stderr)
    assert stats
    assert stats == count
    assert 0 < int(stats[-1]) <= saksi_ok
    # scrapy status shows it per tab and label, with the page count and an example URL
    status = scrapy_command("status", ws, "--json")
    assert status.returncode == 0, status.stderr
    warnings = json.loads(status.stdout)["parse_warnings"]
    assert len(warnings) == 1
    w = warnings[0]
    assert {k: w[k] for k in ("court", "page", "label", "kind", "pages", "count")} == {
        "court": COURT,
        "page": "tab:saksi",
        "label": "saksi",
        "kind": "page",
        "pages": saksi_ok,
        "count": saksi_ok,
    }
    assert w["example_url"].startswith(rep.url)
    text = scrapy_command("status", ws).stdout
    assert "parse warnings, kept generically (1):" in text
    assert f"  {saksi_ok} pages ({saksi_ok}x)  {COURT}  tab:saksi  page 'saksi'" in text
