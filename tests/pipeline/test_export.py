"""``scrapy export``: the merged documents as canonical JSON Lines, run as a user runs it."""

from __future__ import annotations

import hashlib
import json
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pipelines.store import ItemStore
from tests.support.items import case_data
from tests.support.paths import REPO, SCRAPY


def scrapy_export(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SCRAPY, "export", "-s", f"HARVEST_WORKSPACE={workspace}", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def sha256_of(obj: object) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def document(court: str, number: str, case: Any, tabs: dict[str, Any], complete: bool):
    return {
        "dedupe_key": f"sipp.{court}:{number}",
        "source_type": f"sipp.{court}",
        "source_id": number,
        "schema_version": 2,
        "content_hash": sha256_of(
            {"schema_version": 2, "complete": complete, "case": case, "tabs": tabs}
        ),
        "complete": complete,
        "case": case,
        "tabs": tabs,
    }


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """A workspace with a complete, an incomplete and a case-less case in two courts."""
    workspace = tmp_path_factory.mktemp("export") / "ws"
    workspace.mkdir(mode=0o700)
    complete_case = case_data("7/Pdt.G/2024/PA Bdg", {"pihak": True, "diversi": False})
    waiting_case = case_data("12/Pid.B/2024/PN Jkt.Pst", {"pihak": True, "saksi": True})
    pihak = [{"nama": "Nyai Dédé Ratna", "peran": "Penggugat"}]
    with ItemStore.open(workspace / "items.sqlite") as store:
        store.upsert_part(
            court="pa-bandung", case_number="7/Pdt.G/2024/PA  Bdg", part="case", data=complete_case
        )
        store.upsert_part(
            court="pa-bandung", case_number="7/Pdt.G/2024/PA Bdg", part="tab:pihak", data=pihak
        )
        store.upsert_part(
            court="pn-jakartapusat",
            case_number="12/Pid.B/2024/PN Jkt.Pst",
            part="case",
            data=waiting_case,
        )
        store.upsert_part(
            court="pn-jakartapusat",
            case_number="3/Pid.B/2024/PN Jkt.Pst",
            part="tab:saksi",
            data=[],
        )
    expected = [
        document("pa-bandung", "7/Pdt.G/2024/PA Bdg", complete_case, {"pihak": pihak}, True),
        document("pn-jakartapusat", "12/Pid.B/2024/PN Jkt.Pst", waiting_case, {}, False),
        document("pn-jakartapusat", "3/Pid.B/2024/PN Jkt.Pst", None, {"saksi": []}, False),
    ]
    return workspace, expected


def parse_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def test_export_equals_the_merged_documents(filled: tuple[Path, list[dict[str, Any]]]) -> None:
    workspace, expected = filled
    result = scrapy_export(workspace)

    assert result.returncode == 0, result.stderr
    assert parse_lines(result.stdout) == expected
    with ItemStore.open(workspace / "items.sqlite", readonly=True) as store:
        from_store = list(store.iter_documents(complete_only=False))
    assert parse_lines(result.stdout) == from_store
    # canonical JSON: sorted keys, no spaces, UTF-8 as is; one line per case
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith('{"case":{"jenis_perkara":"Perceraian","nomor_perkara":"7/Pdt')
    assert "Dédé" in lines[0]
    assert "exported 3 case documents" in result.stderr


def test_export_filters_complete_only_and_by_court(
    filled: tuple[Path, list[dict[str, Any]]],
) -> None:
    workspace, expected = filled
    complete = scrapy_export(workspace, "--complete-only")
    by_court = scrapy_export(workspace, "--court", "pn-jakartapusat")
    both = scrapy_export(workspace, "--court", "pn-jakartapusat", "--complete-only")

    assert parse_lines(complete.stdout) == expected[:1]
    assert parse_lines(by_court.stdout) == expected[1:]
    assert both.returncode == 0
    assert both.stdout == ""


def test_export_no_hash_gives_the_ground_truth_form(
    filled: tuple[Path, list[dict[str, Any]]],
) -> None:
    workspace, expected = filled
    result = scrapy_export(workspace, "--complete-only", "--no-hash")

    truth_form = {k: v for k, v in expected[0].items() if k != "content_hash"}
    assert parse_lines(result.stdout) == [truth_form]


def test_export_to_a_file_is_private_and_byte_stable(
    filled: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    workspace, _ = filled
    out = tmp_path / "cases.jsonl"
    first = scrapy_export(workspace, "--out", str(out))
    first_bytes = out.read_bytes()
    second = scrapy_export(workspace, "-o", str(out))

    assert (first.returncode, second.returncode) == (0, 0)
    assert first.stdout == ""
    assert out.read_bytes() == first_bytes
    assert first_bytes.decode("utf-8") == scrapy_export(workspace).stdout
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cases.jsonl"]  # no temp file left


def test_export_of_a_missing_store_fails_clearly(tmp_path: Path) -> None:
    result = scrapy_export(tmp_path / "empty-ws")

    assert result.returncode == 1
    assert result.stdout == ""
    assert "nothing has been harvested" in result.stderr
    assert str(tmp_path / "empty-ws" / "items.sqlite") in result.stderr


def test_export_of_a_corrupt_store_fails_clearly_and_deletes_nothing(tmp_path: Path) -> None:
    (tmp_path / "items.sqlite").write_bytes(b"\x00garbage" * 512)
    result = scrapy_export(tmp_path)

    assert result.returncode == 1
    assert "not a readable SQLite database" in result.stderr
    assert "move it aside" in result.stderr
    assert (tmp_path / "items.sqlite").read_bytes() == b"\x00garbage" * 512


def test_export_rejects_a_bad_court_and_stray_arguments(tmp_path: Path) -> None:
    bad_court = scrapy_export(tmp_path, "--court", "pn x")
    stray = scrapy_export(tmp_path, "cases.jsonl")

    assert bad_court.returncode == 2
    assert "--court" in bad_court.stderr
    assert stray.returncode == 2
    assert "unexpected arguments" in stray.stderr
