"""Real crawls (``scrapy crawl`` subprocesses) of the mini site: faults, kills, resume, requeue.

Every crawl runs the mini spider (tests/support/minispider.py) against :class:`MiniSite` on
127.0.0.1 with the project's scheduler and outcome middlewares, no delays and short timeouts.
"""

from __future__ import annotations

import json
import os
import random
import signal
from pathlib import Path

import pytest

from tests.support.harvest_run import run, start, state_query
from tests.support.minisite import MiniSite
from tests.support.minispider import stored_items
from tests.support.paths import SCRAPY
from tests.support.scheduler import (
    assert_state_invariants,
    counts_by_status,
    exchanges,
    interrupt,
    mini_crawl_cmd,
    wait_for_progress,
)

pytestmark = pytest.mark.slow

BROKEN = frozenset({5, 33})
MISSING = frozenset({9})


def status_json(ws: Path) -> dict[str, object]:
    proc = run([*SCRAPY, "status", "--json", "-s", f"HARVEST_WORKSPACE={ws}"])
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_faulty_crawl_reaches_the_truth_and_status_agrees_with_sql(tmp_path: Path) -> None:
    ws, log = tmp_path / "ws", tmp_path / "crawl.log"
    with MiniSite(60, fault_rate=0.3, broken=BROKEN, missing=MISSING) as site:
        proc = run(mini_crawl_cmd(ws, site.url), log=log)
        # finished with failed requests left (cases 5, 9, 33): exit status 3
        assert proc.returncode == 3, proc.stderr[-3000:]
        assert site.overlaps == 0  # never two requests of one case at once
        served = site.served
    assert stored_items(ws) == site.truth("mini")
    assert_state_invariants(ws)
    errors = dict(state_query(ws, "SELECT key, last_error FROM requests WHERE status = 'error'"))
    assert errors == {
        "case|mini|5": "HTTP 500",
        "case|mini|33": "HTTP 500",
        "case|mini|9": "HTTP 404",
    }
    assert state_query(ws, "SELECT attempts FROM requests WHERE key = 'case|mini|5'") == [(4,)]
    # every exchange the site answered is in the URL log (redirect hops and retries included)
    assert exchanges(ws) == served
    assert state_query(ws, "SELECT count(*) FROM url_log WHERE status = 503")[0][0] > 0
    report = status_json(ws)
    sql_counts = [
        {"court": c, "kind": k, "status": s, "count": n}
        for c, k, s, n in state_query(
            ws,
            "SELECT court, kind, status, count(*) FROM requests GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
        )
    ]
    assert report["counts"] == sql_counts
    assert report["totals"] == {"pending": 0, "inflight": 0, **counts_by_status(ws)}
    runs = report["runs"]
    assert isinstance(runs, list)
    assert runs[0]["close_reason"] == "finished"
    text = run([*SCRAPY, "status", "-s", f"HARVEST_WORKSPACE={ws}"]).stdout
    assert "case|mini|9" in text
    assert "HTTP 404" in text


def test_sigkill_at_five_random_moments_loses_nothing(tmp_path: Path) -> None:
    ws, log = tmp_path / "ws", tmp_path / "crawl.log"
    rng = random.Random(7)
    with MiniSite(100, fault_rate=0.2, broken=BROKEN, missing=MISSING, delay=0.01) as site:
        cmd = mini_crawl_cmd(ws, site.url)
        for _ in range(5):
            proc = start(cmd, log)
            wait_for_progress(ws, exchanges(ws) + rng.randint(5, 60), proc=proc)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        final = run(cmd, log=log)
        assert final.returncode == 3, final.stderr[-3000:]  # the 3 broken cases failed
        assert site.overlaps == 0
    assert stored_items(ws) == site.truth("mini")
    assert_state_invariants(ws)
    assert state_query(ws, "SELECT close_reason, count(*) FROM runs GROUP BY 1 ORDER BY 1") == [
        ("finished", 1),
        ("killed", 5),
    ]
    assert state_query(ws, "SELECT count(*) FROM requests WHERE status = 'error'") == [(3,)]
    # the resumed runs found requests in flight and put them back
    assert state_query(ws, "SELECT count(*) > 0 FROM events WHERE event = 'released'") == [(1,)]


@pytest.mark.parametrize("signals", [1, 2], ids=["graceful", "forced"])
def test_sigint_then_resume(tmp_path: Path, signals: int) -> None:
    ws, log = tmp_path / "ws", tmp_path / "crawl.log"
    with MiniSite(60, fault_rate=0.2, broken=BROKEN, missing=MISSING, delay=0.01) as site:
        cmd = mini_crawl_cmd(ws, site.url)
        proc = start(cmd, log)
        wait_for_progress(ws, 40, proc=proc)
        interrupt(proc, signals, log)
        first = state_query(ws, "SELECT close_reason FROM runs")
        if signals == 1:
            assert first == [("shutdown",)]
            assert_state_invariants(ws)  # graceful: nothing left in flight
        else:  # forced: close() never ran (unless the graceful drain won the race)
            assert first in ([(None,)], [("shutdown",)])
        final = run(cmd, log=log)
        assert final.returncode == 3, final.stderr[-3000:]  # the 3 broken cases failed
    assert stored_items(ws) == site.truth("mini")
    assert_state_invariants(ws)


def test_requeue_after_faults_are_fixed(tmp_path: Path) -> None:
    ws, log = tmp_path / "ws", tmp_path / "crawl.log"
    with MiniSite(40, broken=BROKEN, missing=MISSING) as site:
        assert run(mini_crawl_cmd(ws, site.url), log=log).returncode == 3  # failed left
        assert counts_by_status(ws)["error"] == 3
        site.broken, site.missing = frozenset(), frozenset()  # the site is repaired
        again = run(mini_crawl_cmd(ws, site.url), log=log)  # errors are not retried silently
        assert again.returncode == 3
        assert counts_by_status(ws)["error"] == 3
        dry = run(
            [
                *SCRAPY,
                "requeue",
                "--dry-run",
                "--reason",
                "http 500",
                "-s",
                f"HARVEST_WORKSPACE={ws}",
            ]
        )
        assert (
            dry.stdout.strip() == "would requeue 2 failed requests (reason='http 500') to pending"
        )
        done = run([*SCRAPY, "requeue", "--kind", "case", "-s", f"HARVEST_WORKSPACE={ws}"])
        assert done.stdout.strip() == "requeued 3 failed requests (kind='case') to pending"
        assert run(mini_crawl_cmd(ws, site.url), log=log).returncode == 0
        full = MiniSite(40)
        full.server.server_close()
    assert stored_items(ws) == full.truth("mini")
    assert counts_by_status(ws) == {"ok": 40 + 2 + 80}
    assert state_query(ws, "SELECT count(*) FROM events WHERE event = 'requeued'") == [(3,)]


def test_second_live_crawl_of_the_court_is_refused(tmp_path: Path) -> None:
    ws, log = tmp_path / "ws", tmp_path / "crawl.log"
    with MiniSite(200, delay=0.5) as site:
        first = start(mini_crawl_cmd(ws, site.url), log)
        try:
            wait_for_progress(ws, 3, proc=first)
            second = run(mini_crawl_cmd(ws, site.url), log=log)
            assert second.returncode != 0
            assert f"court 'mini' is already being crawled on this workspace (pid {first.pid}" in (
                second.stderr
            )
            assert state_query(ws, "SELECT count(*) FROM runs") == [(1,)]
        finally:
            interrupt(first, 2, log)
