"""The dedupe pipeline: stats per outcome, bad parts dropped loudly, workspace files, settings."""

from __future__ import annotations

import asyncio
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from harvest.base.items import CasePart
from pipelines.dedupe import DedupeConfig, DedupePipeline
from pipelines.store import ItemStoreError
from tests.support.item_backends import ItemBackend
from tests.support.items import case_data
from tests.support.paths import REPO

COURT = "pn-jakartapusat"
NUMBER = "123/Pid.B/2024/PN Jkt.Pst"
KEY = f"sipp.{COURT}:{NUMBER}"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return tmp_path / "ws" / "nested"


@pytest.fixture
def items(backend: ItemBackend, workspace: Path) -> ItemBackend:
    """The item store the pipeline writes: in ``workspace``, or in the PostgreSQL database."""
    return ItemBackend(backend.name, workspace, backend.database_url)


@pytest.fixture
def pipeline(items: ItemBackend) -> Iterator[DedupePipeline]:
    settings = {"HARVEST_WORKSPACE": str(items.workspace)}
    if items.database_url:
        settings["HARVEST_DATABASE_URL"] = items.database_url
    crawler = get_crawler(settings_dict=settings)
    pipe = DedupePipeline.from_crawler(crawler)
    pipe.open_spider()
    yield pipe
    pipe.close_spider()


def stats_of(pipe: DedupePipeline) -> dict[str, int]:
    return {
        k: v
        for k, v in pipe._stats.get_stats().items()
        if isinstance(k, str) and k.startswith("harvest/items/")
    }


def test_the_same_part_three_times_counts_created_once_and_unchanged_twice(
    pipeline: DedupePipeline, items: ItemBackend
) -> None:
    item = CasePart(
        court=COURT,
        nomor_perkara=NUMBER,
        part="case",
        data=case_data(NUMBER, {"pihak": True}),
        url="http://127.0.0.1/detil",
        fetched_at="2026-11-30T01:00:00+00:00",
    )
    returned = [pipeline.process_item(item) for _ in range(3)]

    assert returned == [item, item, item]
    assert stats_of(pipeline) == {"harvest/items/created": 1, "harvest/items/unchanged": 2}
    with items.open(readonly=True) as store:
        assert store.count_parts() == 1
        record = store.get_part(KEY, "case")
        assert record is not None
        assert record.url == "http://127.0.0.1/detil"


def test_changed_parts_count_as_updated_and_dicts_work_like_items(
    pipeline: DedupePipeline, items: ItemBackend
) -> None:
    base = {"court": COURT, "nomor_perkara": NUMBER, "part": "tab:pihak"}
    pipeline.process_item({**base, "data": [{"nama": "Siti"}]})
    pipeline.process_item({**base, "nomor_perkara": f" {NUMBER} ", "data": [{"nama": "Sita"}]})

    assert stats_of(pipeline) == {"harvest/items/created": 1, "harvest/items/updated": 1}
    with items.open(readonly=True) as store:
        document = store.get_document(KEY)
    assert document is not None
    assert document["tabs"] == {"pihak": [{"nama": "Sita"}]}


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"court": ""}, "missing-court"),
        ({"nomor_perkara": "   "}, "missing-case-number"),
        ({"part": "detail"}, "bad-part"),
        ({"data": {"pihak": {"a", "b"}}}, "not-serialisable"),
        ({"part": "case", "data": {"no": "tabs"}}, "bad-case-data"),
    ],
)
def test_bad_parts_are_dropped_with_a_clear_message_and_a_stat(
    pipeline: DedupePipeline, items: ItemBackend, fields: dict[str, object], reason: str
) -> None:
    item = {"court": COURT, "nomor_perkara": NUMBER, "part": "tab:pihak", "data": [], **fields}

    with pytest.raises(DropItem) as caught:
        pipeline.process_item(item)

    message = str(caught.value)
    assert message.startswith(f"bad case part dropped ({reason}): ")
    assert f"part={item['part']!r}" in message
    assert stats_of(pipeline) == {f"harvest/items/dropped/{reason}": 1}
    with items.open(readonly=True) as store:
        assert store.count_parts() == 0


