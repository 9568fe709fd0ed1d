"""One line for an expected failure, tracebacks only for bugs (issue 24).

On main a refused start printed 3-4 tracebacks ("Scraper slot not assigned", CoreStats'
``AssertionError``, the refusal itself) and a full disk dozens, around the one line that says
what to do. Each crawl here fails for an expected reason at the default ``LOG_LEVEL``: its log
has no ``Traceback`` and the line saying what to do; at ``LOG_LEVEL=DEBUG`` the detail is there.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.disk import small_tmpfs
from tests.support.harvest_run import crawl, crawl_command, run, start
from tests.support.paths import REPO, SCRAPY
from tests.support.waiting import wait_until

pytestmark = pytest.mark.slow

COURT = "pn-replika"


def _crawl_args(workspace: Path, *settings: str) -> list[str]:
    return [
        *SCRAPY, "crawl", "sipp", "-a", "base_url=http://127.0.0.1:1/", "-a", f"court_id={COURT}",
        "-s", f"HARVEST_WORKSPACE={workspace}", *settings,
    ]  # fmt: skip


def test_a_refused_start_is_one_line(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    proc = run(_crawl_args(not_a_dir), timeout=120)
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert proc.stderr.count("Traceback") == 0, proc.stderr[-4000:]
    errors = [line for line in proc.stderr.splitlines() if " ERROR: " in line]
    assert errors == [
        errors[0].split(" [")[0] + " [harvest.commands.crawl] ERROR: the crawl cannot start: "
        f"cannot create workspace '{not_a_dir}': File exists; set HARVEST_WORKSPACE to a "
        "writable directory"
    ]
    assert "Scraper slot not assigned" not in proc.stderr
    debug = run(_crawl_args(not_a_dir, "-s", "LOG_LEVEL=DEBUG"), timeout=120)
    assert debug.returncode == 1
    assert "Traceback" in debug.stderr  # the detail, at DEBUG
    assert "] DEBUG: Scraper close failure" in debug.stderr


def test_a_court_already_being_crawled_refuses_the_second_crawl_in_one_line(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    with running_replica(
        cases=200, seed=3, court_id=COURT, extra_args=["--latency", "0.5"]
    ) as replica:
        first = start(crawl_command(replica.url, COURT, workspace), tmp_path / "first.log")
        try:
            wait_until(
                lambda: "crawl of pn-replika" in (tmp_path / "first.log").read_text(),
                timeout=120,
                what="the first crawl started",
                proc=first,
            )
            second = crawl(replica.url, COURT, workspace, timeout=120)
        finally:
            first.send_signal(signal.SIGINT)
            try:
                first.wait(timeout=60)
            except subprocess.TimeoutExpired:
                first.kill()
                first.wait()
    assert second.returncode == 1, second.stderr[-3000:]
    assert second.stderr.count("Traceback") == 0, second.stderr[-4000:]
    errors = [line for line in second.stderr.splitlines() if " ERROR: " in line]
    assert len(errors) == 1, errors
    assert "the crawl cannot start: court 'pn-replika' is already being crawled" in errors[0]


def test_a_full_disk_is_the_lines_that_say_what_to_do_without_tracebacks(tmp_path: Path) -> None:
    with (
        small_tmpfs(tmp_path / "disk", "640k") as disk,
        running_replica(cases=60, seed=52, court_id=COURT) as replica,
    ):
        full = crawl(replica.url, COURT, disk / "ws")
    assert full.returncode == 1, full.stderr[-3000:]
    assert "disk is full" in full.stderr
    assert "scrapy crawl: the crawl stopped early (" in full.stderr
    assert full.stderr.count("Traceback") == 0, full.stderr[-6000:]


def test_a_bug_keeps_its_traceback(tmp_path: Path) -> None:
    """A failure that is not expected (here: a spider middleware that does not exist) is a bug:
    its traceback stays at ERROR."""
    proc = subprocess.run(
        _crawl_args(tmp_path / "ws", "-s", 'SPIDER_MIDDLEWARES={"no.such.Middleware": 1}'),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1
    assert "Traceback" in proc.stderr
    assert "ModuleNotFoundError: No module named 'no'" in proc.stderr
