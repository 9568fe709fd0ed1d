"""Operating a harvest as a user does: strict arguments, progress lines, a summary, honest exit
codes, and commands other than ``crawl`` that never touch the harvest state."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import (
    crawl,
    exported,
    mismatches,
    run,
    scrapy_args,
    state_query,
    truth_by_key,
)
from tests.support.paths import REPO, SCRAPY

pytestmark = pytest.mark.slow

COURT = "pn-replika"


@pytest.mark.parametrize(
    ("argument", "says"),
    [
        ("max_case=10", "unknown spider argument -a max_case: did you mean -a max_cases=...?"),
        ("tabz=putusan", "unknown spider argument -a tabz: did you mean -a tabs=...?"),
        ("tabs=foo", "-a tabs: foo is not a tab slug; give comma-separated slugs among: banding,"),
        ("tabs=putusan,jadwal_sidan", "jadwal_sidan (did you mean jadwal_sidang?)"),
    ],
)
def test_a_bad_argument_is_refused_before_any_request(
    tmp_path: Path, argument: str, says: str
) -> None:
    workspace = tmp_path / "ws"
    name, value = argument.split("=", 1)
    # port 9 (discard) on 127.0.0.1: a request would fail, but none may even be tried
    result = crawl("http://127.0.0.1:9/", COURT, workspace, spider_args={name: value})
    assert result.returncode == 1
    assert says in result.stderr
    assert "Traceback" not in result.stderr
    assert not workspace.exists()  # nothing recorded, no run, no lock


def test_a_listing_not_in_the_menu_exits_1_with_the_menu(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    with running_replica(cases=5, seed=3, court_id=COURT) as replica:
        result = crawl(replica.url, COURT, workspace, spider_args={"listing": "Nope"})
    assert result.returncode == 1, result.stderr[-3000:]
    assert "-a listing='Nope' is not in the court's menu; choose one of: all, " in result.stderr
    assert "exit status 1: refused to start or stopped by a fatal error" in result.stderr
    # scrapy status says the same, on the menu request's row
    (reason,) = state_query(workspace, "SELECT last_error FROM requests WHERE status = 'error'")
    assert reason[0].startswith("BadListing: -a listing='Nope' is not in the court's menu; ")


def test_a_crawl_reports_progress_and_a_summary_and_exits_0_when_done(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    with running_replica(cases=30, seed=4, court_id=COURT) as replica:
        result = crawl(
            replica.url,
            COURT,
            workspace,
            settings={
                "HARVEST_PROGRESS_INTERVAL": "0.5",
                # slow enough for several progress lines
                "DOWNLOAD_DELAY": "0.02",
                "CONCURRENT_REQUESTS_PER_DOMAIN": "2",
            },
        )
    assert result.returncode == 0, result.stderr[-3000:]
    lines = re.findall(
        r"progress pn-replika: cases (\d+)/(\d+) complete \(([\d.]+)%; 30 published\); "
        r"requests (\d+) ok, (\d+) waiting, (\d+) failed; ([\d.]+) exchanges/s; "
        r"(ETA \S+ at ([\d.]+)/s|nothing waiting)",
        result.stderr,
    )
    assert len(lines) >= 3, result.stderr[-3000:]
    complete = [int(x[0]) for x in lines]
    assert complete == sorted(complete)  # progress only grows
    # of the court's published total from the first line on, and the percentage never drops
    assert {int(x[1]) for x in lines} == {30}
    shares = [float(x[2]) for x in lines]
    assert shares == sorted(shares)
    assert any(x[7].startswith("ETA ") for x in lines[:-1])
    # the polite rate of a 0.02 s delay: 50 exchanges per second
    assert {x[8] for x in lines if x[8]} == {"50.00"}
    assert any(float(x[6]) > 0 for x in lines)
    # the summary: every case complete, nothing waiting or failed, exit status 0
    summary = result.stderr[result.stderr.index("summary pn-replika: finished after") :]
    assert "progress pn-replika: cases 30/30 complete (100.0%; 30 published)" in summary
    assert ", 0 waiting, 0 failed;" in summary
    assert "exit status 0: done" in summary
    (ok,) = state_query(workspace, "SELECT count(*) FROM requests WHERE status = 'ok'")[0]
    assert f"requests {ok} ok" in summary


def test_failed_requests_left_exit_3_with_reasons_in_the_summary(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    with running_replica(cases=20, seed=6, court_id=COURT, faults=0.5, fault_seed=2) as replica:
        result = crawl(
            replica.url, COURT, workspace, settings={"RETRY_TIMES": "0", "LOG_LEVEL": "INFO"}
        )
    (failed,) = state_query(workspace, "SELECT count(*) FROM requests WHERE status = 'error'")[0]
    assert failed > 0
    assert result.returncode == 3, result.stderr[-3000:]
    assert f"{failed} failed;" in result.stderr
    assert re.search(r"  failed: \d+ x .+ \(e\.g\. http://127\.0\.0\.1:\d+/", result.stderr)
    assert "exit status 3: finished with failed requests left" in result.stderr
    # each expected site error is one line (reason | URL | attempt), never a traceback
    one_liners = re.findall(
        r"\[extensions\.scheduler\] WARNING: failed: (.+) \| (http://127\.0\.0\.1:\d+/\S*) "
        r"\| attempt (\d+)\n",
        result.stderr,
    )
    assert len(one_liners) == failed
    assert {int(a) for _, _, a in one_liners} == {1}  # RETRY_TIMES=0: the first attempt
    assert "Traceback" not in result.stderr
    assert "Spider error processing" not in result.stderr
    assert "Gave up retrying" not in result.stderr


def test_a_court_behind_a_challenge_with_the_browser_off_exits_4(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    with running_replica(cases=5, seed=3, court_id=COURT, challenge=True) as replica:
        result = crawl(replica.url, COURT, workspace)
    assert result.returncode == 4, result.stderr[-3000:]
    assert "exit status 4: the court answered with a JavaScript challenge" in result.stderr


def test_a_second_crawl_of_a_locked_court_is_refused_with_1(tmp_path: Path) -> None:
    from harvest.base.holder_lock import HolderLock

    workspace = tmp_path / "ws"
    workspace.mkdir(mode=0o700)
    lock = HolderLock(workspace / f"crawl-{COURT}.lock")
    lock.acquire({"pid": 4242, "host": "elsewhere", "run_id": 7, "court": COURT})
    try:
        result = crawl("http://127.0.0.1:9/", COURT, workspace)
    finally:
        lock.release()
    assert result.returncode == 1
    assert "is already being crawled on this workspace (pid 4242" in result.stderr


def test_scrapy_shell_never_touches_the_harvest_state(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    with running_replica(cases=3, seed=3, court_id=COURT) as replica:
        result = run(
            [
                *SCRAPY,
                "shell",
                replica.url + "list_perkara",
                "-c",
                "response.status",
                *scrapy_args(workspace),
            ],
            timeout=120,
        )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "200"
    assert not workspace.exists()  # no state, no court "default", no run, no lock


def test_url_log_keeps_network_time_apart_from_queue_time(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    with running_replica(cases=4, seed=3, court_id=COURT) as replica:
        # one request at a time, 0.4 s apart: every exchange queues behind the delay
        result = crawl(
            replica.url,
            COURT,
            workspace,
            settings={
                "DOWNLOAD_DELAY": "0.4",
                "RANDOMIZE_DOWNLOAD_DELAY": "False",
                "CONCURRENT_REQUESTS_PER_DOMAIN": "1",
                "CONCURRENT_REQUESTS": "4",
            },
        )
    assert result.returncode == 0, result.stderr[-3000:]
    rows = state_query(workspace, "SELECT ms, queue_ms FROM url_log WHERE status = 200")
    assert len(rows) > 10
    # the replica answers locally in milliseconds; the queue waits for the 0.4 s delay
    assert sorted(ms for ms, _ in rows)[len(rows) // 2] < 200
    assert sum(1 for _, q in rows if q is not None and q >= 250) >= len(rows) // 2


def test_a_resumed_crawl_warms_at_most_the_courts_concurrency(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    with running_replica(cases=40, seed=9, court_id=COURT) as replica:
        # run 1: many cases at once, stopped early: their tabs are left for the next run
        first = crawl(
            replica.url,
            COURT,
            workspace,
            settings={"CONCURRENT_REQUESTS_PER_DOMAIN": "16", "CLOSESPIDER_PAGECOUNT": "30"},
        )
        assert first.returncode == 5, first.stderr[-3000:]  # stopped with requests waiting
        started = state_query(
            workspace,
            "SELECT count(*) FROM (SELECT group_key FROM requests WHERE group_key IS NOT NULL "
            "GROUP BY group_key HAVING sum(kind = 'case' AND status = 'ok') = 1 "
            "AND sum(kind = 'tab' AND status = 'pending') > 0)",
        )[0][0]
        assert started >= 8
        # run 2, at the court's default concurrency (2): a warmed session serves case after case
        second = crawl(
            replica.url,
            COURT,
            workspace,
            settings={"CONCURRENT_REQUESTS_PER_DOMAIN": "2", "CONCURRENT_REQUESTS": "16"},
        )
        assert second.returncode == 0, second.stderr[-3000:]
        truth = truth_by_key(replica.truth_path(tmp_path))
    warmups = state_query(
        workspace, "SELECT count(*) FROM url_log WHERE run_id = 2 AND request_id IS NULL"
    )[0][0]
    assert 1 <= warmups <= 2
    assert "'harvest/session/warmups': " + str(warmups) in second.stderr
    assert mismatches(exported(workspace), truth) == {}


def test_the_repository_points_only_at_its_own_docs() -> None:
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    outside = re.compile(r"DESIGN\.md|sipp-site\.md|\.\./shared")
    offenders = [
        name
        for name in tracked
        if name.endswith((".py", ".md", ".cfg", ".toml", ".txt"))
        and (REPO / name).is_file()
        and outside.search((REPO / name).read_text(encoding="utf-8", errors="replace"))
        and name != "tests/e2e/test_operating.py"
    ]
    assert offenders == []
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for link in set(re.findall(r"\(?(docs/[\w-]+\.md)", readme)):
        assert (REPO / link).is_file(), link
    for command in ("crawl", "status", "requeue", "export"):
        help_text = run([*SCRAPY, command, "-h"], timeout=60).stdout
        for link in re.findall(r"[\w/-]+\.md", help_text):
            assert (REPO / link).is_file(), (command, link)


def test_feed_files_outside_the_workspace_are_refused(tmp_path: Path) -> None:
    """scrapyd's ``items_dir`` (and ``-o``) become ``FEEDS``: world-readable case data."""
    workspace = tmp_path / "ws"
    feed = tmp_path / "items" / "job.jl"
    result = crawl(
        "http://127.0.0.1:9/",
        COURT,
        workspace,
        settings={"FEEDS": json.dumps({feed.as_uri(): {"format": "jsonlines"}})},
    )
    assert result.returncode == 1
    assert f"refusing to write feed files ({feed.as_uri()})" in result.stderr
    assert "set 'items_dir =' (empty) in scrapyd.conf" in result.stderr
    assert not workspace.exists()
    assert not feed.parent.exists()
