"""harvest.shipping.cli through ``python ship.py``: every documented exit status is what happens
(start-up failures included, never a traceback), the token never leaves in any text, success is
only the contract's answer, and ``--compact-log``."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.support.ingest import (
    FAST,
    TOKEN,
    build_workspace,
    log_lines,
    run_ship,
    ship_env,
)
from tests.support.paths import PY, REPO, SHIP
from tests.support.waiting import lock_holder, wait_until


@contextlib.contextmanager
def http_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


class LoginPage(BaseHTTPRequestHandler):
    """A default virtual host / login page: 200 text/html to anything."""

    posts = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).posts += 1
        page = b"<!doctype html><html><body><h1>Sign in</h1><form></form></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *args: Any) -> None:
        pass


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr
    assert "Traceback" not in result.stdout


def test_an_html_200_is_not_shipped_and_the_next_run_ships_everything(
    tmp_path: Path, server: Any
) -> None:
    ws = build_workspace(tmp_path / "ws", 4)
    LoginPage.posts = 0
    with http_server(LoginPage) as login:
        result = run_ship(ws, "--endpoint", login, *FAST)
    assert result.returncode == 78, result.stderr
    no_traceback(result)
    assert LoginPage.posts == 1  # one request, then the endpoint is retired
    assert "answered 200 but not the ingest API's answer: the body is not JSON (text/html" in (
        result.stderr
    )
    assert "no usable ingest endpoint left" in result.stderr
    assert "stopped early: shipped 0 (created 0, updated 0)" in result.stdout
    assert [(x["outcome"], x["final"], x["status"]) for x in log_lines(ws)] == [
        ("retry", False, 200),
        ("aborted", True, 200),
    ]
    again = run_ship(ws, "--endpoint", server.url, *FAST)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("shipped 4 (created 4, updated 0), unchanged 0")


def test_a_redirect_whose_location_carries_the_token_leaks_it_nowhere(tmp_path: Path) -> None:
    class Leaky(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            token = self.headers["Authorization"].split()[1]
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:1/login?access_token={token}")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    ws = build_workspace(tmp_path / "ws", 2)
    with http_server(Leaky) as leaky:
        result = run_ship(ws, "--endpoint", leaky, *FAST, "-v")
    assert result.returncode == 78
    no_traceback(result)
    assert "answered 302 (redirect to http://127.0.0.1:1/login?access_token=<token>)" in (
        result.stderr
    )
    assert result.stderr.count("<token>") >= 2  # the endpoint retired, and the stop message
    for text in (result.stderr, result.stdout, (ws / "ship-log.jsonl").read_text()):
        assert TOKEN not in text
    assert "<token>" in (ws / "ship-log.jsonl").read_text()


@pytest.mark.parametrize(
    ("endpoint", "message"),
    [
        ("http://127.0.0.1:99999/", "is not a valid URL (Port out of range 0-65535)"),
        ("http://[::1", "is not a valid URL (Invalid IPv6 URL)"),
        ("http://127.0.0.1:x/", "is not a valid URL"),
        ("http://ingest.example.org", "--allow-plain-http"),
    ],
)
def test_malformed_or_unsafe_endpoints_exit_78_without_a_traceback(
    tmp_path: Path, endpoint: str, message: str
) -> None:
    ws = build_workspace(tmp_path / "ws", 1)
    for args, env in (
        (["--endpoint", endpoint], ship_env()),
        ([], ship_env(INGEST_URL=endpoint)),
    ):
        result = run_ship(ws, *args, env=env)
        assert result.returncode == 78, result.stderr
        no_traceback(result)
        assert message in result.stderr
    assert not (ws / "ship-log.jsonl").exists()


def test_plain_http_off_this_machine_with_the_opt_in_is_accepted(tmp_path: Path) -> None:
    ws = build_workspace(tmp_path / "ws", 2)
    # a dry run validates the endpoint and sends nothing (no address but 127.0.0.1 is touched)
    args = ["--endpoint", "http://ingest.example.org", "--dry-run"]
    refused = run_ship(ws, *args)
    assert refused.returncode == 78
    assert "plain http to a host that is not this machine" in refused.stderr
    allowed = run_ship(ws, *args, "--allow-plain-http")
    assert allowed.returncode == 0, allowed.stderr
    assert "would send 2 (new 2, changed 0)" in allowed.stdout


@contextlib.contextmanager
def tmpfs(mount: Path, size: str) -> Iterator[Path]:
    """A small tmpfs at ``mount`` (needs root); the test is skipped where it cannot be had."""
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr!r}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Path]:
    with tmpfs(tmp_path / "tmpfs", "1m") as mount:
        yield mount


def fill(directory: Path) -> None:
    fd = os.open(directory / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0" * 4096)
    finally:
        os.close(fd)
    assert os.statvfs(directory).f_bavail == 0


@pytest.mark.parametrize("lock_existed", [False, True])
def test_a_full_disk_at_start_is_exit_74_with_a_message(
    small_tmpfs: Path, lock_existed: bool
) -> None:
    ws = build_workspace(small_tmpfs / "ws", 3)
    if lock_existed:
        (ws / "ship-log.lock").touch()
    fill(small_tmpfs)
    result = run_ship(ws, "--endpoint", "http://127.0.0.1:9", *FAST)
    assert result.returncode == 74, result.stderr
    no_traceback(result)
    assert f"cannot write lock file '{ws / 'ship-log.lock'}': No space left on device" in (
        result.stderr
    )
    assert "free space or fix permissions, then run again" in result.stderr


def test_a_full_disk_mid_run_is_exit_74_and_the_next_run_finishes(
    tmp_path: Path, server: Any
) -> None:
    with tmpfs(tmp_path / "tmpfs", "8m") as mount:
        ws = build_workspace(mount / "ws", 150)
        (ws / "ship-log.lock").write_text("{}" * 100)
        fill(mount)
        page = os.statvfs(mount).f_frsize
        (mount / "filler").unlink()
        free = os.statvfs(mount).f_bavail * page
        with (mount / "filler").open("wb") as f:  # room for the store's -shm and ~50 lines
            f.write(b"\0" * (free - 12 * page))
        result = run_ship(ws, "--endpoint", server.url, *FAST)
        assert result.returncode == 74, result.stderr
        no_traceback(result)
        assert f"cannot write ship-log '{ws / 'ship-log.jsonl'}': " in result.stderr
        assert "No space left on device" in result.stderr or "disk full?" in result.stderr
        assert "nothing after this was sent" in result.stderr
        assert "stopped early" in result.stdout
        text = (ws / "ship-log.jsonl").read_bytes()
        assert 0 < text.count(b"\n") < 150
        (mount / "filler").unlink()
        rest = run_ship(ws, "--endpoint", server.url, *FAST)
        assert rest.returncode == 0, rest.stderr
        if not text.endswith(b"\n"):  # a short write left a torn line: cut at start
            assert "ended in a torn line: cut" in rest.stderr
        assert len(server.rows()) == 150
        assert server.stats()["results"]["created"] == 150


def test_compact_log_keeps_the_skip_set_and_the_next_run_posts_nothing(
    tmp_path: Path, server_factory: Any
) -> None:
    server = server_factory("--fault-500", "0.3", "--seed", "3")
    ws = build_workspace(tmp_path / "ws", 40)
    first = run_ship(ws, "--endpoint", server.url, *FAST, "--max-attempts", "20")
    assert first.returncode == 0, first.stderr
    build_workspace(ws, 5, start=0, version=1)  # 5 changed: the log holds two finals for them
    second = run_ship(ws, "--endpoint", server.url, *FAST, "--max-attempts", "20", "--limit", "3")
    assert second.returncode == 0, second.stderr
    log = ws / "ship-log.jsonl"
    lines_before = len(log_lines(ws))
    assert lines_before > 43  # retries and two finals for 3 keys
    dry_before = run_ship(ws, "--dry-run", env=ship_env(token=None))
    assert "would send 2 (new 0, changed 2), skip 38" in dry_before.stdout
    compacted = run_ship(ws, "--compact-log", env=ship_env(token=None))
    assert compacted.returncode == 0, compacted.stderr
    assert f"compacted {log}: {lines_before} lines" in compacted.stdout
    assert "-> 40 lines" in compacted.stdout
    assert len(log_lines(ws)) == 40
    assert {x["outcome"] for x in log_lines(ws)} == {"ok"}
    dry_after = run_ship(ws, "--dry-run", env=ship_env(token=None))
    assert dry_after.stdout == dry_before.stdout  # the same skip set
    posts = server.stats()["posts"]
    rest = run_ship(ws, "--endpoint", server.url, *FAST, "--max-attempts", "20")
    assert rest.returncode == 0, rest.stderr
    assert "shipped 2 (created 0, updated 2)" in rest.stdout
    assert "skipped 38" in rest.stdout
    assert server.stats()["results"].get("created", 0) == 40  # nothing created twice
    assert server.stats()["posts"] - posts >= 2


def test_compact_log_waits_for_no_one_it_refuses_while_a_run_holds_the_lock(
    tmp_path: Path, server_factory: Any
) -> None:
    server = server_factory("--fault-slow", "1", "--slow-seconds", "2")
    ws = build_workspace(tmp_path / "ws", 3)
    running = subprocess.Popen(
        [*SHIP, "--workspace", str(ws), "--endpoint", server.url, *FAST],
        cwd=REPO,
        env=ship_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until(
            lambda: lock_holder(ws / "ship-log.lock").get("pid") == running.pid,
            timeout=30,
            what="ship.py holds the lock",
            proc=running,
        )
        result = run_ship(ws, "--compact-log", env=ship_env(token=None))
        assert result.returncode == 75
        assert f"another ship.py (pid {running.pid}) is shipping this workspace" in result.stderr
    finally:
        running.kill()
        running.wait()


def test_the_console_script_runs_the_same_command(tmp_path: Path) -> None:
    ws = build_workspace(tmp_path / "ws", 2)
    code = (
        "import sys\n"
        "from harvest.shipping.cli import cli\n"
        f"sys.argv = ['harvest-ship', '--workspace', {str(ws)!r}, '--dry-run']\n"
        "cli()\n"
    )
    result = subprocess.run(
        [PY, "-c", code], cwd=REPO, env=ship_env(token=None), capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "would send 2 (new 2, changed 0)" in result.stdout
    pyproject = (REPO / "pyproject.toml").read_text()
    assert 'harvest-ship = "harvest.shipping.cli:cli"' in pyproject
