"""End to end: a full crawl of the replica, then ``scrapy export --complete-only`` == ground truth.

Runs what a user runs, as subprocesses: the replica (``python -m reference.sipp_site``) on
127.0.0.1 with a free port, ``scrapy crawl sipp`` into a fresh workspace, ``scrapy export``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from harvest.canonical import document_hash

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
        pytest.param(
            "pa",
            "pa-replika",
            30,
            12,
            marks=pytest.mark.xfail(
                reason="known bug outside pipelines/ (01:11 UTC): on the PA replica every "
                "putusan tab request ends on /putusan with 404, so those cases stay incomplete; "
                "strict: drop this mark when it passes",
                strict=True,
            ),
        ),
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
