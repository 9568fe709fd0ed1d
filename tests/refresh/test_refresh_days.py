"""Refreshing a harvested court against the replica's real days (issue 14, "Done when").

The replica serves a court as it stands on a day (``--as-of``): between two days new cases are
registered and open cases move on (hearings held, verdicts, minutasi, appeals), each changing
only its own pages. :func:`reference.sipp_site.testing.court_changes` says which, from the model
and without a crawl. A court of 300 cases is harvested as of D (2024-06-19, the replica's
default) once per module; each test refreshes a copy of that workspace against the same court
(same seed, same port: the tokens stay valid) as of D+7 or D+30, with the policy's day pinned to
the replica's (``HARVEST_REFRESH_TODAY``).
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from reference.sipp_site.court import TODAY
from reference.sipp_site.testing import DayChanges, court_changes, running_replica
from tests.support.harvest_run import (
    crawl,
    exported,
    mismatches,
    state_query,
    truth_by_key,
)
from tests.support.ingest import FAST, IngestServer, run_ship, start_server
from tests.support.refresh import kill_a_due_refresh

COURT = "pn-replika"
SEED = 1
CASES = 300
D = TODAY
D7 = D + dt.timedelta(days=7)
D30 = D + dt.timedelta(days=30)

pytestmark = pytest.mark.slow


def pinned(day: dt.date) -> dict[str, str]:
    return {"HARVEST_REFRESH_TODAY": day.isoformat()}


@dataclass(frozen=True)
class Harvested:
    """The module's harvest as of D: its workspace (copy it before use), the replica's port,
    the truth of D by dedupe key."""

    workspace: Path
    port: int
    truth: dict[str, dict[str, Any]]
    tmp: Path

    def copy(self, to: Path) -> Path:
        shutil.copytree(self.workspace, to)
        return to

    def truth_of(self, day: dt.date) -> dict[str, dict[str, Any]]:
        """The court's ground truth as of ``day`` (written once per day)."""
        path = self.tmp / f"truth-{day.isoformat()}.jsonl"
        if not path.exists():
            with running_replica(cases=CASES, seed=SEED, court_id=COURT, as_of=day) as rep:
                rep.write_truth(path)
        return truth_by_key(path)


@pytest.fixture(scope="module")
def harvested(tmp_path_factory: pytest.TempPathFactory) -> Harvested:
    tmp = tmp_path_factory.mktemp("refresh-days")
    ws = tmp / "harvested"
    with running_replica(cases=CASES, seed=SEED, court_id=COURT, as_of=D) as rep:
        result = crawl(rep.url, COURT, ws, settings=pinned(D))
        truth = truth_by_key(rep.write_truth(tmp / f"truth-{D.isoformat()}.jsonl"))
        port = rep.port
    assert result.returncode == 0, result.stderr[-3000:]
    assert len(truth) == CASES
    assert mismatches(exported(ws), truth) == {}
    return Harvested(ws, port, truth, tmp)


_STAT = re.compile(r"'harvest/refresh/(\w+)': (\d+)")


def refresh(harvested: Harvested, ws: Path, day: dt.date, policy: str) -> dict[str, int]:
    """Refresh ``ws`` with ``-a refresh=<policy>`` against the court as of ``day``; the run's
    planner counts (its ``harvest/refresh/<name>`` stats)."""
    with running_replica(
        cases=CASES, seed=SEED, court_id=COURT, as_of=day, port=harvested.port
    ) as rep:
        result = crawl(rep.url, COURT, ws, spider_args={"refresh": policy}, settings=pinned(day))
    assert result.returncode == 0, result.stderr[-3000:]
    return {name: int(n) for name, n in _STAT.findall(result.stderr)}


def keys(changes: tuple[str, ...]) -> set[str]:
    return {f"sipp.{COURT}:{number}" for number in changes}


def fetched(ws: Path, generation: int) -> set[str]:
    """Dedupe keys of the cases whose detail was queued in ``generation``."""
    rows = state_query(
        ws, "SELECT key FROM requests WHERE kind = 'case' AND generation = ?", (generation,)
    )
    return {f"sipp.{COURT}:{str(key).split('|', 2)[2]}" for (key,) in rows}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[IngestServer]:
    srv = start_server(tmp_path / "ingest.sqlite")
    try:
        yield srv
    finally:
        srv.stop()


def ship(ws: Path, server: IngestServer) -> list[tuple[str, str]]:
    """Ship ``ws`` and return the ingest log rows this run added."""
    before = len(server.log_results())
    result = run_ship(ws, "--endpoint", server.url, *FAST)
    assert result.returncode == 0, result.stderr[-2000:]
    return server.log_results()[before:]


def test_refresh_all_a_week_later_equals_the_truth_and_ships_exactly_what_changed(
    harvested: Harvested, server: IngestServer, tmp_path: Path
) -> None:
    ws = harvested.copy(tmp_path / "ws")
    first = ship(ws, server)
    assert sorted(k for k, _ in first) == sorted(harvested.truth)
    assert {r for _, r in first} == {"created"}

    changes = court_changes(cases=CASES, seed=SEED, before=D, after=D7, court_id=COURT)
    assert (len(changes.new_cases), len(changes.changed_documents)) == (1, 7)
    counts = refresh(harvested, ws, D7, "all")
    # the new case, the 2 whose list row changed (status), the 298 others
    assert {k: counts.get(k, 0) for k in ("new", "changed", "all", "due")} == {
        "new": 1,
        "changed": 2,
        "all": 298,
        "due": 0,
    }
    truth = harvested.truth_of(D7)
    assert len(truth) == CASES + len(changes.new_cases)
    assert fetched(ws, 1) == set(truth)  # every case again
    assert mismatches(exported(ws), truth) == {}

    second = ship(ws, server)
    results = dict(second)
    assert len(results) == len(second)  # nothing posted twice
    assert {k for k, r in second if r == "created"} == keys(changes.new_cases)
    assert {k for k, r in second if r == "updated"} == keys(changes.changed_documents)
    assert set(results) == keys(changes.refetch)
    # the server holds D+7's documents, each at the version it counted
    rows = server.rows()
    assert set(rows) == set(truth)
    assert {k for k, (_, version) in rows.items() if version == 2} == keys(
        changes.changed_documents
    )
    assert ship(ws, server) == []  # shipped: nothing left


