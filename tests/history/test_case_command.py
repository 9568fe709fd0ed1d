"""``scrapy case`` on a case refreshed twice: both changes, and the two archived entries whose
bytes, read at the offsets it prints, are the pages that give those versions."""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

import pytest
from warcio.archiveiterator import ArchiveIterator

from harvest.archive.store import payload_digest
from harvest.parts import parts_of_page
from pipelines.store import ItemStore
from reference.sipp_site.court import TODAY
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl, scrapy_command

COURT = "pn-replika"
CASES = 60
SEED = 41


def hashes(ws: Path) -> dict[str, str]:
    with ItemStore.open(ws / "items.sqlite", readonly=True) as store:
        return {
            d["dedupe_key"]: d["content_hash"] for d in store.iter_documents(complete_only=False)
        }


def tabs_of(ws: Path, key: str) -> dict[str, Any]:
    with ItemStore.open(ws / "items.sqlite", readonly=True) as store:
        document = store.get_document(key)
    assert document is not None
    return dict(document)


def read_record(ws: Path, record: dict[str, Any]) -> tuple[bytes, dict[str, Any], str]:
    """The page body, context and URL of the entry at ``record``'s file and offset."""
    with (ws / "archive" / record["file"]).open("rb") as f:
        f.seek(record["offset"])
        data = f.read(record["length"])
    body, context, url = b"", {}, ""
    for warc in ArchiveIterator(io.BytesIO(data)):
        content = warc.content_stream().read()
        if warc.rec_type == "response":
            body, url = content, str(warc.rec_headers.get_header("WARC-Target-URI"))
        elif warc.rec_type == "metadata":
            context = json.loads(content)
    return body, context, url


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_scrapy_case_on_a_case_refreshed_twice_shows_both_changes_and_their_pages(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    days = [TODAY, TODAY + dt.timedelta(days=30), TODAY + dt.timedelta(days=60)]
    seen: list[dict[str, str]] = []
    for number, day in enumerate(days):
        with running_replica(
            cases=CASES, seed=SEED, court_id=COURT, extra_args=["--as-of", day.isoformat()]
        ) as replica:
            result = crawl(
                replica.url,
                COURT,
                ws,
                spider_args={"refresh": "all"} if number else None,
                settings={"HARVEST_REFRESH_TODAY": day.isoformat()},
            )
        assert result.returncode == 0, result.stderr[-3000:]
        seen.append(hashes(ws))
    twice = sorted(
        k
        for k in seen[0]
        if len({seen[0][k], seen[1].get(k), seen[2].get(k)}) == 3  # changed in both refreshes
    )
    assert twice, "no case changed in both refreshes"
    key = twice[0]
    number = key.split(":", 1)[1]

    shown = scrapy_command("case", ws, number, "--court", COURT, "--json")
    assert shown.returncode == 0, shown.stderr[-2000:]
    report = json.loads(shown.stdout)
    assert report["dedupe_key"] == key
    assert report["generations"] == [0, 1, 2]
    assert {f["generation"] for f in report["fetches"]} == {0, 1, 2}
    versions = report["versions"]
    assert [v["generation"] for v in versions] == [0, 1, 2]
    assert [v["content_hash"] for v in versions] == [seen[0][key], seen[1][key], seen[2][key]]
    assert versions[0]["changes"] == []
    final = tabs_of(ws, key)
    for version in versions[1:]:
        assert version["changes"], version
        assert version["changed_parts"]
        for part in version["changed_parts"]:
            record = version["records"][part]
            assert record is not None, part
            assert record["reproduces"] is True, (part, record)
            body, context, url = read_record(ws, record)
            assert payload_digest(body) == record["digest"]
            kind = "case" if part == "case" else "tab"
            [rebuilt] = parts_of_page(
                kind, COURT, context["parse"], body.decode("utf-8"), url, record["fetched_at"]
            )
            if version is versions[-1]:
                slug = part.removeprefix("tab:")
                assert rebuilt.data == (final["case"] if part == "case" else final["tabs"][slug])
    # the readable form names both versions' changes and the archive offsets
    text = scrapy_command("case", ws, number).stdout
    assert "3 version(s):" in text
    for version in versions[1:]:
        assert version["changes"][0] in text
        for record in version["records"].values():
            assert f"offset {record['offset']}" in text
