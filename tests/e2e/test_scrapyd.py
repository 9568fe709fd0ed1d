"""Deploying to scrapyd: build the egg as ``scrapyd-deploy`` does, run a crawl as a scrapyd job.

Everything runs on 127.0.0.1: a scrapyd with its own directories in ``tmp_path``, the replica.
The egg is built from a copy of the tracked files, so the work tree gets no build leftovers.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import REPO, exported, mismatches, state_query, truth_by_key

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def api(base: str, endpoint: str, data: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    with urllib.request.urlopen(f"{base}/{endpoint}", data=body, timeout=10) as resp:
        return json.loads(resp.read())  # type: ignore[no-any-return]


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
    url: str
    home: Path


@pytest.fixture(scope="module")
def scrapyd(tmp_path_factory: pytest.TempPathFactory, egg: Path) -> Iterator[Scrapyd]:
    home = tmp_path_factory.mktemp("scrapyd")
    port = free_port()
    (home / "scrapyd.conf").write_text(
        "[scrapyd]\n"
        f"bind_address = 127.0.0.1\nhttp_port = {port}\n"
        f"eggs_dir = {home}/eggs\nlogs_dir = {home}/logs\ndbs_dir = {home}/dbs\n"
        "items_dir =\njobs_dir =\npoll_interval = 0.5\nmax_proc = 2\n"
    )
    proc = subprocess.Popen(
        [str(BIN / "scrapyd"), f"--pidfile={home}/scrapyd.pid"],
        cwd=home,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                api(base, "daemonstatus.json")
                break
            except OSError:
                assert time.monotonic() < deadline, "scrapyd did not start"
                time.sleep(0.2)
        with urllib.request.urlopen(
            urllib.request.Request(
                f"{base}/addversion.json",
                data=_multipart({"project": "harvest", "version": "r1"}, egg),
                headers={"Content-Type": "multipart/form-data; boundary=EGGBOUNDARY"},
            ),
            timeout=60,
        ) as resp:
            assert json.loads(resp.read())["status"] == "ok"
        yield Scrapyd(base, home)
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


def wait_finished(base: str, job: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        jobs = api(base, "listjobs.json?project=harvest")
        if any(j["id"] == job for j in jobs["finished"]):
            return
        time.sleep(0.5)
    raise AssertionError(f"scrapyd job {job} did not finish in {timeout} s")


def test_egg_carries_the_settings_entry_point_and_the_spider(scrapyd: Scrapyd) -> None:
    assert api(scrapyd.url, "listspiders.json?project=harvest")["spiders"] == ["sipp"]


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
        assert api(scrapyd.url, "schedule.json", form)["status"] == "ok"
        wait_finished(scrapyd.url, "job-pn-replika-1")
    assert mismatches(exported(workspace), truth) == {}
    runs = state_query(workspace, "SELECT job, close_reason FROM runs")
    assert runs == [("job-pn-replika-1", "finished")]


def test_a_relative_workspace_under_scrapyd_fails_with_the_fix(scrapyd: Scrapyd) -> None:
    form = [("project", "harvest"), ("spider", "sipp"), ("jobid", "job-relative")]
    form += [("base_url", "http://127.0.0.1:9/"), ("setting", "HARVEST_WORKSPACE=relative/ws")]
    assert api(scrapyd.url, "schedule.json", form)["status"] == "ok"
    wait_finished(scrapyd.url, "job-relative")
    log = scrapyd.home / "logs" / "harvest" / "sipp" / "job-relative.log"
    assert "HARVEST_WORKSPACE must be an absolute path" in log.read_text()
