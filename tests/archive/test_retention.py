"""The archive index's entry history, and pruning with a retention (days)."""

from __future__ import annotations

import calendar
import time
from pathlib import Path

import pytest

from harvest.archive.store import ArchiveIndex, ArchiveWriter, prune, read_entry
from tests.support.archive import exchange

COURT = "pn-test"
KEY = "case|pn-test|{n}/Pid.B/2024/PN Tst"
#: tests.support.archive.exchange's fetch time, 2026-09-21T14:13:21.250Z
FETCHED = calendar.timegm(time.strptime("2026-09-21T14:13:21", "%Y-%m-%dT%H:%M:%S")) + 0.25


def write_twice(root: Path) -> None:
    for run in ("r1", "r2"):
        with ArchiveIndex.open(root / "index.sqlite") as index:
            writer = ArchiveWriter(root, COURT, index, run=run)
            for n in range(3):
                writer.write(KEY.format(n=n), exchange(n, row={"run": run}))
            writer.close()


@pytest.mark.parametrize(("days", "kept", "removed"), [(0, 1, 1), (2, 2, 0)])
def test_prune_keeps_the_history_within_the_retention(
    tmp_path: Path, days: int, kept: int, removed: int
) -> None:
    root = tmp_path / "ws" / "archive"
    write_twice(root)
    with ArchiveIndex.open(root / "index.sqlite") as index:
        assert [e.run for e in index.history(KEY.format(n=1))] == ["r1", "r2"]
        result = prune(root, index, retention_days=days, now=FETCHED + 86400)
        # the r1 file holds only superseded entries: removed, unless they are all retained
        assert result.files_removed == removed
        for n in range(3):
            history = index.history(KEY.format(n=n))
            assert [e.run for e in history] == ["r1", "r2"][-kept:]
            runs = [read_entry(root, e).context["row"]["run"] for e in history]
            assert runs == ["r1", "r2"][-kept:]
            assert history[-1] == index.get(KEY.format(n=n))


def test_a_retention_shorter_than_the_entries_age_keeps_the_latest_only(tmp_path: Path) -> None:
    root = tmp_path / "ws" / "archive"
    write_twice(root)
    with ArchiveIndex.open(root / "index.sqlite") as index:
        prune(root, index, retention_days=0.5, now=FETCHED + 86400)
        assert [e.run for e in index.history(KEY.format(n=0))] == ["r2"]
