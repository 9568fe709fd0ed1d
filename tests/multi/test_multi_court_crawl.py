"""Many courts in one crawl (``-a courts=FILE``, docs/multi-court.md) against three replica
courts of different variants and court ids, all on 127.0.0.1: each court's export equals its
own ground truth; each court has its own run, lock and politeness slot; a SIGKILL mid-way and
a rerun finish all three."""

from __future__ import annotations

import contextlib
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from reference.sipp_site.testing import Replica, running_replica
from tests.support.harvest_run import (
    exported,
    mismatches,
    run,
    scrapy_args,
    start,
    state_query,
    truth_by_key,
)
from tests.support.paths import SCRAPY
from tests.support.scheduler import assert_state_invariants, exchanges, wait_for_progress

pytestmark = pytest.mark.slow

#: (variant, court id, cases): three courts of different kinds and sizes.
COURTS = (("pn", "pn-satu", 30), ("pa", "pa-dua", 24), ("ptun", "ptun-tiga", 18))


@contextlib.contextmanager
def three_courts(tmp: Path) -> Iterator[dict[str, Replica]]:
    with contextlib.ExitStack() as stack:
        reps = {
            court: stack.enter_context(
                running_replica(cases=cases, seed=31 + i, variant=variant, court_id=court)
            )
            for i, (variant, court, cases) in enumerate(COURTS)
        }
        yield reps


