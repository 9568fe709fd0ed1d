"""Done-when of the resumable scheduler, against the SIPP replica with the real ``sipp`` spider.

* 300 cases, faults on: SIGKILL at 5 random moments (resumed each time), then one SIGINT
  (graceful) and resume, then two SIGINTs (forced) and resume to the end. The exported harvest
  equals the replica's ground truth; no row is in flight, no key has two rows, every error row
  has a reason.
* Faults that exhaust the retries leave ``error`` rows; after the faults are switched off,
  ``scrapy requeue`` plus one crawl brings every case to the ground truth.
"""

from __future__ import annotations

import os
import random
import signal
from pathlib import Path

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import (
    crawl_command,
    exported,
    run,
    start,
    state_query,
    truth_by_key,
)
from tests.support.paths import SCRAPY
from tests.support.scheduler import (
    assert_state_invariants,
    counts_by_status,
    exchanges,
    interrupt,
    wait_for_progress,
)

pytestmark = pytest.mark.slow

COURT = "pn-replika"
#: Faults short enough for a test: a hung or slow answer costs one short timeout.
REPLICA_FAULT_ARGS = ("--hang-seconds", "2", "--slow-seconds", "0.2")


def crawl_cmd(ws: Path, url: str, **extra: str) -> list[str]:
    return crawl_command(url, COURT, ws, settings={"DOWNLOAD_TIMEOUT": "1", **extra})


def test_kills_and_interrupts_lose_nothing(tmp_path: Path) -> None:
    ws, log = tmp_path / "ws", tmp_path / "crawl.log"
    rng = random.Random(20261130)
    with running_replica(
        cases=300, seed=11, faults=0.05, court_id=COURT, extra_args=REPLICA_FAULT_ARGS
    ) as rep:
        # Each attempt of a tab is two exchanges (show_* and its redirect), so ~10% of attempts
        # meet a fault; with the default 4 attempts ~0.2 of 2,130 requests would exhaust them
        # in a run (a legitimate ``error`` row, but not what this test is about). 7 attempts
        # make that ~2e-4 per run: the state must still come out equal to the truth.
        cmd = crawl_cmd(ws, rep.url, RETRY_TIMES="6")
        for _ in range(5):
            proc = start(cmd, log)
            wait_for_progress(ws, exchanges(ws) + rng.randint(20, 400), timeout=180, proc=proc)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        for times in (1, 2):
            proc = start(cmd, log)
            wait_for_progress(ws, exchanges(ws) + rng.randint(50, 300), timeout=180, proc=proc)
            interrupt(proc, times, log)
            if times == 1:
                assert_state_invariants(ws)  # graceful stop: nothing left in flight
        final = run(cmd, timeout=600, log=log)
        assert final.returncode == 0, final.stderr[-3000:]
        want = truth_by_key(rep.write_truth(tmp_path / "truth.jsonl"))
    assert_state_invariants(ws)
    reasons = dict(state_query(ws, "SELECT close_reason, count(*) FROM runs GROUP BY 1"))
    # the forced stop (two SIGINTs) never closes, unless the graceful drain won the race
    assert reasons in (
        {"finished": 1, "killed": 6, "shutdown": 1},
        {"finished": 1, "killed": 5, "shutdown": 2},
    )
    assert counts_by_status(ws).get("error", 0) == 0, state_query(
        ws, "SELECT key, last_error FROM requests WHERE status = 'error'"
    )
    assert exported(ws) == want


def test_requeue_after_faults_are_switched_off(tmp_path: Path) -> None:
    ws, log = tmp_path / "ws", tmp_path / "crawl.log"
    # no retries and many faults: plenty of requests end in error
    with running_replica(
        cases=60, seed=5, faults=0.3, court_id=COURT, extra_args=REPLICA_FAULT_ARGS
    ) as rep:
        proc = run(crawl_cmd(ws, rep.url, RETRY_TIMES="0"), timeout=300, log=log)
        # finished with failed requests left: exit status 3 (README, "Exit status")
        assert proc.returncode == 3, proc.stderr[-3000:]
        assert_state_invariants(ws)
        failed = counts_by_status(ws).get("error", 0)
        assert failed > 0
        # the court is healthy again: same address, so the stored requests (and tokens) hold
        rep.faults_off()
        requeue = run([*SCRAPY, "requeue", "-s", f"HARVEST_WORKSPACE={ws}"])
        plural = "s" if failed != 1 else ""
        assert requeue.stdout.strip() == f"requeued {failed} failed request{plural} to pending"
        again = run(crawl_cmd(ws, rep.url), timeout=300, log=log)
        assert again.returncode == 0, again.stderr[-3000:]
        want = truth_by_key(rep.write_truth(tmp_path / "truth.jsonl"))
    assert_state_invariants(ws)
    assert counts_by_status(ws).get("error", 0) == 0
    assert exported(ws) == want


def test_two_courts_crawl_one_workspace_at_once(tmp_path: Path) -> None:
    """Courts share a workspace: two live crawls write one state (group commits interleave) and
    one item store, and each harvest equals its court's truth."""
    ws, log = tmp_path / "ws", tmp_path / "crawl.log"
    with (
        running_replica(cases=80, seed=21, court_id="pn-satu") as one,
        running_replica(cases=80, seed=22, court_id="pn-dua") as two,
    ):
        procs = [
            start(crawl_command(rep.url, court, ws), log)
            for rep, court in ((one, "pn-satu"), (two, "pn-dua"))
        ]
        codes = [proc.wait(timeout=300) for proc in procs]
        want = {
            **truth_by_key(one.write_truth(tmp_path / "one.jsonl")),
            **truth_by_key(two.write_truth(tmp_path / "two.jsonl")),
        }
    assert codes == [0, 0], log.read_text()[-3000:]
    assert_state_invariants(ws)
    assert dict(state_query(ws, "SELECT court, count(*) FROM runs GROUP BY 1")) == {
        "pn-dua": 1,
        "pn-satu": 1,
    }
    assert counts_by_status(ws) == {"ok": state_query(ws, "SELECT count(*) FROM requests")[0][0]}
    assert exported(ws) == want
