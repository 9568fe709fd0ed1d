"""The archive issue's acceptance runs: replica crawls archived, then rebuilt by ``scrapy reparse``
without the court; a patched parser re-shipped; ``kill -9`` during crawls and a reparse.

Each test runs what a user runs, as subprocesses (the crawl, ``scrapy reparse``, ``scrapy
export``, ``scrapy archive``, ``ship.py``); the patched-parser run calls the same reparse function
in-process so that the patch is in effect.
"""

from __future__ import annotations

import collections
import json
import os
import random
import re
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

import harvest.parts
from harvest.archive.reparse import Failure, reparse
from harvest.archive.store import ArchiveIndex, read_entry
from harvest.base.identity import dedupe_key
from harvest.sipp import ParseError
from harvest.sipp.tabs import TAB_PARSERS
from pipelines.store import ItemStore
from reference.sipp_site.testing import running_replica
from tests.support.archive import read_all, warcio
from tests.support.harvest_run import (
    crawl,
    crawl_command,
    exported,
    mismatches,
    run,
    scrapy_command,
    start,
    state_query,
    truth_by_key,
)
from tests.support.ingest import FAST, log_lines, run_ship, start_server
from tests.support.paths import SCRAPY

COURT = "pn-replika"

pytestmark = pytest.mark.slow


