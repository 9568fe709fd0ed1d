"""Courts that come back by themselves (docs/multi-court.md): a worker's court goes down in the
middle of its harvest; the worker pauses it with back-off (``court_pauses``), ``scrapy status
--check`` fails while it is paused, the webhook receives one JSON message per state change, and
once the court is back the same worker claims it again when due and finishes it, with no
command from a person. Short back-off settings stand in for the default minutes."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from reference.sipp_site.testing import running_replica
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
from tests.support.waiting import wait_until

pytestmark = pytest.mark.slow

COURT = "pn-turun"
#: In one snapshot: whether the court's pause is not due yet, and the failed requests.
_ERRORS_INSIDE_A_PAUSE = (
    "SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now') < paused_until, "
    "(SELECT count(*) FROM requests WHERE status = 'error') FROM court_pauses WHERE court = ?"
)


@contextmanager
def webhook() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A local HTTP listener collecting the JSON bodies POSTed to it."""
    got: list[dict[str, Any]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            got.append({"content_type": self.headers["Content-Type"], **json.loads(body)})
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook?token=s3cret", got
    finally:
        server.shutdown()
        server.server_close()


def status(ws: Path, *args: str) -> Any:
    return run([*SCRAPY, "status", *args, *scrapy_args(ws)], timeout=120)


def pauses(ws: Path) -> list[dict[str, Any]]:
    doc = json.loads(status(ws, "--json", "--no-parts-check").stdout)
    assert doc["version"] == 1
    return list(doc["pauses"])


def test_a_court_down_mid_run_is_paused_then_finished_by_the_same_worker(
    tmp_path: Path,
) -> None:
    ws, log = tmp_path / "ws", tmp_path / "worker.log"
    settings = {
        "HARVEST_ARCHIVE": "False",
        "CONCURRENT_REQUESTS_PER_DOMAIN": "2",
        "DOWNLOAD_DELAY": "0.05",
        "RETRY_TIMES": "1",
        "DOWNLOAD_TIMEOUT": "2",
        "HARVEST_LEASE_TTL": "3",  # the worker looks at its waiting courts every second
        "HARVEST_PAUSE_AFTER": "3",
        "HARVEST_PAUSE_BACKOFF": "4",  # 4 s, then 16 s (x4), instead of 5 min, 20 min, ...
        "HARVEST_PAUSE_BACKOFF_MAX": "16",
    }
    with webhook() as (hook, messages):
        with running_replica(cases=40, seed=12, court_id=COURT) as rep:
            port, url = rep.port, rep.url
            truth = truth_by_key(rep.write_truth(tmp_path / "truth.jsonl"))
            courts = tmp_path / "courts.csv"
            courts.write_text(f"base_url,court_id\n{url},{COURT}\n", encoding="utf-8")
            added = run([*SCRAPY, "courts", "add", str(courts), *scrapy_args(ws)])
            assert added.returncode == 0, added.stderr[-2000:]
            cmd = [
                *SCRAPY, "crawl", "sipp", "-a", "courts=registered", "-a", "max_courts=2",
                *scrapy_args(ws, {**settings, "HARVEST_ALERT_WEBHOOK": hook}),
            ]  # fmt: skip
            worker = start(cmd, log)
            wait_for_progress(ws, 60, timeout=120, proc=worker)
        # the court is down (connection refused) inside the worker's run
        paused = wait_until(
            lambda: pauses(ws), timeout=90, what="the court is paused", proc=worker
        )
        assert paused[0]["court"] == COURT
        assert paused[0]["pause_count"] >= 1
        assert paused[0]["pause_reason"].startswith(
            (
                "DownloadConnectionRefusedError",
                "DownloadTimeoutError",
                "DownloadFailedError",
                "HTTP 5",
            )
        ), paused
        check = status(ws, "--check", "--no-parts-check")
        assert check.returncode == 1
        assert f"scrapy status --check: FAIL court {COURT} paused for" in check.stderr
        text = status(ws, "--no-parts-check").stdout
        # (re-paused meanwhile, maybe: the times move, the line stays)
        assert "\npaused courts (1):\n  " + f"{COURT}: paused 20" in text
        assert ", due again 20" in text
        # nothing of the court is left failed for a person to requeue: read inside a pause (one
        # snapshot, before it is due), as the requests of a try while it is down fail as they
        # go and are sent back together when it pauses again
        paused_errors = wait_until(
            lambda: [
                errors
                for inside, errors in state_query(ws, _ERRORS_INSIDE_A_PAUSE, (COURT,))
                if inside
            ],
            timeout=60,
            what="a look at the state inside a pause",
            proc=worker,
        )
        assert paused_errors == [0]
        with running_replica(cases=40, seed=12, court_id=COURT, port=port):
            code = worker.wait(timeout=240)
    worker_log = log.read_text()
    assert code == 0, worker_log[-3000:]
    assert f"court {COURT} paused until" in worker_log
    assert f"court {COURT} answers again: its pause is over" in worker_log
    assert pauses(ws) == []
    after = status(ws, "--check", "--no-parts-check")
    assert after.returncode == 0, after.stderr
    assert "scrapy status --check: ok" in after.stderr
    assert mismatches(exported(ws), truth) == {}
    assert_state_invariants(ws)
    # one message per state change: paused (one or more, counting up), then resumed
    states = [(m["state"], m.get("pause_count")) for m in messages]
    assert states[-1] == ("resumed", None)
    assert [s for s, _ in states[:-1]] == ["paused"] * (len(states) - 1)
    assert [c for _, c in states[:-1]] == list(range(1, len(states)))
    assert all(m["content_type"] == "application/json" for m in messages)
    assert all(m["version"] == 1 and m["court"] == COURT for m in messages)
    events = state_query(ws, "SELECT event FROM events WHERE event LIKE 'court_%' ORDER BY id")
    assert events == [("court_paused",)] * (len(states) - 1) + [("court_resumed",)]
    assert exchanges(ws) > 0
    assert "s3cret" not in worker_log