def test_an_item_without_the_fields_is_dropped(pipeline: DedupePipeline) -> None:
    with pytest.raises(DropItem, match=r"missing-court"):
        pipeline.process_item({"title": "not a case part"})
    assert stats_of(pipeline) == {"harvest/items/dropped/missing-court": 1}


def test_workspace_is_created_private_with_a_private_store(
    pipeline: DedupePipeline, items: ItemBackend, workspace: Path
) -> None:
    pipeline.process_item(
        CasePart(court=COURT, nomor_perkara=NUMBER, part="tab:pihak", data=[{"nama": "A"}])
    )
    assert stat.S_IMODE(workspace.stat().st_mode) == 0o700
    files = sorted(path.name for path in workspace.iterdir())
    # the workspace is made either way (logs, archive, ship-log); the items are in it or not
    assert files == (
        ["items.sqlite", "items.sqlite-shm", "items.sqlite-wal"] if items.name == "sqlite" else []
    )
    for path in workspace.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_a_corrupt_store_stops_the_pipeline_from_opening(workspace: Path) -> None:
    workspace.mkdir(parents=True)
    (workspace / "items.sqlite").write_text("garbage, not a database\n" * 100)
    pipe = DedupePipeline.from_crawler(
        get_crawler(settings_dict={"HARVEST_WORKSPACE": str(workspace)})
    )
    with pytest.raises(ItemStoreError, match="move it aside"):
        pipe.open_spider()
    assert (workspace / "items.sqlite").read_text().startswith("garbage")


def test_disabled_pipeline_is_not_configured(workspace: Path) -> None:
    crawler = get_crawler(
        settings_dict={"HARVEST_WORKSPACE": str(workspace), "DEDUPE_ENABLED": "False"}
    )
    with pytest.raises(NotConfigured, match="DEDUPE_ENABLED"):
        DedupePipeline.from_crawler(crawler)
    assert not workspace.exists()


def test_config_defaults_and_validation(tmp_path: Path) -> None:
    config = DedupeConfig.from_settings(Settings({"HARVEST_WORKSPACE": str(tmp_path)}))
    assert config == DedupeConfig(enabled=True, workspace=tmp_path)
    assert config.store_path == tmp_path / "items.sqlite"
    with pytest.raises(ValueError, match="DEDUPE_ENABLED='maybe' is not a boolean"):
        DedupeConfig.from_settings(
            Settings({"HARVEST_WORKSPACE": str(tmp_path), "DEDUPE_ENABLED": "maybe"})
        )


def test_relative_workspace_is_beside_scrapy_cfg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO / "tests")
    config = DedupeConfig.from_settings(Settings({"HARVEST_WORKSPACE": "some-ws"}))
    assert config.workspace == REPO / "some-ws"


def test_the_project_settings_register_the_pipeline() -> None:
    from harvest import settings

    assert settings.ITEM_PIPELINES["pipelines.dedupe.DedupePipeline"] == 300


class RecordingEngine:
    running = True

    def __init__(self) -> None:
        self.reasons: list[str] = []

    async def close_spider_async(self, *, reason: str) -> None:
        self.reasons.append(reason)


def test_a_failing_database_is_an_item_error_that_closes_the_crawl(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pipelines.store.BUSY_TIMEOUT_MS", 200)
    crawler = get_crawler(settings_dict={"HARVEST_WORKSPACE": str(workspace)})
    engine = RecordingEngine()
    crawler.engine = engine  # type: ignore[assignment]
    pipe = DedupePipeline.from_crawler(crawler)
    pipe.open_spider()
    item = CasePart(court=COURT, nomor_perkara=NUMBER, part="tab:pihak", data=[])
    # Another process holds the write lock longer than the busy timeout.
    holder = sqlite3.connect(workspace / "items.sqlite", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")

    async def in_a_running_loop() -> None:  # as in a crawl
        with pytest.raises(ItemStoreError, match="cannot start a write: database is locked"):
            pipe.process_item(item)
        await asyncio.sleep(0)  # let the scheduled close run

    try:
        asyncio.run(in_a_running_loop())
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    assert stats_of(pipe) == {"harvest/items/store_error": 1}
    assert engine.reasons == ["item_store_error"]
    assert pipe.process_item(item) is item  # once the lock is gone, it is stored
    pipe.close_spider()