def remove_items(workspace: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{workspace / 'items.sqlite'}{suffix}").unlink(missing_ok=True)


def reparse_command(workspace: Path, *args: str) -> list[str]:
    return [*SCRAPY, "reparse", *args, "-s", f"HARVEST_WORKSPACE={workspace}"]


def indexed(workspace: Path) -> dict[str, Any]:
    """Every indexed entry, each read back from its file with its digest checked."""
    root = workspace / "archive"
    with ArchiveIndex.open(root / "index.sqlite", readonly=True) as index:
        return read_all(root, index)


def expected_parts(truth: dict[str, dict[str, Any]]) -> int:
    return sum(1 + sum(1 for t in d["case"]["tabs"] if t["available"]) for d in truth.values())


def test_reparse_without_the_court_gives_the_crawls_export(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=80, seed=31, court_id=COURT) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        result = crawl(replica.url, COURT, ws)
    assert result.returncode == 0, result.stderr[-3000:]
    # the replica is stopped from here on: any request would fail
    assert mismatches(exported(ws), truth) == {}
    first = scrapy_command("export", ws, "--complete-only", "-o", str(tmp_path / "crawl.jsonl"))
    assert first.returncode == 0, first.stderr

    entries = indexed(ws)
    kinds = collections.Counter(e.kind for e in entries.values())
    assert kinds["case"] == 80
    assert kinds["tab"] == expected_parts(truth) - 80
    assert kinds["list"] == 4  # 80 cases, 20 a page
    # the redirect chain's final response, under its own URL: show_detil/<token> -> 302 -> here
    assert {e.url.rsplit("/", 1)[-1] for e in entries.values() if e.kind == "case"} == {
        "detil_perkara"
    }
    assert {e.status for e in entries.values()} == {200}
    requests_done = state_query(ws, "SELECT COUNT(*) FROM requests WHERE status = 'ok'")[0][0]
    assert len(entries) - kinds["warmup"] == requests_done
    files = sorted((ws / "archive" / COURT).iterdir())
    assert files
    for path in files:
        checked = warcio("check", path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert warcio("index", path).returncode == 0

    status = scrapy_command("archive", ws, "--json")
    assert status.returncode == 0, status.stderr
    court = json.loads(status.stdout)["courts"][COURT]
    assert court["records"] == len(entries)
    assert court["files"] == len(files)
    assert court["bytes"] == sum(p.stat().st_size for p in files)
    assert court["oldest"] <= court["newest"]

    url_log = state_query(ws, "SELECT COUNT(*) FROM url_log")
    remove_items(ws)
    rebuilt = run(reparse_command(ws))
    assert rebuilt.returncode == 0, rebuilt.stderr[-3000:]
    parts = expected_parts(truth)
    assert rebuilt.stdout.startswith(f"reparsed {parts} pages in ")
    assert rebuilt.stdout.rstrip().endswith(
        f"{parts} created, 0 unchanged, 0 updated, 0 failed"
    ), rebuilt.stdout
    second = scrapy_command("export", ws, "--complete-only", "-o", str(tmp_path / "again.jsonl"))
    assert second.returncode == 0, second.stderr
    assert (tmp_path / "again.jsonl").read_bytes() == (tmp_path / "crawl.jsonl").read_bytes()
    assert state_query(ws, "SELECT COUNT(*) FROM url_log") == url_log  # no request sent

    again = run(reparse_command(ws, "--court", COURT, "--kind", "case"))
    assert again.returncode == 0, again.stderr[-2000:]
    assert "80 pages" in again.stdout
    assert "0 created, 80 unchanged, 0 updated, 0 failed" in again.stdout


def test_a_patched_parser_updates_exactly_its_parts_and_ship_sends_those_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=40, seed=32, court_id=COURT) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        result = crawl(replica.url, COURT, ws)
    assert result.returncode == 0, result.stderr[-3000:]
    server = start_server(tmp_path / "ingest.sqlite")
    try:
        shipped = run_ship(ws, "--endpoint", server.url, *FAST)
        assert shipped.returncode == 0, shipped.stderr
        assert shipped.stdout.startswith("shipped 40 (created 40, updated 0), unchanged 0")

        # a tab that some cases have and others not
        tabs = collections.Counter(e.tab for e in indexed(ws).values() if e.kind == "tab")
        slug = min((s for s, n in tabs.items() if 0 < n < 40), key=lambda s: (tabs[s], s))
        affected = sorted(
            dedupe_key(COURT, e.key.split("|")[2])
            for e in indexed(ws).values()
            if e.kind == "tab" and e.tab == slug
        )
        original = TAB_PARSERS[slug]

        def fixed(html: str) -> Any:
            data = original(html)
            return {"fixed": True, "rows": data} if isinstance(data, list) else {**data, "fix": 1}

        monkeypatch.setitem(TAB_PARSERS, slug, fixed)
        dry = reparse(ws, dry_run=True)
        assert (dry.created, dry.updated, len(dry.failed)) == (0, len(affected), 0)
        report = reparse(ws)
        assert report.failed == []
        assert report.created == 0
        assert report.updated == len(affected)
        assert report.unchanged == expected_parts(truth) - len(affected)
        again = reparse(ws, tab=slug)
        assert (again.pages, again.unchanged, again.updated) == (len(affected),) * 2 + (0,)

        posts = server.stats()["posts"]
        reshipped = run_ship(ws, "--endpoint", server.url, *FAST)
        assert reshipped.returncode == 0, reshipped.stderr
        n = len(affected)
        assert reshipped.stdout.startswith(f"shipped {n} (created 0, updated {n}), unchanged 0")
        assert server.stats()["posts"] == posts + n
        updated = sorted(line["key"] for line in log_lines(ws) if line["result"] == "updated")
        assert updated == affected
    finally:
        server.stop()

    # a parser that now fails on a page: listed with its reason, its stored part stays
    pages = {
        e.key: (e, read_entry(ws / "archive", e).body.decode("utf-8"))
        for e in indexed(ws).values()
        if e.tab == slug
    }
    victim_html = pages[min(pages)][1]
    victims = sorted(k for k, (_, html) in pages.items() if html == victim_html)

    real_parse_tab = harvest.parts.parse_tab

    def broken(page_slug: str, html: str) -> Any:
        # parse_tab itself keeps a tab parser's ParseError generically (with a warning), so
        # the failure is made where reparse calls it: a page nothing can read
        if html == victim_html:
            raise ParseError(f"tab {slug}: no table (a parser bug of this test)")
        return real_parse_tab(page_slug, html)

    monkeypatch.setattr(harvest.parts, "parse_tab", broken)
    number = victims[0].split("|")[2]
    with ItemStore.open(ws / "items.sqlite", readonly=True) as store:
        before = store.get_part(dedupe_key(COURT, number), f"tab:{slug}")
    broke = reparse(ws, tab=slug)
    assert broke.failed == [
        Failure(
            k,
            pages[k][0].url,
            f"parse failed: ParseError: tab {slug}: no table (a parser bug of this test)",
        )
        for k in victims
    ]
    assert (broke.unchanged, broke.updated, broke.created) == (len(pages) - len(victims), 0, 0)
    with ItemStore.open(ws / "items.sqlite", readonly=True) as store:
        after = store.get_part(dedupe_key(COURT, number), f"tab:{slug}")
    assert before is not None
    assert after is not None
    assert (after.part_hash, after.data, after.last_seen) == (
        before.part_hash,
        before.data,
        before.last_seen,
    )


def test_kill_9_during_crawls_and_a_reparse_loses_no_record_and_no_part(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    log = tmp_path / "crawl.log"
    rng = random.Random(1313)
    index_db = ws / "archive" / "index.sqlite"

    def archived() -> int:
        if not index_db.exists():
            return 0
        with sqlite3.connect(f"{index_db.as_uri()}?mode=ro", uri=True, timeout=30) as conn:
            try:
                return int(conn.execute("SELECT COUNT(*) FROM records").fetchone()[0])
            except sqlite3.OperationalError:
                return 0

    with running_replica(cases=150, seed=33, court_id=COURT) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        command = crawl_command(replica.url, COURT, ws)
        for _ in range(5):
            target = archived() + rng.randint(40, 160)
            proc = start(command, log)
            deadline = time.monotonic() + 120
            while archived() < target and proc.poll() is None:
                assert time.monotonic() < deadline, "the crawl made no progress"
                time.sleep(0.01)
            time.sleep(rng.uniform(0, 0.2))  # anywhere in a page's write, index or parse
            os.kill(proc.pid, signal.SIGKILL)
            assert proc.wait(timeout=30) == -signal.SIGKILL, "the crawl ended before the kill"
            indexed(ws)  # every indexed record reads back, digest checked
        final = crawl(replica.url, COURT, ws)
    assert final.returncode == 0, final.stderr[-3000:]
    assert mismatches(exported(ws), truth) == {}
    entries = indexed(ws)
    assert sum(1 for e in entries.values() if e.kind in ("case", "tab")) == expected_parts(truth)
    assert len(list((ws / "archive" / COURT).iterdir())) >= 6  # a new file per run
    # pages fetched again after a kill superseded their first copy: prune drops those (and any
    # torn tail), every file then passes warcio check, every key still reads back
    pruned = scrapy_command("archive", ws, "--prune", "--json")
    assert pruned.returncode == 0, pruned.stderr
    assert json.loads(pruned.stdout)["pruned"]["files_busy"] == []
    for path in (ws / "archive" / COURT).iterdir():
        checked = warcio("check", path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    assert {k: (e.digest, e.fetched_at) for k, e in indexed(ws).items()} == {
        k: (e.digest, e.fetched_at) for k, e in entries.items()
    }
    entries = indexed(ws)

    remove_items(ws)
    items_db = ws / "items.sqlite"

    def stored() -> int:
        if not items_db.exists():
            return 0
        with sqlite3.connect(f"{items_db.as_uri()}?mode=ro", uri=True, timeout=30) as conn:
            try:
                return int(conn.execute("SELECT COUNT(*) FROM parts").fetchone()[0])
            except sqlite3.OperationalError:
                return 0

    target = rng.randint(100, expected_parts(truth) - 300)
    proc = start(reparse_command(ws), log)
    deadline = time.monotonic() + 120
    while stored() < target and proc.poll() is None:
        assert time.monotonic() < deadline, "the reparse made no progress"
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL, "the reparse ended before the kill"
    assert stored() < expected_parts(truth)
    assert indexed(ws) == entries  # a reparse never touches the archive
    resumed = run(reparse_command(ws))
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert mismatches(exported(ws), truth) == {}


def test_error_pages_are_archived_and_reparse_lists_them_and_equals_the_crawl(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=40, seed=35, court_id=COURT, faults=0.2) as replica:
        result = crawl(replica.url, COURT, ws, settings={"RETRY_TIMES": "0"})
    # exit 3: the crawl finished with failed requests left (the faults, no retries)
    assert result.returncode == 3, result.stderr[-3000:]
    crawled = scrapy_command("export", ws, "-o", str(tmp_path / "crawl.jsonl"))
    assert crawled.returncode == 0, crawled.stderr
    root = ws / "archive"
    bad: dict[str, str] = {}
    with ArchiveIndex.open(root / "index.sqlite", readonly=True) as index:
        for entry in index.entries(kinds=["case", "tab"]):
            page = read_entry(root, entry)
            # the crawl's own verdict on the page first (a tab's 404 after its show_* redirect
            # is "session value lost"), then the status
            if page.context.get("page_error"):
                bad[entry.key] = (
                    f"the archived page is an error page ({page.context['page_error']})"
                )
            elif entry.status != 200:
                bad[entry.key] = f"the archived response is HTTP {entry.status}"
    errors = state_query(ws, "SELECT key FROM requests WHERE status = 'error'")
    # error pages and 5xx answers are archived, and each is a failed request of the crawl (the
    # other failed requests got no answer at all: dropped or timed out)
    assert bad, "20% faults without retries must leave error pages"
    assert set(bad) <= {key for (key,) in errors}

    remove_items(ws)
    rebuilt = run(reparse_command(ws))
    assert rebuilt.returncode == 1  # some pages failed
    failed = dict(
        line.removeprefix("FAILED ").split(" (", 1)
        for line in rebuilt.stderr.splitlines()
        if line.startswith("FAILED ")
    )
    assert sorted(failed) == sorted(bad)
    for key, why in bad.items():
        assert failed[key].endswith(f"): {why}"), (key, failed[key])
    again = scrapy_command("export", ws, "-o", str(tmp_path / "again.jsonl"))
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again.jsonl").read_bytes() == (tmp_path / "crawl.jsonl").read_bytes()


def test_session_warm_ups_are_archived_marked_as_such(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=20, seed=36, court_id=COURT) as replica:
        # a crawl stopped after its first part leaves the case's tabs pending; the next crawl
        # fetches them in a new process, where their session is cold: a warm-up first
        first = crawl(
            replica.url,
            COURT,
            ws,
            spider_args={"max_cases": "6"},
            settings={"CLOSESPIDER_ITEMCOUNT": "1"},
        )
        assert "closespider_itemcount" in first.stderr, first.stderr[-3000:]
        result = crawl(replica.url, COURT, ws, spider_args={"max_cases": "6"})
        root_url = replica.url
    assert result.returncode == 0, result.stderr[-3000:]
    warmups = re.search(r"'harvest/session/warmups': (\d+)", result.stderr)
    archived = re.search(r"'harvest/archive/warmups': (\d+)", result.stderr)
    assert warmups is not None
    assert archived is not None
    assert int(archived.group(1)) == int(warmups.group(1)) > 0
    entry = indexed(ws)[f"warmup|{COURT}|{root_url}"]
    page = read_entry(ws / "archive", entry)
    assert entry.kind == "warmup"
    assert page.context["warmup"] is True
    assert page.context["parse"] is None
    assert b"</html>" in page.body  # the court's full root page


def test_harvest_archive_false_keeps_no_pages(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=20, seed=34, court_id=COURT) as replica:
        result = crawl(
            replica.url,
            COURT,
            ws,
            spider_args={"max_cases": "3"},
            settings={"HARVEST_ARCHIVE": "False"},
        )
    assert result.returncode == 0, result.stderr[-3000:]
    assert len(exported(ws)) == 3
    assert not (ws / "archive").exists()
    status = scrapy_command("archive", ws)
    assert status.returncode == 1
    assert "no archive index" in status.stderr
    assert "HARVEST_ARCHIVE=True" in status.stderr


def test_the_writer_process_archives_as_the_writer_thread(tmp_path: Path) -> None:
    pages: dict[str, dict[str, int]] = {}  # key -> status (page bytes differ: per-render tokens)
    with running_replica(cases=20, seed=34, court_id=COURT) as replica:
        for writer in ("thread", "process"):
            ws = tmp_path / writer
            result = crawl(
                replica.url,
                COURT,
                ws,
                spider_args={"max_cases": "3"},
                settings={"HARVEST_ARCHIVE_WRITER": writer},
            )
            assert result.returncode == 0, result.stderr[-3000:]
            assert f"writer {writer})" in result.stderr
            assert len(exported(ws)) == 3
            pages[writer] = {k: e.status for k, e in indexed(ws).items()}  # digests checked
    assert pages["process"] == pages["thread"]
    assert sum(1 for k in pages["thread"] if k.startswith("case|")) == 3


def test_an_unknown_archive_writer_is_refused_naming_the_setting() -> None:
    from scrapy.settings import Settings

    from harvest.archive.middleware import archive_writer
    from harvest.base.settings_error import SettingsError

    assert archive_writer(Settings()) == "thread"
    assert archive_writer(Settings({"HARVEST_ARCHIVE_WRITER": "Process"})) == "process"
    with pytest.raises(SettingsError, match="HARVEST_ARCHIVE_WRITER='fork' is neither"):
        archive_writer(Settings({"HARVEST_ARCHIVE_WRITER": "fork"}))
