"""The case cap in real crawls of the SIPP replica: never more than concurrency + lookahead cases
open at once, across SIGKILLs too (the cases open at a kill are finished first), and the crawl
still equals the ground truth."""

from __future__ import annotations

import os
import random
import signal
from pathlib import Path

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl_command, exported, run, start, truth_by_key
from tests.support.harvest_run import state_query as query
from tests.support.scheduler import assert_state_invariants, exchanges, wait_for_progress

pytestmark = pytest.mark.slow

COURT = "pn-replika"
#: 2 in flight per court (the default) + HARVEST_CASE_LOOKAHEAD 1 (the default); a short delay.
POLITE_ENOUGH = {
    "CONCURRENT_REQUESTS_PER_DOMAIN": "2",
    "DOWNLOAD_DELAY": "0.02",
    "AUTOTHROTTLE_ENABLED": "False",
}


def open_cases_over_time(ws: Path) -> list[int]:
    """Replays the ``events`` table: how many cases were open after each event.

    A case (request group) opens at the first dispatch of one of its rows and closes once every
    row of it known so far is ``ok`` or ``error`` (a detail's tab rows are inserted before the
    detail's ``ok``, so a case with tabs still to fetch stays open).
    """
    state: dict[str, dict[int, str]] = {}
    opened: set[str] = set()
    counts = []
    for _, event, rid, group in query(
        ws,
        "SELECT e.id, e.event, r.id, r.group_key FROM events e "
        "JOIN requests r ON r.id = e.request_id WHERE r.group_key IS NOT NULL ORDER BY e.id",
    ):
        rows = state.setdefault(group, {})
        if event in ("ok", "error"):
            rows[rid] = "done"
        elif event == "dispatched":
            rows[rid] = "inflight"
            opened.add(group)
        else:  # enqueued, retry, released, requeued
            rows[rid] = "pending"
        if group in opened and all(s == "done" for s in rows.values()):
            opened.discard(group)
        counts.append(len(opened))
    return counts


def test_at_most_three_cases_open_across_kills_and_equal_to_the_truth(tmp_path: Path) -> None:
    ws, log = tmp_path / "ws", tmp_path / "crawl.log"
    rng = random.Random(16)
    with running_replica(cases=40, seed=16, court_id=COURT) as rep:
        cmd = crawl_command(rep.url, COURT, ws, settings=POLITE_ENOUGH)
        for _ in range(2):
            proc = start(cmd, log)
            wait_for_progress(ws, exchanges(ws) + rng.randint(30, 90), timeout=120)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        assert query(ws, "SELECT count(*) FROM open_groups")[0][0] >= 1  # a case was open
        final = run(cmd, timeout=300, log=log)
        assert final.returncode == 0, final.stderr[-3000:]
        want = truth_by_key(rep.write_truth(tmp_path / "truth.jsonl"))
    assert_state_invariants(ws)
    counts = open_cases_over_time(ws)
    assert max(counts) == 3  # the cap is used, and never exceeded, kills included
    assert counts[-1] == 0
    assert query(ws, "SELECT count(*) FROM open_groups") == [(0,)]
    assert exported(ws) == want


def test_without_the_cap_every_listed_case_starts_at_once(tmp_path: Path) -> None:
    # what the replay above would see before the cap (so it does tell the two apart)
    with running_replica(cases=40, seed=16, court_id=COURT) as rep:
        cmd = crawl_command(
            rep.url,
            COURT,
            tmp_path / "ws",
            settings={**POLITE_ENOUGH, "HARVEST_CASE_LOOKAHEAD": "-1"},
        )
        result = run(cmd, timeout=300, log=tmp_path / "crawl.log")
    assert result.returncode == 0, result.stderr[-3000:]
    assert max(open_cases_over_time(tmp_path / "ws")) >= 10
