"""A scrapyd on this machine for the deploy tests: its HTTP API over the Unix socket, the egg
built as ``scrapyd-deploy`` does from a copy of the tracked files, a host interpreter without
harvest, the upload of a version and the wait for a job (tests/e2e/test_scrapyd.py,
tests/e2e/test_nodes.py).
"""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import subprocess
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import scrapy

from tests.support.paths import REPO
from tests.support.waiting import wait_until

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


def copy_tracked(dest: Path) -> Path:
    """The tracked files of the checkout, copied to ``dest`` (what a deploy machine has)."""
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, files):
        path = REPO / name.decode()
        if path.is_file():
            (dest / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dest / name.decode())
    return dest


def build_egg(src: Path, out: Path) -> Path:
    subprocess.run(
        [str(BIN / "scrapyd-deploy"), f"--build-egg={out}"],
        cwd=src,
        check=True,
        capture_output=True,
        timeout=300,
    )
    return out


def make_host(home: Path, installed: Path | None = None) -> Path:
    """A scrapyd host's interpreter, built offline from this test environment: a venv whose only
    site directory is a view of ours minus the harvest install. ``installed``: a checkout whose
    packages are put into the host's site-packages too, as ``pip install .`` does."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(home / "venv")],
        check=True,
        timeout=120,
    )
    ours = Path(scrapy.__file__).parents[1]  # this environment's site-packages
    deps = home / "deps"
    deps.mkdir()
    for entry in ours.iterdir():
        if entry.name.startswith(("__editable__", "harvest-", "_harvest")):
            continue  # the project installed in the test environment: not on a host
        (deps / entry.name).symlink_to(entry)
    python = home / "venv" / "bin" / "python"
    site = site_packages(python)
    (site / "harvest-host-deps.pth").write_text(f"{deps}\n")
    if installed is not None:
        for package in ("harvest", "extensions", "pipelines"):
            shutil.copytree(installed / package, site / package)
    return python


def add_version(sock: Path, version: str, egg: Path) -> None:
    """``scrapyd-deploy``'s upload: the egg as a new version of project ``harvest``."""
    added = call(
        sock,
        "addversion.json",
        _multipart({"project": "harvest", "version": version}, egg),
        {"Content-Type": "multipart/form-data; boundary=EGGBOUNDARY"},
    )
    assert added["status"] == "ok", added


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


def site_packages(python: Path) -> Path:
    """The ``site-packages`` directory of the interpreter ``python`` (a host's venv)."""
    out = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return Path(out.strip())
