"""End to end: a crawl killed mid-way and resumed, then ``scrapy export --complete-only``.

(The plain full-crawl equality, PN and PA, is tests/e2e/test_sipp_crawl.py.) Runs what a user
runs, as subprocesses: the replica on 127.0.0.1, ``scrapy crawl sipp``, ``scrapy export``.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from pipelines.store import ItemStore, ItemStoreError
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl_command, exported, mismatches, truth_by_key
from tests.support.paths import REPO

COURT = "pn-replika"


def complete_cases(items_db: Path) -> int:
    if not items_db.exists():
        return 0
    try:
        with ItemStore.open(items_db, readonly=True) as store:
            return store.count_documents(complete_only=True)
    except ItemStoreError:
        return 0  # not created yet


def sqlite_count(db: Path, sql: str) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()


@pytest.mark.slow
def test_a_crawl_killed_mid_way_and_resumed_exports_the_truth_without_duplicates(
    tmp_path: Path,
) -> None:
    cases = 60
    workspace = tmp_path / "ws"
    items_db = workspace / "items.sqlite"
    with running_replica(cases=cases, seed=21, court_id=COURT) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        command = crawl_command(replica.url, COURT, workspace)
        first = subprocess.Popen(
            command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            deadline = time.monotonic() + 240
            while complete_cases(items_db) < cases // 3 and first.poll() is None:
                assert time.monotonic() < deadline, "the first crawl made no progress"
                time.sleep(0.05)
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=30)
        assert first.returncode == -signal.SIGKILL, "the crawl ended before it could be killed"
        parts_before = sqlite_count(items_db, "SELECT count(*) FROM parts")

        second = subprocess.run(
            command, cwd=REPO, capture_output=True, text=True, timeout=600, check=False
        )
    assert second.returncode == 0, second.stderr[-3000:]

    assert mismatches(exported(workspace), truth) == {}
    # One row per part: the case part plus one per available tab, plus one per bankruptcy
    # follow-up sub page (tab:pailit-sub_<x>, not listed by the detail page), nothing twice.
    expected_parts = sum(
        1
        + sum(1 for t in d["case"]["tabs"] if t["available"])
        + sum(1 for slug in d["tabs"] if slug.startswith("pailit-"))
        for d in truth.values()
    )
    assert 0 < parts_before < expected_parts  # killed mid-way
    assert sqlite_count(items_db, "SELECT count(*) FROM parts") == expected_parts
    assert sqlite_count(items_db, "SELECT count(*) FROM cases") == cases
