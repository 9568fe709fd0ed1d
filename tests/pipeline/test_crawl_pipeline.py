"""The pipeline inside a real ``scrapy`` crawl of the project: stats, drop log lines, re-runs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.paths import REPO, SCRAPY

SPIDER = str(REPO / "tests" / "support" / "parts_spider.py")


def run_spider(workspace: Path) -> str:
    done = subprocess.run(
        [*SCRAPY, "runspider", SPIDER, "-s", f"HARVEST_WORKSPACE={workspace}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stderr


def test_a_crawl_stores_parts_counts_outcomes_and_logs_drops(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    first = run_spider(workspace)

    assert "'harvest/items/created': 2," in first
    assert "'harvest/items/unchanged': 2," in first
    assert "'harvest/items/dropped/missing-case-number': 1," in first
    assert "'harvest/items/dropped/not-serialisable': 1," in first
    assert (
        "WARNING: Dropped: bad case part dropped (missing-case-number): part has no case "
        "number (nomor_perkara ''); court='pn-test' nomor_perkara='' part='case'"
    ) in first
    assert "WARNING: Dropped: bad case part dropped (not-serialisable): data of part" in first

    # The same crawl again (every request re-run): nothing new, nothing twice.
    second = run_spider(workspace)
    assert "'harvest/items/unchanged': 4," in second
    assert "harvest/items/created" not in second

    export = subprocess.run(
        [*SCRAPY, "export", "--complete-only", "-s", f"HARVEST_WORKSPACE={workspace}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    (line,) = export.stdout.splitlines()
    document = json.loads(line)
    assert document["dedupe_key"] == "sipp.pn-test:1/Pid.B/2024/PN Tst"
    assert document["complete"] is True
    assert document["tabs"] == {"pihak": [{"nama": "A"}]}