def stale(
    export: dict[str, dict[str, Any]], truth: dict[str, dict[str, Any]], changed: set[str]
) -> set[str]:
    """Cases of ``changed`` whose export differs from the truth (none may be missing)."""
    wrong = mismatches(export, truth)
    assert all("missing" not in why for why in wrong.values()), wrong
    return set(wrong) & changed


def test_due_refresh_a_week_then_a_month_later(harvested: Harvested, tmp_path: Path) -> None:
    ws = harvested.copy(tmp_path / "ws")
    seen: dict[str, dict[str, Any]] = {}
    for generation, (since, day) in enumerate(((D, D7), (D7, D30)), start=1):
        step = court_changes(cases=CASES, seed=SEED, before=since, after=day, court_id=COURT)
        overall = court_changes(cases=CASES, seed=SEED, before=D, after=day, court_id=COURT)
        counts = refresh(harvested, ws, day, "due")
        truth = harvested.truth_of(day)
        export = exported(ws)
        got = fetched(ws, generation)
        wrong = mismatches(export, truth)
        # every re-fetched case, every new one and every case whose list row changed since the
        # last refresh equals the day's truth
        must_match = got | keys(step.new_cases) | keys(step.changed_list_rows)
        assert {k: why for k, why in wrong.items() if k in must_match} == {}
        assert keys(step.new_cases) <= got
        left = stale(export, truth, keys(overall.changed_documents))
        assert set(wrong) == left  # nothing differs that did not change
        seen[day.isoformat()] = {
            "fetched": len(got),
            "why": {k: counts.get(k, 0) for k in ("new", "changed", "due")},
            "new": len(step.new_cases),
            "changed since D": len(overall.changed_documents),
            "stale": sorted(k.split(":", 1)[1] for k in left),
        }
    # seed 1, 300 cases (deterministic). A week later: 13 fetched (the new case, the 2 whose
    # list row changed, 10 due), none of the 7 changed cases left stale (the banding archived
    # on 2024-06-24 is a step of a pending appeal: back-off at most STEP_DAYS 7). A month
    # later, on the same workspace: 21 fetched (4 new, 8 whose list row changed since D+7, 9
    # due), none of the 11 cases changed since D left stale (the kasasi notice dated on
    # 2024-07-02 is a post-verdict step of a closed case still in its back-off).
    assert seen == {
        D7.isoformat(): {
            "fetched": 13,
            "why": {"new": 1, "changed": 2, "due": 10},
            "new": 1,
            "changed since D": 7,
            "stale": [],
        },
        D30.isoformat(): {
            "fetched": 21,
            "why": {"new": 4, "changed": 8, "due": 9},
            "new": 4,
            "changed since D": 11,
            "stale": [],
        },
    }


def test_kill_9_three_times_during_a_due_refresh_a_month_later(
    harvested: Harvested, server: IngestServer, tmp_path: Path
) -> None:
    ws = harvested.copy(tmp_path / "ws")
    assert len(ship(ws, server)) == CASES
    changes: DayChanges = court_changes(
        cases=CASES, seed=SEED, before=D, after=D30, court_id=COURT
    )
    slow = {**pinned(D30), "DOWNLOAD_DELAY": "0.05", "CONCURRENT_REQUESTS_PER_DOMAIN": "2"}
    truth = harvested.truth_of(D30)
    with running_replica(
        cases=CASES, seed=SEED, court_id=COURT, as_of=D30, port=harvested.port
    ) as rep:
        ok_before = kill_a_due_refresh(
            rep.url, COURT, ws, thresholds=(3, 8, 13), settings=slow, logs=tmp_path
        )
        resumed = crawl(rep.url, COURT, ws, settings=pinned(D30))
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        assert "resuming generation 1" in resumed.stderr
    assert state_query(ws, "SELECT generation, finished_at IS NOT NULL FROM generations") == [
        (0, 1),
        (1, 1),
    ]
    refreshed = fetched(ws, 1)
    export = exported(ws)
    assert {k: why for k, why in mismatches(export, truth).items() if k in refreshed} == {}
    assert keys(changes.new_cases) <= refreshed
    # what was done before a kill was not fetched again
    after_rows = dict(
        state_query(ws, "SELECT id, succeeded_at FROM requests WHERE generation = 1")
    )
    assert all(after_rows[rid] == at for rid, at in ok_before.items())
    statuses = dict(state_query(ws, "SELECT status, count(*) FROM requests GROUP BY 1"))
    assert set(statuses) == {"ok"}, statuses

    second = ship(ws, server)
    assert len(dict(second)) == len(second)  # nothing posted twice
    changed_and_fetched = keys(changes.changed_documents) & refreshed
    assert {k for k, r in second if r == "created"} == keys(changes.new_cases)
    assert {k for k, r in second if r == "updated"} == changed_and_fetched
    assert ship(ws, server) == []
    # seed 1, 300 cases: 22 cases refreshed, all 11 changed since D among them
    assert (len(refreshed), len(changed_and_fetched)) == (22, 11)
    assert len(ok_before) >= 13
