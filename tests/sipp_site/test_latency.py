"""``--latency SECONDS``: every answer waits, asynchronously, so one replica serves many slow
requests at once (a politeness-bound court, not a CPU-bound one)."""

from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import requests

from reference.sipp_site.testing import running_replica
from tests.support.paths import REPO


def test_every_answer_waits_the_latency_and_many_wait_at_once() -> None:
    with running_replica(cases=30, extra_args=["--latency", "0.5"]) as rep:
        t0 = time.monotonic()
        r = requests.get(rep.url, timeout=10)
        one = time.monotonic() - t0
        assert r.status_code == 200
        assert "Total : 30 Perkara" in r.text
        assert 0.5 <= one < 1.5
        # twenty clients on twenty connections: all wait together, not one after another
        t0 = time.monotonic()
        with ThreadPoolExecutor(20) as pool:
            codes = list(pool.map(lambda _: requests.get(rep.url, timeout=10).status_code,
                                  range(20)))  # fmt: skip
        twenty = time.monotonic() - t0
        assert codes == [200] * 20
        assert 0.5 <= twenty < 3.0  # serial would be 10 s


def test_requests_on_one_connection_are_answered_in_order_each_after_the_latency() -> None:
    with running_replica(cases=30, extra_args=["--latency", "0.3"]) as rep:
        with requests.Session() as s:
            t0 = time.monotonic()
            texts = [s.get(rep.url, timeout=10).text for _ in range(3)]
            took = time.monotonic() - t0
        assert all("Total : 30 Perkara" in t for t in texts)
        assert took >= 0.9


def test_a_negative_latency_is_refused_with_the_fix() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "reference.sipp_site", "--port", "0", "--latency", "-1"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "--latency -1.0 is negative: give 0 or more seconds" in result.stderr
