"""A stop always ends (README, "Stopping a crawl"): one SIGINT at a random moment of a crawl with
sessions leased, redirects half-done and tabs in flight exits within ``HARVEST_STOP_TIMEOUT``
with its summary; two SIGINTs exit within 2 s with code 5 and the summary; every interrupted
run resumes to an export equal to the replica's ground truth.

The default suite runs 3 + 3 stops; ``bench/bench_stop.py`` runs the 20 + 20 of issue #27.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import exported, run, truth_by_key
from tests.support.scheduler import assert_state_invariants
from tests.support.stopping import BOUND, stop_command, stop_trial

pytestmark = pytest.mark.slow

COURT = "pn-replika"


def test_single_and_double_sigints_end_in_bound_with_a_summary_and_lose_nothing(
    tmp_path: Path,
) -> None:
    ws, log = tmp_path / "ws", tmp_path / "crawl.log"
    rng = random.Random(2027)
    with running_replica(cases=80, seed=27, court_id=COURT) as rep:
        cmd = stop_command(ws, rep.url, COURT)
        trials = [stop_trial(cmd, ws, log, rng, signals=n, after=(10, 120)) for n in (1, 2) * 3]
        final = run(cmd, timeout=600, log=log)
        want = truth_by_key(rep.write_truth(tmp_path / "truth.jsonl"))
    for t in trials:
        assert not t.finished_first, t
        assert t.returncode is not None, f"still running {t.seconds:.0f} s after SIGINT: {t}"
        if t.signals == 1:
            assert t.seconds <= BOUND, t
            assert t.returncode in (0, 5), t
        else:
            assert t.seconds <= 2.0, t
            assert t.returncode == 5, t
        assert t.summary_code == t.returncode, t  # the log ends with the summary of that code
    assert final.returncode == 0, final.stderr[-3000:]
    assert "exit status 0: done" in final.stderr
    assert_state_invariants(ws)
    assert exported(ws) == want
