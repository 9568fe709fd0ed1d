"""End to end: a full crawl of the replica, then ``scrapy export --complete-only`` == ground truth.

Runs what a user runs, as subprocesses: the replica (``python -m reference.sipp_site``) on
127.0.0.1 with a free port, ``scrapy crawl sipp`` into a fresh workspace, ``scrapy export``.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from harvest.canonical import document_hash
from pipelines.store import ItemStore, ItemStoreError

REPO = Path(__file__).resolve().parents[2]
SCRAPY = str(Path(sys.executable).with_name("scrapy"))
FAST = [
    "-s",
    "DOWNLOAD_DELAY=0",
    "-s",
    "AUTOTHROTTLE_ENABLED=False",
    "-s",
    "CONCURRENT_REQUESTS_PER_DOMAIN=16",
    "-s",
    "CLOSESPIDER_TIMEOUT=240",  # a stuck crawl ends and fails the comparison, not the suite
]


@contextmanager
def replica(*args: str) -> Iterator[str]:
    """Serve the replica on a free 127.0.0.1 port; yield its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "reference.sipp_site", "--port", "0", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = ""
        for line in proc.stdout:
            if line.startswith("listening on "):
                url = line.split()[-1]
                break
        assert url.startswith("http://127.0.0.1:"), "the replica did not start"
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()


def first_difference(got: Any, want: Any, path: str = "") -> str | None:
    """The key path of the first difference between two JSON values, or ``None``."""
    if isinstance(got, dict) and isinstance(want, dict):
        for key in sorted(set(got) | set(want)):
            if key not in got or key not in want:
                return f"{path}.{key} (missing in {'export' if key not in got else 'truth'})"
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
        return f"{path}: export {got!r} != truth {want!r}"
    return None


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variant", "court_id", "cases", "seed"),
    [
        ("pn", "pn-replika", 50, 11),
        ("pa", "pa-replika", 30, 12),
    ],
)
def test_full_crawl_then_export_complete_only_equals_the_ground_truth(
    tmp_path: Path, variant: str, court_id: str, cases: int, seed: int
) -> None:
    model = ["--variant", variant, "--cases", str(cases), "--seed", str(seed)]
    model += ["--court-id", court_id]
    truth_file = tmp_path / "truth.jsonl"
    subprocess.run(
        [sys.executable, "-m", "reference.sipp_site", *model, "--truth", str(truth_file)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=120,
    )
    workspace = tmp_path / "ws"
    with replica(*model) as base_url:
        args = ["-a", f"base_url={base_url}", "-a", f"court_id={court_id}"]
        crawl = subprocess.run(
            [SCRAPY, "crawl", "sipp", *args, "-s", f"HARVEST_WORKSPACE={workspace}", *FAST],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    assert crawl.returncode == 0, crawl.stderr[-3000:]
    assert "harvest/items/dropped" not in crawl.stderr, crawl.stderr[-3000:]

    exported_file = tmp_path / "export.jsonl"
    ws_setting = f"HARVEST_WORKSPACE={workspace}"
    export = subprocess.run(
        [SCRAPY, "export", "--complete-only", "--out", str(exported_file), "-s", ws_setting],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert export.returncode == 0, export.stderr

    truth = read_jsonl(truth_file)
    exported = read_jsonl(exported_file)
    assert len(truth) == cases
    exported_keys = [d["dedupe_key"] for d in exported]
    truth_keys = [d["dedupe_key"] for d in truth]
    assert exported_keys == truth_keys, (
        f"not exported: {sorted(set(truth_keys) - set(exported_keys))}; "
        f"not in the truth: {sorted(set(exported_keys) - set(truth_keys))}"
    )
    for got, want in zip(exported, truth, strict=True):
        # The hash ship.py sends is the hash of exactly the truth's content.
        assert got.pop("content_hash") == document_hash(want), want["dedupe_key"]
        difference = first_difference(got, want)
        assert difference is None, f"{want['dedupe_key']}: first difference at {difference}"


def complete_cases(items_db: Path) -> int:
    if not items_db.exists():
        return 0
    try:
        with ItemStore.open(items_db, readonly=True) as store:
            return store.count_documents(complete_only=True)
    except ItemStoreError:
        return 0  # not created yet


@pytest.mark.slow
def test_a_crawl_killed_mid_way_and_resumed_exports_the_truth_without_duplicates(
    tmp_path: Path,
) -> None:
    cases = 60
    model = ["--cases", str(cases), "--seed", "21", "--court-id", "pn-replika"]
    truth_file = tmp_path / "truth.jsonl"
    subprocess.run(
        [sys.executable, "-m", "reference.sipp_site", *model, "--truth", str(truth_file)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=120,
    )
    workspace = tmp_path / "ws"
    items_db = workspace / "items.sqlite"
    with replica(*model) as base_url:
        args = ["-a", f"base_url={base_url}", "-a", "court_id=pn-replika"]
        command = [SCRAPY, "crawl", "sipp", *args, "-s", f"HARVEST_WORKSPACE={workspace}", *FAST]
        first = subprocess.Popen(
            command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            deadline = time.monotonic() + 240
            while complete_cases(items_db) < cases // 3 and first.poll() is None:
                assert time.monotonic() < deadline, "the first crawl made no progress"
                time.sleep(0.05)
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=30)
        assert first.returncode == -signal.SIGKILL, "the crawl ended before it could be killed"
        parts_before = sqlite_count(items_db, "SELECT count(*) FROM parts")

        second = subprocess.run(
            command, cwd=REPO, capture_output=True, text=True, timeout=600, check=False
        )
    assert second.returncode == 0, second.stderr[-3000:]

    export = subprocess.run(
        [SCRAPY, "export", "--complete-only", "--no-hash", "-s", f"HARVEST_WORKSPACE={workspace}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert export.returncode == 0, export.stderr
    exported = [json.loads(line) for line in export.stdout.splitlines()]
    truth = read_jsonl(truth_file)
    exported_keys = [d["dedupe_key"] for d in exported]
    truth_keys = [d["dedupe_key"] for d in truth]
    assert exported_keys == truth_keys, (
        f"not exported: {sorted(set(truth_keys) - set(exported_keys))}; "
        f"not in the truth: {sorted(set(exported_keys) - set(truth_keys))}"
    )
    for got, want in zip(exported, truth, strict=True):
        difference = first_difference(got, want)
        assert difference is None, f"{want['dedupe_key']}: first difference at {difference}"
    # One row per part: the case part plus one per available tab, nothing twice.
    expected_parts = sum(1 + sum(1 for t in d["case"]["tabs"] if t["available"]) for d in truth)
    assert 0 < parts_before < expected_parts  # killed mid-way
    assert sqlite_count(items_db, "SELECT count(*) FROM parts") == expected_parts
    assert sqlite_count(items_db, "SELECT count(*) FROM cases") == cases


def sqlite_count(db: Path, sql: str) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()
