"""The spider issue's acceptance runs: whole crawls of the replica compared with its ground truth.

Each test runs what a user runs, as subprocesses: the replica on 127.0.0.1, ``scrapy crawl sipp``
into a fresh workspace, ``scrapy requeue``; then compares the workspace's complete case documents
with the replica's ``--truth`` export field by field.
"""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import (
    crawl,
    exported,
    mismatches,
    scrapy_command,
    state_query,
    truth_by_key,
)

COURT = "pn-replika"

pytestmark = pytest.mark.slow


def case_type(source_id: str) -> str:
    return source_id.split("/")[1]


def test_300_cases_of_every_type_equal_the_ground_truth(tmp_path: Path) -> None:
    with running_replica(cases=300, seed=11, court_id=COURT) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        result = crawl(replica.url, COURT, tmp_path / "ws")
    assert result.returncode == 0, result.stderr[-3000:]
    # every case type of the issue is in this court
    types = collections.Counter(case_type(doc["source_id"]) for doc in truth.values())
    assert {"Pid.B", "Pid.Sus-Anak", "Pdt.G", "Pdt.P", "Pdt.G.S", "Pid.C"} <= set(types)

    got = exported(tmp_path / "ws")
    assert mismatches(got, truth) == {}
    assert len(got) == 300
    # and byte for byte, as a user would check with cmp(1)
    out = tmp_path / "export.jsonl"
    export = scrapy_command(
        "export", tmp_path / "ws", "--complete-only", "--no-hash", "-o", str(out)
    )
    assert export.returncode == 0, export.stderr[-2000:]
    assert out.read_bytes() == (tmp_path / "truth.jsonl").read_bytes()
    # every request ended ok: nothing failed, nothing left waiting, nothing attributed twice
    statuses = dict(
        state_query(tmp_path / "ws", "SELECT status, COUNT(*) FROM requests GROUP BY 1")
    )
    assert set(statuses) == {"ok"}, statuses
    assert "wrong case" not in result.stderr


def test_faults_are_recorded_then_requeue_and_resume_complete_every_case(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    # few retries so that some requests really fail under 15% faulty responses
    faulty_settings = {"RETRY_TIMES": "1", "DOWNLOAD_TIMEOUT": "2"}
    with running_replica(cases=120, seed=12, court_id=COURT, faults=0.15) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        first = crawl(replica.url, COURT, workspace, settings=faulty_settings)
        # finished with failed requests left: exit status 3 (README, "Exit status")
        assert first.returncode == 3, first.stderr[-3000:]
        got = exported(workspace)
        errors = state_query(
            workspace,
            "SELECT key, kind, group_key, last_error FROM requests WHERE status = 'error'",
        )
        assert errors, "15% faults with one retry must leave some failed requests"
        assert all(reason for *_, reason in errors), "every error row carries its reason"
        assert not state_query(workspace, "SELECT key FROM requests WHERE status = 'inflight'")
        failed_groups = {group for _, kind, group, _ in errors if kind in ("case", "tab")}
        list_failed = any(kind == "list" for _, kind, _, _ in errors)
        wrong = mismatches(got, truth)
        for key, why in wrong.items():
            group = key.removeprefix(f"sipp.{COURT}:")
            # a case that is not (yet) equal to the truth has its own failing request recorded,
            # or was never reached because a list page failed
            assert f"{COURT}|{group}" in failed_groups or (
                why == "missing from the harvest" and list_failed
            ), (key, why)

        # the court is healthy again (same data, same address: stored tokens stay valid)
        replica.faults_off()
        requeue = scrapy_command("requeue", workspace)
        assert requeue.returncode == 0, requeue.stderr[-2000:]
        assert f"{len(errors)}" in requeue.stdout + requeue.stderr
        second = crawl(replica.url, COURT, workspace)
    assert second.returncode == 0, second.stderr[-3000:]
    assert mismatches(exported(workspace), truth) == {}
    statuses = dict(state_query(workspace, "SELECT status, COUNT(*) FROM requests GROUP BY 1"))
    assert set(statuses) == {"ok"}, statuses


def test_a_pa_court_with_disamarkan_names_and_missing_labels_equals_the_truth(
    tmp_path: Path,
) -> None:
    # PA courts show "Error, Pihak Not Found!!!" as their real party labels, on full pages and
    # in tab fragments: that must not be mistaken for a cold session
    with running_replica(cases=60, seed=13, variant="pa", court_id="pa-replika") as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        result = crawl(replica.url, "pa-replika", tmp_path / "ws")
    assert result.returncode == 0, result.stderr[-3000:]
    assert any("Disamarkan" in str(doc) for doc in truth.values())
    assert mismatches(exported(tmp_path / "ws"), truth) == {}
    assert not state_query(tmp_path / "ws", "SELECT key FROM requests WHERE status = 'error'")


@pytest.mark.parametrize(
    ("spider_args", "message"),
    [
        ({"max_cases": "many"}, "-a max_cases='many' is not a whole number"),
        ({"since": "29/05/2024"}, "use YYYY-MM-DD"),
    ],
)
def test_bad_arguments_stop_the_crawl_before_any_request(
    tmp_path: Path, spider_args: dict[str, str], message: str
) -> None:
    # port 9 (discard) on loopback: nothing may be requested anyway
    result = crawl("http://127.0.0.1:9/", COURT, tmp_path / "ws", spider_args=spider_args)
    assert result.returncode == 1
    assert message in result.stderr
    assert "Crawled (" not in result.stderr
    assert not (tmp_path / "ws" / "state.sqlite").exists()
