"""Upgrades that lose nothing and need no hand step (issue 24).

* Parts of an older item format are rebuilt from the page archive when the next crawl starts
  (no request), and only what the archive lacks is fetched again: the export equals the truth,
  every part is of today's format, and the crawl's ``url_log`` names exactly the pages the
  archive did not have.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from harvest.sipp.pailit import MENU_SLUG, SUB_SLUG_PREFIX
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import (
    crawl,
    crawl_command,
    exported,
    mismatches,
    state_query,
    truth_by_key,
)
from tests.support.paths import REPO
from tests.support.previous_release import previous_release
from tests.support.waiting import wait_until

COURT = "pn-replika"
FORMAT = 2  # harvest.base.canonical.ITEM_SCHEMA_VERSION, spelled out: the test pins it


def _sql(path: Path, sql: str) -> list[tuple[object, ...]]:
    con = sqlite3.connect(path)
    try:
        rows = con.execute(sql).fetchall()
        con.commit()
        return rows
    finally:
        con.close()


def test_parts_of_an_older_format_are_rebuilt_from_the_archive_without_a_request(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=16, seed=24, court_id=COURT) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        first = crawl(replica.url, COURT, ws)
        assert first.returncode == 0, first.stderr[-3000:]
        assert mismatches(exported(ws), truth) == {}

        # an older harvest's item store: every part of format 1, and data of another shape
        items = ws / "items.sqlite"
        n_parts = _sql(items, "SELECT count(*) FROM parts")[0][0]
        _sql(
            items,
            "UPDATE parts SET schema_version = 1, "
            "data_json = json_set(data_json, '$.old_shape', 1) WHERE part = 'case'",
        )
        _sql(items, "UPDATE parts SET schema_version = 1 WHERE part <> 'case'")
        assert mismatches(exported(ws), truth) != {}  # as stored, the export would be wrong
        # ... and an archive that lacks a few of their pages
        index = ws / "archive" / "index.sqlite"
        lacking = [
            str(r[0])
            for kind, n in (("case", 2), ("tab", 1))
            for r in _sql(
                index, f"SELECT key FROM records WHERE kind = '{kind}' ORDER BY key LIMIT {n}"
            )
        ]
        _sql(index, "DELETE FROM records WHERE key IN ('" + "', '".join(lacking) + "')")

        second = crawl(replica.url, COURT, ws)
        assert second.returncode == 0, second.stderr[-3000:]
        assert (
            f"court {COURT}: {n_parts} parts were of an older item format: "
            f"{n_parts - 3} rebuilt from the archive (no request), 3 to be fetched again"
        ) in second.stderr
        assert mismatches(exported(ws), truth) == {}
        assert _sql(items, "SELECT DISTINCT schema_version FROM parts") == [(FORMAT,)]
        # the court was asked for exactly the pages the archive lacked (a case page is two
        # exchanges: show_* redirects)
        ((run,),) = state_query(ws, "SELECT max(id) FROM runs")
        fetched = state_query(
            ws,
            "SELECT DISTINCT r.key FROM url_log AS u JOIN requests AS r "
            "ON r.id = u.request_id WHERE u.run_id = ? ORDER BY r.key",
            (run,),
        )
        assert [k for (k,) in fetched] == sorted(lacking)
        notes = state_query(
            ws,
            "SELECT detail FROM events WHERE event = 'released' AND run_id = ? ORDER BY id",
            (run,),
        )
        assert len(notes) == 3
        assert all(
            "is of an older item format and its page is not in the archive: fetched again"
            in str(n)
            for (n,) in notes
        )


# --- a harvest started by the previous release, killed, resumed by this code -----------------


def _ok_cases(workspace: Path) -> int:
    try:
        return int(
            state_query(
                workspace, "SELECT count(*) FROM requests WHERE kind = 'case' AND status = 'ok'"
            )[0][0]
        )
    except sqlite3.Error:
        return 0


def test_a_harvest_of_the_previous_release_killed_and_resumed_loses_nothing(
    tmp_path: Path,
) -> None:
    old = previous_release(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(old)}
    where = subprocess.run(
        [sys.executable, "-c", "import extensions.scheduler as m; print(m.__file__)"],
        cwd=old,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.strip() == str(old / "extensions" / "scheduler.py")  # the old code runs
    ws = tmp_path / "ws"
    with running_replica(cases=40, seed=25, court_id=COURT) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        cmd = crawl_command(replica.url, COURT, ws, settings={"CONCURRENT_REQUESTS": "4"})
        log = tmp_path / "old.log"
        with log.open("ab") as out:
            proc = subprocess.Popen(
                cmd,
                cwd=old,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its archive writer too: killed as a machine dies
            )
        try:
            wait_until(lambda: _ok_cases(ws) >= 12, timeout=120, what="12 cases ok", proc=proc)
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        archived = {
            str(k) for (k,) in _sql(ws / "archive" / "index.sqlite", "SELECT key FROM records")
        }
        assert _ok_cases(ws) < 40  # killed mid-harvest
        # pages archived whose requests were not done yet (in flight when killed)
        waiting = {
            str(k) for (k,) in state_query(ws, "SELECT key FROM requests WHERE status <> 'ok'")
        } & archived

        resumed = crawl(replica.url, COURT, ws)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        assert mismatches(exported(ws), truth) == {}
        ((run,),) = state_query(ws, "SELECT max(id) FROM runs")
        asked = {
            str(k)
            for (k,) in state_query(
                ws,
                "SELECT DISTINCT r.key FROM url_log AS u JOIN requests AS r "
                "ON r.id = u.request_id WHERE u.run_id = ?",
                (run,),
            )
        }
        assert asked  # the resumed crawl did fetch what the old one had not
        assert sorted(asked & archived) == []  # and no page the archive already held
        if waiting:
            assert f"{len(waiting)} requests answered from the archive (no request)" in (
                resumed.stderr
            )


def test_requests_that_cannot_be_read_are_rebuilt_from_their_rows(tmp_path: Path) -> None:
    """Every request left pending by a killed crawl is made unreadable (a pickle today's code
    cannot load, or another request format): the resumed crawl rebuilds each from its row
    (kind, key, url) instead of failing it, and the harvest equals the truth."""
    ws = tmp_path / "ws"
    with running_replica(cases=30, seed=26, court_id=COURT) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        cmd = crawl_command(replica.url, COURT, ws, settings={"CONCURRENT_REQUESTS": "4"})
        with (tmp_path / "first.log").open("ab") as out:
            proc = subprocess.Popen(
                cmd, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        try:
            wait_until(lambda: _ok_cases(ws) >= 8, timeout=120, what="8 cases ok", proc=proc)
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        state = ws / "state.sqlite"
        _sql(
            state, "UPDATE requests SET request = X'80049500' WHERE status <> 'ok' AND id % 2 = 0"
        )
        _sql(state, "UPDATE requests SET format = 99 WHERE status <> 'ok' AND id % 2 = 1")
        broken = _sql(
            state,
            "SELECT kind, count(*) FROM requests WHERE status <> 'ok' GROUP BY kind ORDER BY kind",
        )
        assert {kind for kind, _ in broken} >= {"case", "list"}  # both kinds left to rebuild
        n_broken = sum(int(str(n)) for _, n in broken)

        resumed = crawl(replica.url, COURT, ws)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        assert f"'harvest/scheduler/rebuilt': {n_broken}," in resumed.stderr
        assert "'harvest/scheduler/unserializable'" not in resumed.stderr
        assert _sql(state, "SELECT count(*) FROM requests WHERE status = 'error'") == [(0,)]
        assert mismatches(exported(ws), truth) == {}


def test_bankruptcy_menus_the_previous_release_did_not_follow_are_followed_on_resume(
    tmp_path: Path,
) -> None:
    """The previous release fetched the bankruptcy follow-up menu of a declared bankruptcy but
    none of the ``sub_*`` pages it links; the next crawl with today's code asks for exactly those
    15 pages (the menu is read back from the archive, not fetched again) and the export equals
    the truth."""
    old = previous_release(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(old)}
    ws = tmp_path / "ws"
    with running_replica(cases=16, seed=24, court_id=COURT) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        (bankrupt,) = [d["source_id"] for d in truth.values() if MENU_SLUG in d["tabs"]]
        cmd = crawl_command(replica.url, COURT, ws)
        first = subprocess.run(cmd, cwd=old, env=env, capture_output=True, text=True, check=False)
        assert first.returncode == 0, first.stderr[-3000:]
        assert state_query(
            ws, "SELECT count(*) FROM requests WHERE key LIKE ?", ("%|pailit-%",)
        ) == [(0,)]
        resumed = crawl(replica.url, COURT, ws)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert mismatches(exported(ws), truth) == {}
    ((run,),) = state_query(ws, "SELECT max(id) FROM runs")
    asked = sorted(
        str(k)
        for (k,) in state_query(
            ws,
            "SELECT DISTINCT r.key FROM url_log AS u JOIN requests AS r "
            "ON r.id = u.request_id WHERE u.run_id = ?",
            (run,),
        )
    )
    assert len(asked) == 15
    assert {k.rsplit("|", 2)[1] for k in asked} == {bankrupt}
    assert all(k.rsplit("|", 1)[1].startswith(SUB_SLUG_PREFIX) for k in asked)
    assert "15 bankruptcy sub pages of menus an older harvest did not follow" in resumed.stderr