def court_list(tmp: Path, reps: dict[str, Replica]) -> Path:
    path = tmp / "courts.csv"
    lines = ["base_url,court_id"] + [f"{rep.url},{court}" for court, rep in reps.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def multi_cmd(ws: Path, courts: Path, **settings: str) -> list[str]:
    return [*SCRAPY, "crawl", "sipp", "-a", f"courts={courts}", *scrapy_args(ws, settings)]


def assert_each_court_equals_its_truth(tmp: Path, ws: Path, reps: dict[str, Replica]) -> None:
    for court, rep in reps.items():
        truth = truth_by_key(rep.write_truth(tmp / f"truth-{court}.jsonl"))
        got = exported(ws, "--court", court)
        assert mismatches(got, truth) == {}, court
        assert len(got) == {c: n for _, c, n in COURTS}[court]


def test_three_courts_in_one_crawl_equal_their_truths(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with three_courts(tmp_path) as reps:
        courts = court_list(tmp_path, reps)
        # per-court politeness: every court its own slot of 2 at 20 ms, all on 127.0.0.1
        result = run(
            multi_cmd(
                ws,
                courts,
                CONCURRENT_REQUESTS_PER_DOMAIN="2",
                DOWNLOAD_DELAY="0.02",
                HARVEST_ARCHIVE="False",
            ),
            timeout=600,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        assert_each_court_equals_its_truth(tmp_path, ws, reps)
    assert "multi-court crawl: 3 courts open (pn-satu, pa-dua, ptun-tiga)" in result.stderr
    # the summary sums the courts: 72 cases complete, exit status 0
    assert "summary 3 courts: finished" in result.stderr
    assert "progress 3 courts: cases 72/72 complete (100.0%; 72 published)" in result.stderr
    # the one line names the slowest court (all done here: the first of the smallest share)
    assert "0 waiting, 0 failed; " in result.stderr
    assert re.search(
        r"; slowest (pn-satu|pa-dua|ptun-tiga): \d+/\d+ complete, 0 waiting", result.stderr
    )
    assert_state_invariants(ws)
    # one run a court, each closed finished
    runs = state_query(ws, "SELECT court, close_reason FROM runs ORDER BY court")
    assert runs == [("pa-dua", "finished"), ("pn-satu", "finished"), ("ptun-tiga", "finished")]
    # each court's rows are its own, every one ok
    counts = dict(state_query(ws, "SELECT court, COUNT(*) FROM requests GROUP BY court"))
    assert set(counts) == {"pn-satu", "pa-dua", "ptun-tiga"}
    assert state_query(ws, "SELECT DISTINCT status FROM requests") == [("ok",)]
    # round-robin: the first 12 exchanges already reach all three courts (no court waits
    # for another to finish)
    first = state_query(
        ws,
        "SELECT DISTINCT r.court FROM (SELECT request_id FROM url_log ORDER BY id LIMIT 12) u "
        "JOIN requests r ON r.id = u.request_id",
    )
    assert {c for (c,) in first} == {"pn-satu", "pa-dua", "ptun-tiga"}


def test_a_killed_multi_court_crawl_is_finished_by_the_rerun(tmp_path: Path) -> None:
    ws, log = tmp_path / "ws", tmp_path / "crawl.log"
    with three_courts(tmp_path) as reps:
        courts = court_list(tmp_path, reps)
        cmd = multi_cmd(
            ws,
            courts,
            CONCURRENT_REQUESTS_PER_DOMAIN="1",
            DOWNLOAD_DELAY="0.05",
            HARVEST_ARCHIVE="False",
        )
        proc = start(cmd, log)
        wait_for_progress(ws, 60, timeout=180, proc=proc)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        partial = dict(
            state_query(ws, "SELECT court, COUNT(*) FROM requests WHERE status = 'ok' GROUP BY 1")
        )
        # killed mid-way: every court has started, none is done
        assert set(partial) == {"pn-satu", "pa-dua", "ptun-tiga"}, partial
        final = run(cmd, timeout=600, log=log)
        assert final.returncode == 0, final.stderr[-3000:]
        assert_each_court_equals_its_truth(tmp_path, ws, reps)
    assert_state_invariants(ws)
    reasons = state_query(
        ws, "SELECT court, close_reason, COUNT(*) FROM runs GROUP BY 1, 2 ORDER BY 1, 2"
    )
    assert reasons == [
        ("pa-dua", "finished", 1),
        ("pa-dua", "killed", 1),
        ("pn-satu", "finished", 1),
        ("pn-satu", "killed", 1),
        ("ptun-tiga", "finished", 1),
        ("ptun-tiga", "killed", 1),
    ]
    assert exchanges(ws) > 60


def test_registered_courts_crawled_two_at_a_time(tmp_path: Path) -> None:
    """``scrapy courts add`` + ``-a courts=registered -a max_courts=2``: two lanes at once, the
    third court claimed when one finishes; every court equals its truth."""
    ws = tmp_path / "ws"
    with three_courts(tmp_path) as reps:
        courts = court_list(tmp_path, reps)
        added = run([*SCRAPY, "courts", "add", str(courts), *scrapy_args(ws)])
        assert added.returncode == 0, added.stderr[-2000:]
        assert added.stdout == "3 courts added, 0 changed, 0 unchanged; 3 registered\n"
        listed = run([*SCRAPY, "courts", "list", *scrapy_args(ws)])
        assert [line.split("\t")[:2] for line in listed.stdout.splitlines()] == [
            [court, rep.url] for court, rep in reps.items()
        ]
        cmd = [
            *SCRAPY, "crawl", "sipp", "-a", "courts=registered", "-a", "max_courts=2",
            *scrapy_args(ws, {"HARVEST_ARCHIVE": "False"}),
        ]  # fmt: skip
        result = run(cmd, timeout=600)
        assert result.returncode == 0, result.stderr[-3000:]
        assert_each_court_equals_its_truth(tmp_path, ws, reps)
    assert (
        "multi-court crawl: 2 courts open (pn-satu, pa-dua), 1 waiting (max_courts=2)"
        in result.stderr
    )
    runs = state_query(ws, "SELECT court, close_reason FROM runs ORDER BY id")
    assert sorted(runs) == [
        ("pa-dua", "finished"),
        ("pn-satu", "finished"),
        ("ptun-tiga", "finished"),
    ]
    assert runs[2] == ("ptun-tiga", "finished")
    # the third court started once one of the first two had finished (never three at once)
    ((started,),) = state_query(ws, "SELECT started_at FROM runs WHERE court = 'ptun-tiga'")
    ((first_end,),) = state_query(
        ws, "SELECT min(ended_at) FROM runs WHERE court IN ('pn-satu', 'pa-dua')"
    )
    assert started >= first_end
    assert_state_invariants(ws)
