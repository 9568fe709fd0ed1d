"""ship.py end to end: real subprocesses against the reference ingest API on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.support.ingest import (
    FAST,
    TOKEN,
    build_workspace,
    documents,
    log_lines,
    run_ship,
    ship_env,
)
from tests.support.net import refused_port
from tests.support.paths import PY, REPO, SHIP
from tests.support.waiting import lock_holder, wait_until


def final_lines(log: Path) -> int:
    """How many documents have their final ship-log line (the answer or the give-up)."""
    try:
        return log.read_bytes().count(b'"final":true')
    except FileNotFoundError:
        return 0


def test_kill_three_times_mid_run_then_every_key_exactly_once(
    tmp_path: Path, server_factory: Any
) -> None:
    ws = build_workspace(tmp_path / "ws", 1000)
    server = server_factory(
        "--fault-500", "0.1", "--fault-503", "0.1", "--fault-drop", "0.05",
        "--retry-after", "0", "--seed", "5",
    )  # fmt: skip
    # 25% of answers faulty: with the default 6 attempts a document fails all of them with
    # p = 0.25**6, ~0.1 of the ~500 the last run sends (exit 1, a legitimate outcome but not
    # what this test is about); 12 attempts make it ~3e-5
    args = ["--endpoint", server.url, *FAST, "--breaker", "100", "--max-attempts", "12", "-q",
            "--concurrency", "4"]  # fmt: skip
    log = ws / "ship-log.jsonl"
    for round_, threshold in enumerate((150, 400, 650)):
        proc = subprocess.Popen(
            [*SHIP, "--workspace", str(ws), *args],
            cwd=REPO,
            env=ship_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(
            lambda: final_lines(log) >= threshold,  # noqa: B023 - called within the iteration
            timeout=120,
            what=f"{threshold} documents answered before kill {round_ + 1}",
            proc=proc,
        )
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if round_ == 1:
            # re-harvest between runs: 40 cases changed, the server must end with the new content
            build_workspace(ws, 40, start=300, version=1)
    final = run_ship(ws, *args)
    assert final.returncode == 0, final.stderr
    docs = documents(ws)
    rows = server.rows()
    assert len(docs) == 1000
    assert {k: h for k, (h, _) in rows.items()} == {k: d["content_hash"] for k, d in docs.items()}
    created = Counter(k for k, r in server.log_results() if r == "created")
    assert set(created.values()) == {1}  # no key was ever created twice
    assert len(created) == 1000
    assert max(v for _, v in rows.values()) <= 2  # at most one real update (the 40 changed)
    # every key holds its latest version (the store's), and the document of that version
    with sqlite3.connect(server.db) as conn:
        held = dict(conn.execute("SELECT dedupe_key, source_version FROM items"))
    assert held == {k: d["version"] for k, d in docs.items()}
    assert server.stats()["results"].get("stale", 0) == 0  # nothing older came in last
    stats = server.stats()
    assert stats["faults"].get("drop", 0) > 0  # the run really went through dropped answers
    assert stats["faults"].get("500", 0) > 0
    assert stats["faults"].get("503", 0) > 0

    posts = stats["posts"]
    again = run_ship(ws, *args)
    assert again.returncode == 0, again.stderr
    assert "skipped 1000" in again.stdout
    assert server.stats()["posts"] == posts  # nothing was posted


def test_changed_cases_ship_as_updated_and_unchanged_ones_are_not_posted(
    tmp_path: Path, server: Any
) -> None:
    ws = build_workspace(tmp_path / "ws", 30)
    first = run_ship(ws, "--endpoint", server.url, *FAST)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("shipped 30 (created 30, updated 0), unchanged 0")
    build_workspace(ws, 5, start=10, version=2)  # re-harvested: 5 cases changed
    posts = server.stats()["posts"]
    second = run_ship(ws, "--endpoint", server.url, *FAST)
    assert second.returncode == 0, second.stderr
    assert second.stdout.startswith("shipped 5 (created 0, updated 5), unchanged 0")
    assert "skipped 25" in second.stdout
    assert server.stats()["posts"] == posts + 5
    docs = documents(ws)
    assert {k: h for k, (h, _) in server.rows().items()} == {
        k: d["content_hash"] for k, d in docs.items()
    }
    updated = [line for line in log_lines(ws) if line["result"] == "updated"]
    assert sorted(line["key"] for line in updated) == sorted(
        f"sipp.pa-testkota:{i}/Pdt.G/2024/PA Tst" for i in range(10, 15)
    )


def test_dry_run_sends_nothing_and_writes_nothing(tmp_path: Path, server: Any) -> None:
    ws = build_workspace(tmp_path / "ws", 20, incomplete={3})
    shipped = run_ship(ws, "--endpoint", server.url, "--limit", "8", *FAST)
    assert shipped.returncode == 0, shipped.stderr
    build_workspace(ws, 2, start=0, version=1)  # two shipped cases changed since
    log_before = (ws / "ship-log.jsonl").read_bytes()
    requests_before = server.stats()["requests"]
    out = tmp_path / "payloads.jsonl"
    dry = run_ship(
        ws, "--endpoint", server.url, "--dry-run", "--out", str(out), env=ship_env(token=None)
    )
    assert dry.returncode == 0, dry.stderr
    assert "would send 13 (new 11, changed 2), skip 6" in dry.stdout
    assert server.stats()["requests"] == requests_before  # zero requests
    assert (ws / "ship-log.jsonl").read_bytes() == log_before
    payloads = [json.loads(x) for x in out.read_text().splitlines()]
    docs = documents(ws)
    assert len(payloads) == 13
    assert all(p == docs[p["dedupe_key"]] for p in payloads)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    partial = run_ship(ws, "--dry-run", "--include-partial", env=ship_env(token=None))
    assert "would send 14 (new 12, changed 2)" in partial.stdout


def test_first_endpoint_down_the_fallback_is_used_and_remembered(
    tmp_path: Path, server: Any
) -> None:
    ws = build_workspace(tmp_path / "ws", 10)
    with refused_port() as port:
        dead = f"http://127.0.0.1:{port}"
        env = ship_env(INGEST_URL=f"{dead},{server.url}")
        first = run_ship(ws, *FAST, env=env)
        assert first.returncode == 0, first.stderr
        lines = log_lines(ws)
        assert (lines[0]["endpoint"], lines[0]["outcome"]) == (dead, "retry")
        assert "cannot connect" in lines[0]["error"]
        assert [line["endpoint"] for line in lines[1:]] == [server.url] * 10  # it stuck
        assert f"endpoint {dead} unreachable; trying {server.url}" in first.stderr
        build_workspace(ws, 3, version=1)
        second = run_ship(ws, *FAST, env=env)
    assert second.returncode == 0, second.stderr
    assert f"starting with {server.url}, the endpoint that worked last time" in second.stderr
    new_lines = log_lines(ws)[len(lines) :]
    assert [line["endpoint"] for line in new_lines] == [server.url] * 3  # the dead one untried


def test_401_stops_the_run_with_its_exit_code_and_names_the_variable(
    tmp_path: Path, server: Any
) -> None:
    ws = build_workspace(tmp_path / "ws", 5)
    wrong = "wrong-token-0123456789"
    result = run_ship(ws, "--endpoint", server.url, *FAST, env=ship_env(token=wrong))
    assert result.returncode == 77
    assert "set INGEST_TOKEN to a valid token" in result.stderr
    assert "stopped early" in result.stdout
    lines = log_lines(ws)
    assert [(x["outcome"], x["status"]) for x in lines] == [("auth-failed", 401)]
    assert server.rows() == {}
    for text in (result.stdout, result.stderr, (ws / "ship-log.jsonl").read_text()):
        assert wrong not in text


def test_the_token_is_never_logged_or_written(tmp_path: Path, server_factory: Any) -> None:
    server = server_factory("--fault-500", "0.3", "--seed", "2")
    ws = build_workspace(tmp_path / "ws", 20)
    result = run_ship(ws, "--endpoint", server.url, *FAST, "--verbose")
    assert result.returncode == 0, result.stderr
    assert "retrying" in result.stderr
    for path in ws.iterdir():
        assert TOKEN.encode() not in path.read_bytes(), path
    assert TOKEN not in result.stdout + result.stderr
    for name in ("ship-log.jsonl", "ship-log.lock"):
        assert stat.S_IMODE((ws / name).stat().st_mode) == 0o600


def test_a_torn_ship_log_line_is_cut_with_a_warning(tmp_path: Path, server: Any) -> None:
    ws = build_workspace(tmp_path / "ws", 6)
    assert run_ship(ws, "--endpoint", server.url, "--limit", "3", *FAST).returncode == 0
    log = ws / "ship-log.jsonl"
    good = log.read_bytes()
    torn = b'{"final":true,"key":"sipp.pa-testkota:5/Pdt.G/2024/PA Tst","content_hash":"sha2'
    log.write_bytes(good + torn)
    result = run_ship(ws, "--endpoint", server.url, *FAST)
    assert result.returncode == 0, result.stderr
    assert f"ended in a torn line: cut {len(torn)} bytes away" in result.stderr
    assert "shipped 3 (created 3, updated 0)" in result.stdout
    assert "skipped 3" in result.stdout
    assert log.read_bytes().startswith(good)
    assert len(log_lines(ws)) == 6  # every line parses


def test_two_ship_runs_at_once_the_second_refuses(tmp_path: Path, server_factory: Any) -> None:
    server = server_factory("--fault-slow", "1", "--slow-seconds", "2")
    ws = build_workspace(tmp_path / "ws", 5)
    first = subprocess.Popen(
        [*SHIP, "--workspace", str(ws), "--endpoint", server.url, *FAST],
        cwd=REPO,
        env=ship_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        lock = ws / "ship-log.lock"
        wait_until(
            lambda: lock_holder(lock).get("pid") == first.pid,
            timeout=30,
            what="the first ship.py holds the lock",
            proc=first,
        )
        second = run_ship(ws, "--endpoint", server.url, *FAST)
        assert second.returncode == 75
        assert f"another ship.py (pid {first.pid}) is shipping this workspace" in second.stderr
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()


def test_all_rejected_exit_1(tmp_path: Path, server_factory: Any) -> None:
    server = server_factory("--max-body", "100")
    ws = build_workspace(tmp_path / "ws", 3)
    result = run_ship(ws, "--endpoint", server.url, *FAST)
    assert result.returncode == 1
    assert "rejected 3" in result.stdout
    assert [(x["outcome"], x["status"]) for x in log_lines(ws)] == [("rejected", 413)] * 3
    assert "413 an item may be at most 100 bytes" in log_lines(ws)[0]["error"]


@pytest.mark.parametrize(
    ("args", "env", "code", "message"),
    [
        (["--endpoint", "http://127.0.0.1:9"], {"INGEST_TOKEN": None}, 78, "set INGEST_TOKEN"),
        ([], {}, 78, "give --endpoint URL"),
        (["--endpoint", "http://u:p@127.0.0.1:9"], {}, 78, "must not carry credentials"),
        (["--endpoint", "ftp://x"], {}, 78, "is not an http(s) URL"),
        (["--out", "x"], {}, 64, "--out only goes with --dry-run"),
        (["--max-attempts", "0", "--endpoint", "http://127.0.0.1:9"], {}, 78, "--max-attempts"),
        (["--bogus"], {}, 64, "unrecognized arguments"),
    ],
)
def test_configuration_errors(
    tmp_path: Path, args: list[str], env: dict[str, Any], code: int, message: str
) -> None:
    ws = build_workspace(tmp_path / "ws", 1)
    environment = ship_env(token=None if "INGEST_TOKEN" in env else TOKEN)
    result = run_ship(ws, *args, env=environment)
    assert result.returncode == code, result.stderr
    assert message in result.stderr
    assert not (ws / "ship-log.jsonl").exists()


def test_missing_workspace_is_a_configuration_error(tmp_path: Path) -> None:
    result = run_ship(tmp_path / "nowhere", "--endpoint", "http://127.0.0.1:9")
    assert result.returncode == 78
    assert "does not exist" in result.stderr


def test_workspace_from_the_environment_relative_to_scrapy_cfg(tmp_path: Path) -> None:
    (tmp_path / "scrapy.cfg").write_text("[settings]\ndefault = harvest.settings\n")
    build_workspace(tmp_path / "data" / "ws", 2)
    (tmp_path / "sub").mkdir()
    result = subprocess.run(
        [*SHIP, "--dry-run"],
        cwd=tmp_path / "sub",
        env={**ship_env(token=None), "HARVEST_WORKSPACE": "data/ws",
             "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert f"2 documents in {tmp_path / 'data' / 'ws'}" in result.stdout


def test_progress_lines_and_summary_without_a_terminal(tmp_path: Path, server: Any) -> None:
    ws = build_workspace(tmp_path / "ws", 12)
    result = run_ship(ws, "--endpoint", server.url, *FAST, "--progress-interval", "0.001")
    assert result.returncode == 0, result.stderr
    progress = [x for x in result.stderr.splitlines() if x.startswith("progress: ")]
    assert progress
    assert "/12 (" in progress[-1]
    assert "/s ETA " in progress[-1]
    assert result.stdout.startswith("shipped 12 (created 12, updated 0), unchanged 0, ")
    assert "rejected 0, failed 0, skipped 0" in result.stdout


def test_sigterm_stops_cleanly_and_the_next_run_finishes(
    tmp_path: Path, server_factory: Any
) -> None:
    server = server_factory("--fault-slow", "1", "--slow-seconds", "0.4")
    ws = build_workspace(tmp_path / "ws", 6)
    proc = subprocess.Popen(
        [*SHIP, "--workspace", str(ws), "--endpoint", server.url, *FAST],
        cwd=REPO,
        env=ship_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # the second POST is in flight (each answer takes 0.4 s)
    wait_until(
        lambda: server.stats()["posts"] >= 2,
        timeout=60,
        what="ship.py's second POST reached the server",
        proc=proc,
    )
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert "stopped early" in out
    assert log_lines(ws)[-1]["outcome"] == "aborted"
    fast = server_factory(db=server.db)
    server.stop()
    rest = run_ship(ws, "--endpoint", fast.url, *FAST)
    assert rest.returncode == 0, rest.stderr
    assert len(fast.rows()) == 6
    assert os.path.exists(ws / "ship-log.jsonl")


def test_posts_never_follow_redirects(tmp_path: Path, server: Any) -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    class Redirect(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(308)
            self.send_header("Location", f"{server.url}/items")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    thread = Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        ws = build_workspace(tmp_path / "ws", 2)
        moved = f"http://127.0.0.1:{httpd.server_address[1]}"
        result = run_ship(ws, "--endpoint", moved, *FAST)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert result.returncode == 78
    assert "answered 308 (redirect to" in result.stderr
    assert "POSTs are never redirected" in result.stderr
    assert server.stats()["requests"] == 0  # the redirect target never saw the token or body


def test_ship_imports_nothing_from_scrapy(tmp_path: Path) -> None:
    ws = build_workspace(tmp_path / "ws", 2)
    code = (
        "import sys, ship\n"
        f"status = ship.main(['--workspace', {str(ws)!r}, '--dry-run', '-q'])\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('scrapy', 'twisted'))\n"
        "print(status, loaded)\n"
    )
    result = subprocess.run(
        [PY, "-c", code], cwd=REPO, env=ship_env(), capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "0 []"


def test_help_lists_the_exit_codes() -> None:
    result = subprocess.run(
        [*SHIP, "--help"], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "0 ok, 1 some_failed, 64 usage, 74 ioerr, 75 tempfail, 77 noperm, 78 config" in text


def test_a_late_request_of_a_killed_run_never_overwrites_newer_data(
    tmp_path: Path, server_factory: Any
) -> None:
    release = tmp_path / "release"
    server = server_factory("--hold-first", "1", "--hold-release", str(release))
    ws = build_workspace(tmp_path / "ws", 3)
    old = documents(ws)
    key = min(old)  # the first key in store order: the first POST
    killed = subprocess.Popen(
        [*SHIP, "--workspace", str(ws), "--endpoint", server.url, *FAST, "--timeout", "60"],
        cwd=REPO,
        env=ship_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_until(
        lambda: server.stats()["posts"] >= 1, timeout=60, what="the POST is held", proc=killed
    )
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    assert server.rows() == {}  # the held request has not been applied
    stale_copy = tmp_path / "ws-before"
    shutil.copytree(ws, stale_copy)  # the old data, for a second workspace below
    (stale_copy / "ship-log.jsonl").unlink(missing_ok=True)
    build_workspace(ws, 3, version=1)  # re-harvested: every case changed
    new = documents(ws)
    assert new[key]["version"] > old[key]["version"]
    result = run_ship(ws, "--endpoint", server.url, *FAST)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("shipped 3 (created 3, updated 0)")
    release.touch()  # the old request goes on, after the newer version was stored
    wait_until(
        lambda: "stale" in [r for _, r in server.log_results()],
        timeout=30,
        what="the held request was processed",
    )
    assert server.get(key).json()["document"] == new[key]
    assert {k: h for k, (h, _) in server.rows().items()} == {
        k: d["content_hash"] for k, d in new.items()
    }
    results = server.log_results()
    assert sorted(results) == sorted([*[(k, "created") for k in new], (key, "stale")])
    assert results[-1] == (key, "stale")  # applied last, yet not applied
    # ship.py itself meets an older version (another workspace holding the old data): the
    # answer is `stale`, a final outcome, exit 0, and the server keeps the newer data
    older = run_ship(stale_copy, "--endpoint", server.url, *FAST)
    assert older.returncode == 0, older.stderr
    assert older.stdout.startswith(
        "shipped 0 (created 0, updated 0), unchanged 0, rejected 0, failed 0, skipped 0, stale 3;"
    )
    assert {(x["outcome"], x["result"], x["final"]) for x in log_lines(stale_copy)} == {
        ("stale", "stale", True)
    }
    assert {k: h for k, (h, _) in server.rows().items()} == {
        k: d["content_hash"] for k, d in new.items()
    }
    again = run_ship(stale_copy, "--endpoint", server.url, *FAST)
    assert "skipped 3" in again.stdout  # stale is decided: not sent again


def test_group_commit_a_kill_loses_no_answer_and_a_lost_tail_comes_back_unchanged(
    tmp_path: Path, server_factory: Any
) -> None:
    server = server_factory("--fault-slow", "0.02", "--slow-seconds", "0.2", "--seed", "1")
    ws = build_workspace(tmp_path / "ws", 400)
    log = ws / "ship-log.jsonl"
    proc = subprocess.Popen(
        [*SHIP, "--workspace", str(ws), "--endpoint", server.url, *FAST],
        cwd=REPO,
        env=ship_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_until(lambda: final_lines(log) >= 150, timeout=120, what="150 answers", proc=proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    time.sleep(1.0)  # a slow request (0.2 s) in flight at the kill still commits
    logged = {x["key"] for x in log_lines(ws) if x["final"] and x["outcome"] == "ok"}
    on_server = set(server.rows())
    assert logged <= on_server
    # kill -9 loses no line that was written: at most the answers in flight at the kill, whose
    # documents the server may hold without a line; they come back `unchanged`
    missing = on_server - logged
    assert len(missing) <= 4  # --concurrency 4
    # a power loss would take the unsynced tail: drop the last 50 answers from the log
    lines = log.read_bytes().splitlines(keepends=True)
    finals = [i for i, x in enumerate(lines) if b'"final":true' in x]
    cut = finals[-50]
    lost = {json.loads(x)["key"] for x in lines[cut:] if b'"final":true' in x}
    log.write_bytes(b"".join(lines[:cut]))
    rest = run_ship(ws, "--endpoint", server.url, *FAST)
    assert rest.returncode == 0, rest.stderr
    unchanged = {x["key"] for x in log_lines(ws)[cut:] if x["outcome"] == "skipped-duplicate"}
    assert unchanged == (missing | lost)  # exactly those, answered unchanged
    assert f"unchanged {len(missing | lost)}, " in rest.stdout
    assert f"created {400 - len(on_server)}, updated 0" in rest.stdout
    created = Counter(k for k, r in server.log_results() if r == "created")
    assert set(created.values()) == {1}
    assert len(created) == 400
