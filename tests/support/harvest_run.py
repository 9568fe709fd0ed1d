"""Run what a user runs (``scrapy crawl sipp``, ``scrapy status``, ...) as subprocesses, and
compare a workspace's harvest with the replica's ground truth."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harvest.base.canonical import document_hash
from tests.support.paths import REPO, SCRAPY

#: Scrapy settings for crawling the replica (``-s NAME=VALUE``): it is ours, so no politeness
#: delay and no AutoThrottle, 16 requests in flight; real courts keep the project's defaults.
UNTHROTTLED_SETTINGS = {
    "DOWNLOAD_DELAY": "0",
    "AUTOTHROTTLE_ENABLED": "False",
    "CONCURRENT_REQUESTS": "16",
    "CONCURRENT_REQUESTS_PER_DOMAIN": "16",
    "TELNETCONSOLE_ENABLED": "False",
}

#: Test settings: the replica is ours, so no politeness; short timeouts so hangs cost little.
FAST_SETTINGS = {**UNTHROTTLED_SETTINGS, "DOWNLOAD_TIMEOUT": "3", "LOG_LEVEL": "INFO"}


def settings_args(settings: dict[str, str]) -> list[str]:
    """``-s NAME=VALUE`` for each setting."""
    out: list[str] = []
    for name, value in settings.items():
        out += ["-s", f"{name}={value}"]
    return out


def scrapy_args(workspace: Path, settings: dict[str, str] | None = None) -> list[str]:
    return settings_args(
        {**FAST_SETTINGS, "HARVEST_WORKSPACE": str(workspace), **(settings or {})}
    )


def crawl_command(
    base_url: str,
    court_id: str,
    workspace: Path,
    *,
    spider_args: dict[str, str] | None = None,
    settings: dict[str, str] | None = None,
) -> list[str]:
    args = ["-a", f"base_url={base_url}", "-a", f"court_id={court_id}"]
    for name, value in (spider_args or {}).items():
        args += ["-a", f"{name}={value}"]
    return [*SCRAPY, "crawl", "sipp", *args, *scrapy_args(workspace, settings)]


def run(
    cmd: Sequence[str], *, timeout: float = 600, log: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` in the checkout to the end; its stderr is appended to ``log`` if given."""
    proc = subprocess.run(
        list(cmd), cwd=REPO, capture_output=True, text=True, timeout=timeout, check=False
    )
    if log is not None:
        with log.open("a") as f:
            f.write(f"$ {' '.join(cmd)}\n{proc.stderr}\n")
    return proc


#: Every process :func:`start` started, for :func:`kill_started_since` (tests/conftest.py).
STARTED: list[subprocess.Popen[bytes]] = []


def start(cmd: Sequence[str], log: Path) -> subprocess.Popen[bytes]:
    """Start ``cmd`` in the checkout, its output appended to ``log``. A process still running
    when its test ends (a failed assertion left it) is killed then: the next test on the worker
    does not inherit it."""
    with log.open("ab") as out:
        proc = subprocess.Popen(list(cmd), cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
    STARTED.append(proc)
    return proc


def kill_started_since(mark: int) -> list[subprocess.Popen[bytes]]:
    """Kill and reap the processes :func:`start` started after the first ``mark`` that still run;
    forget them all. Returns the ones killed."""
    killed = [proc for proc in STARTED[mark:] if proc.poll() is None]
    for proc in killed:
        proc.kill()
        proc.wait()
    del STARTED[mark:]
    return killed


def crawl(
    base_url: str,
    court_id: str,
    workspace: Path,
    *,
    spider_args: dict[str, str] | None = None,
    settings: dict[str, str] | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[str]:
    cmd = crawl_command(base_url, court_id, workspace, spider_args=spider_args, settings=settings)
    return run(cmd, timeout=timeout)


def scrapy_command(name: str, workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``scrapy <name> [args]`` against ``workspace`` (status, requeue, export, ...)."""
    return run([*SCRAPY, name, *args, "-s", f"HARVEST_WORKSPACE={workspace}"], timeout=120)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def truth_by_key(path: Path) -> dict[str, dict[str, Any]]:
    return {doc["dedupe_key"]: doc for doc in read_jsonl(path)}


def exported(workspace: Path, *args: str) -> dict[str, dict[str, Any]]:
    """``scrapy export --complete-only`` (plus ``args``) by key, each ``content_hash`` checked
    against the document's content and then removed (the truth has none)."""
    result = scrapy_command("export", workspace, "--complete-only", *args)
    assert result.returncode == 0, result.stderr[-2000:]
    docs = [json.loads(line) for line in result.stdout.splitlines()]
    for doc in docs:
        claimed = doc.pop("content_hash")
        assert claimed == document_hash(doc), f"{doc['dedupe_key']}: content_hash is not its own"
    return {doc["dedupe_key"]: doc for doc in docs}


def first_difference(got: Any, want: Any, path: str = "") -> str | None:
    """The key path of the first difference between two JSON values, or ``None``."""
    if isinstance(got, dict) and isinstance(want, dict):
        for key in sorted(set(got) | set(want)):
            if key not in got or key not in want:
                return f"{path}.{key} (missing in {'harvest' if key not in got else 'truth'})"
            found = first_difference(got[key], want[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(got, list) and isinstance(want, list):
        if len(got) != len(want):
            return f"{path} (length {len(got)} != {len(want)})"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            found = first_difference(g, w, f"{path}[{i}]")
            if found:
                return found
        return None
    if got != want or type(got) is not type(want):
        return f"{path}: harvest {got!r} != truth {want!r}"
    return None


def mismatches(got: dict[str, dict[str, Any]], want: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Per key, why the harvest differs from the truth (missing, extra, or first difference)."""
    out: dict[str, str] = {}
    for key in sorted(set(got) | set(want)):
        if key not in got:
            out[key] = "missing from the harvest"
        elif key not in want:
            out[key] = "not in the truth"
        else:
            diff = first_difference(got[key], want[key])
            if diff:
                out[key] = diff
    return out


def state_query(workspace: Path, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Read-only SQL against the workspace's ``state.sqlite`` (waits up to 30 s for a writer).

    Raises :class:`sqlite3.OperationalError` while there is no state yet.
    """
    path = workspace / "state.sqlite"
    if not path.exists():
        raise sqlite3.OperationalError(f"no state yet at {path}")
    con = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        return list(con.execute(sql, params))
    finally:
        con.close()
