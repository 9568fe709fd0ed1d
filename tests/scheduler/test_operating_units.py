"""Units of issue #27: the progress line and its ETA, the pause policy, the --check thresholds,
the stop bound and the forced stop (the end-to-end tests are in tests/e2e/test_stopping.py,
tests/e2e/test_scrapyd.py and tests/multi/test_court_pauses.py)."""

from __future__ import annotations

import datetime as dt
import logging

import pytest
from scrapy.settings import Settings

from extensions.pausing import PausePolicy, is_court_down
from extensions.progress import Pace, progress_line
from extensions.state_queries import CourtProgress
from extensions.stopping import StopGuard, stop_timeout
from extensions.store import CourtPause
from harvest.base.settings_error import SettingsError
from harvest.status_check import Thresholds, failures


def test_the_progress_line_counts_the_published_total_and_an_eta_at_the_polite_rate() -> None:
    # 100 published cases, 10 known (5 complete) with 100 requests (80 ended, 20 waiting): 10
    # a case, so 90 unknown cases = 900 requests + 20 waiting; 1.5 exchanges a request (120
    # exchanges for 80 ended); 1380 exchanges at the polite 1 exchange/s
    p = CourtProgress("pn-x", 10, 5, 15, 5, 75, 5)
    pace = Pace(exchanges=120, published=100, polite_rate=1.0)
    line = progress_line(p, ended=80, elapsed=60.0, pace=pace)
    assert line == (
        "progress pn-x: cases 5/100 complete (5.0%; 100 published); requests 75 ok, "
        "20 waiting, 5 failed; 2.00 exchanges/s; ETA 23m00s at 1.00/s"
    )


def test_the_percentage_never_goes_down_and_unknown_totals_use_the_known_cases() -> None:
    p = CourtProgress("pn-x", 40, 10, 5, 0, 60, 0)
    assert "(30.0%)" in progress_line(p, ended=60, elapsed=10.0, pace=Pace(floor=30.0))
    assert "cases 10/40 complete (25.0%);" in progress_line(p, ended=60, elapsed=10.0)
    done = CourtProgress("pn-x", 40, 40, 0, 0, 300, 0)
    assert progress_line(done, ended=300, elapsed=10.0).endswith("; nothing waiting")


def test_pauses_back_off_from_minutes_to_hours_and_only_for_a_court_away() -> None:
    policy = PausePolicy()
    assert [policy.delay(n) for n in (1, 2, 3, 4, 5)] == [300, 1200, 4800, 19200, 21600]
    assert is_court_down("DownloadConnectionRefusedError: Connection was refused by other side")
    assert is_court_down("DownloadTimeoutError: Getting http://x took longer than 60.0 seconds.")
    assert is_court_down("HTTP 503")
    assert not is_court_down("HTTP 404")
    assert not is_court_down("database error page")
    settings = Settings({"HARVEST_PAUSE_BACKOFF": "4", "HARVEST_PAUSE_AFTER": "2"})
    short = PausePolicy.from_settings(settings)
    assert (short.after, short.delay(1), short.delay(2)) == (2, 4.0, 16.0)
    with pytest.raises(SettingsError, match="HARVEST_PAUSE_BACKOFF must be a number"):
        PausePolicy.from_settings(Settings({"HARVEST_PAUSE_BACKOFF": "soon"}))


def test_check_fails_on_a_pause_an_error_share_and_warnings_per_page() -> None:
    now = dt.datetime(2026, 12, 2, 1, 30, tzinfo=dt.UTC)
    pause = CourtPause(
        "pn-a", "2026-12-02T01:00:00.000Z", "2026-12-02T01:35:00.000Z", "HTTP 502", 2
    )
    courts = [CourtProgress("pn-a", 1, 1, 0, 0, 10, 0), CourtProgress("pn-b", 5, 5, 0, 0, 8, 2)]
    warnings = [{"court": "pn-b", "count": 4}, {"court": "pn-b", "count": 1}]
    got = failures(Thresholds(), courts, [pause], warnings, now=now)
    assert [(f["court"], f["check"], f["value"]) for f in got] == [
        ("pn-a", "paused", 30.0),
        ("pn-b", "error_share", 0.2),
        ("pn-b", "warnings_per_page", 0.625),
    ]
    assert got[0]["message"] == (
        "court pn-a paused for 30.0 min (pause 2 in a row: HTTP 502); tried again at "
        "2026-12-02T01:35:00.000Z"
    )
    loose = Thresholds(max_paused_minutes=45, max_error_share=0.25, max_warnings_per_page=1)
    assert failures(loose, courts, [pause], warnings, now=now) == []


def test_the_stop_bound_defaults_to_the_download_timeout_plus_15() -> None:
    assert stop_timeout(Settings({"DOWNLOAD_TIMEOUT": 60})) == 75.0
    assert stop_timeout(Settings({"HARVEST_STOP_TIMEOUT": "20"})) == 20.0
    with pytest.raises(SettingsError, match="HARVEST_STOP_TIMEOUT must be a positive number"):
        stop_timeout(Settings({"HARVEST_STOP_TIMEOUT": "0"}))


def test_a_forced_stop_logs_and_exits_5_once(caplog: pytest.LogCaptureFixture) -> None:
    class NoCrawler:
        extensions = None

    exits: list[int] = []
    guard = StopGuard(NoCrawler(), 18.0, exit_process=exits.append)  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING):
        guard.force("forced by a second SIGINT")
        guard.force("forced by a third")  # already forcing: nothing more
    assert exits == [5]
    assert [r.getMessage() for r in caplog.records] == [
        "stopping now: forced by a second SIGINT (HARVEST_STOP_TIMEOUT 18 s)",
        "exit status 5: stopped before the end (forced by a second SIGINT)",
    ]


def test_after_a_stop_signal_the_process_exits_with_its_status_once_summed_up() -> None:
    class NoCrawler:
        extensions = None

    exits: list[int] = []
    guard = StopGuard(NoCrawler(), 18.0, exit_process=exits.append)  # type: ignore[arg-type]
    guard.exit_after_stop(3)
    assert exits == []  # no signal: the interpreter exits as usual
    guard.signalled = True
    guard.exit_after_stop(5)
    guard.force("the watchdog, too late")  # already exiting: nothing more
    assert exits == [5]
