"""Stopping a crawl at a random moment with one or two SIGINTs, as a user's Ctrl+C does, and
measuring how long the process takes to exit (tests/e2e/test_stopping.py, bench/bench_stop.py)."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.support.harvest_run import crawl_command
from tests.support.paths import REPO
from tests.support.scheduler import exchanges, wait_for_progress
from tests.support.waiting import wait_until

#: The stop scenario's DOWNLOAD_TIMEOUT and the bound it implies (HARVEST_STOP_TIMEOUT's default
#: is DOWNLOAD_TIMEOUT + 15 s).
TIMEOUT = 3
BOUND = TIMEOUT + 15.0


def stop_command(ws: Path, url: str, court: str) -> list[str]:
    """The crawl the stops interrupt: 4 sessions per court and the default case look-ahead (5
    cases want 4 jars, so requests wait in the pool's lease while redirects hold jars: the hang
    of issue #27)."""
    return crawl_command(
        url,
        court,
        ws,
        settings={
            "DOWNLOAD_TIMEOUT": str(TIMEOUT),
            "CONCURRENT_REQUESTS_PER_DOMAIN": "4",
            "RETRY_TIMES": "6",
            "HARVEST_PROGRESS_INTERVAL": "0",
        },
    )


#: The summary's last line (extensions/progress.py): ``exit status <code>: <advice>``.
SUMMARY_END = re.compile(rb"exit status (\d): ")


@dataclass(frozen=True)
class StopTrial:
    """One interrupted crawl."""

    signals: int  # SIGINTs sent (1 or 2)
    returncode: int | None  # None: still running at the deadline (then killed)
    seconds: float  # from the last SIGINT to the exit
    summary_code: int | None  # the code the log's last summary line names
    finished_first: bool  # the crawl ended before any signal could be sent


def stop_trial(
    cmd: Sequence[str],
    ws: Path,
    log: Path,
    rng: random.Random,
    *,
    signals: int,
    after: tuple[int, int] = (10, 200),
    deadline: float = 120.0,
    cwd: Path = REPO,
) -> StopTrial:
    """Start ``cmd``, wait for a random number (``after``) of new exchanges, send ``signals``
    SIGINTs (the second once Scrapy logged the first) and wait up to ``deadline`` s for the exit.
    ``cwd``: the checkout whose code runs (another one: a benchmark's baseline).
    """
    offset = log.stat().st_size if log.exists() else 0
    with log.open("ab") as out:
        proc = subprocess.Popen(list(cmd), cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for_progress(ws, exchanges(ws) + rng.randint(*after), timeout=300, proc=proc)
    except AssertionError:
        if proc.poll() is None:
            raise
        return StopTrial(signals, proc.returncode, 0.0, _summary_code(log, offset), True)
    sent = 0
    last = time.monotonic()
    for _ in range(signals):
        if proc.poll() is not None:
            break
        seen = _received(log, offset)
        os.kill(proc.pid, signal.SIGINT)
        last = time.monotonic()
        sent += 1
        if sent < signals:
            wait_until(
                lambda seen=seen: proc.poll() is not None or _received(log, offset) > seen,
                timeout=30,
                what="the crawl logs the SIGINT",
            )
    try:
        code: int | None = proc.wait(timeout=deadline)
    except subprocess.TimeoutExpired:
        code = None
    seconds = time.monotonic() - last
    if code is None:
        proc.kill()
        proc.wait()
    return StopTrial(sent, code, seconds, _summary_code(log, offset), False)


def _received(log: Path, offset: int) -> int:
    return _segment(log, offset).count(b"Received SIGINT")


def _segment(log: Path, offset: int) -> bytes:
    with log.open("rb") as f:
        f.seek(offset)
        return f.read()


def _summary_code(log: Path, offset: int) -> int | None:
    found = SUMMARY_END.findall(_segment(log, offset))
    return int(found[-1]) if found else None
