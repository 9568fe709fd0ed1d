"""Deploying to scrapyd: build the egg as ``scrapyd-deploy`` does, run a crawl as a scrapyd job.

Everything runs on this machine: a scrapyd with its own directories in ``tmp_path``, answering on
a Unix socket there (no TCP port to pick), and the replica on 127.0.0.1 (port 0, its own pick).
The egg is built from a copy of the tracked files, so the work tree gets no build leftovers.
"""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import subprocess
import sys
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import exported, mismatches, state_query, truth_by_key
from tests.support.paths import REPO
from tests.support.waiting import wait_until

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent


class UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP over scrapyd's Unix socket."""

    def __init__(self, path: Path, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(str(self.path))


def call(
    sock: Path, endpoint: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    """One scrapyd API call (GET, or POST of ``body``); its JSON answer."""
    conn = UnixHTTPConnection(sock, timeout=60)
    try:
        conn.request("POST" if body is not None else "GET", f"/{endpoint}", body, headers or {})
        response = conn.getresponse()
        return json.loads(response.read())  # type: ignore[no-any-return]
    finally:
        conn.close()


def api(sock: Path, endpoint: str, data: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    if data is None:
        return call(sock, endpoint)
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    return call(sock, endpoint, urllib.parse.urlencode(data).encode(), form)


def answers(sock: Path) -> bool:
    try:
        return bool(api(sock, "daemonstatus.json")["status"] == "ok")
    except OSError:
        return False


@pytest.fixture(scope="module")
def egg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("src")
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, files):
        path = REPO / name.decode()
        if path.is_file():
            (src / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, src / name.decode())
    out = src / "harvest.egg"
    subprocess.run(
        [str(BIN / "scrapyd-deploy"), f"--build-egg={out}"],
        cwd=src,
        check=True,
        capture_output=True,
        timeout=300,
    )
    return out


@dataclass(frozen=True)
class Scrapyd:
    sock: Path  # its Unix socket (the HTTP API)
    home: Path


@pytest.fixture(scope="module")
def scrapyd(tmp_path_factory: pytest.TempPathFactory, egg: Path) -> Iterator[Scrapyd]:
    home = tmp_path_factory.mktemp("scrapyd")
    sock = home / "scrapyd.sock"
    (home / "scrapyd.conf").write_text(
        "[scrapyd]\n"
        f"http_port = 0\nunix_socket_path = {sock}\n"
        f"eggs_dir = {home}/eggs\nlogs_dir = {home}/logs\ndbs_dir = {home}/dbs\n"
        "items_dir =\njobs_dir =\npoll_interval = 0.5\nmax_proc = 2\n"
    )
    proc = subprocess.Popen(
        [str(BIN / "scrapyd"), f"--pidfile={home}/scrapyd.pid"],
        cwd=home,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until(lambda: answers(sock), timeout=60, what="scrapyd answers", proc=proc)
        added = call(
            sock,
            "addversion.json",
            _multipart({"project": "harvest", "version": "r1"}, egg),
            {"Content-Type": "multipart/form-data; boundary=EGGBOUNDARY"},
        )
        assert added["status"] == "ok", added
        yield Scrapyd(sock, home)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _multipart(fields: dict[str, str], egg: Path) -> bytes:
    parts = [
        f'--EGGBOUNDARY\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
        for k, v in fields.items()
    ]
    parts.append(
        b'--EGGBOUNDARY\r\nContent-Disposition: form-data; name="egg"; filename="harvest.egg"\r\n'
        b"Content-Type: application/octet-stream\r\n\r\n" + egg.read_bytes() + b"\r\n"
    )
    return b"".join(parts) + b"--EGGBOUNDARY--\r\n"


def wait_finished(sock: Path, job: str, timeout: float = 300) -> None:
    wait_until(
        lambda: any(
            j["id"] == job for j in api(sock, "listjobs.json?project=harvest")["finished"]
        ),
        timeout=timeout,
        what=f"scrapyd job {job} finishes",
    )


def test_egg_carries_the_settings_entry_point_and_the_spider(scrapyd: Scrapyd) -> None:
    assert api(scrapyd.sock, "listspiders.json?project=harvest")["spiders"] == ["sipp"]


def test_a_scrapyd_job_harvests_into_an_absolute_workspace(
    scrapyd: Scrapyd, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    with running_replica(cases=20, seed=5, court_id="pn-replika") as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        settings = {
            "HARVEST_WORKSPACE": str(workspace),
            "DOWNLOAD_DELAY": "0",
            "AUTOTHROTTLE_ENABLED": "False",
            "CONCURRENT_REQUESTS_PER_DOMAIN": "8",
        }
        form = [("project", "harvest"), ("spider", "sipp"), ("jobid", "job-pn-replika-1")]
        form += [("base_url", replica.url), ("court_id", "pn-replika")]
        form += [("setting", f"{k}={v}") for k, v in settings.items()]
        assert api(scrapyd.sock, "schedule.json", form)["status"] == "ok"
        wait_finished(scrapyd.sock, "job-pn-replika-1")
    assert mismatches(exported(workspace), truth) == {}
    runs = state_query(workspace, "SELECT job, close_reason FROM runs")
    assert runs == [("job-pn-replika-1", "finished")]


def test_a_relative_workspace_under_scrapyd_fails_with_the_fix(scrapyd: Scrapyd) -> None:
    form = [("project", "harvest"), ("spider", "sipp"), ("jobid", "job-relative")]
    form += [("base_url", "http://127.0.0.1:9/"), ("setting", "HARVEST_WORKSPACE=relative/ws")]
    assert api(scrapyd.sock, "schedule.json", form)["status"] == "ok"
    wait_finished(scrapyd.sock, "job-relative")
    log = scrapyd.home / "logs" / "harvest" / "sipp" / "job-relative.log"
    assert "HARVEST_WORKSPACE must be an absolute path" in log.read_text()
