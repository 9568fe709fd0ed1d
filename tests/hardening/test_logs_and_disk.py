"""No personal data in logs, a full disk fails the crawl loudly, no remote control (issue 11,
findings 7 and 8)."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scrapy import Spider
from scrapy.exceptions import DropItem
from scrapy.utils.project import get_project_settings
from scrapy.utils.test import get_crawler

from extensions.logformatter import PartLogFormatter
from harvest.base.items import CasePart
from pipelines.store import ItemStoreError
from reference.sipp_site.testing import running_replica
from tests.support.disk import grow, small_tmpfs
from tests.support.harvest_run import (
    REPO,
    crawl,
    crawl_command,
    exported,
    mismatches,
    scrapy_command,
    truth_by_key,
)

COURT = "pn-replika"
NAME = "BUDI SANTOSO BIN SLAMET"


def _line(result: dict[str, Any]) -> str:
    return str(result["msg"] % result["args"])


def test_item_log_lines_name_the_part_never_its_data() -> None:
    crawler = get_crawler(Spider, settings_dict={"DEFAULT_DROPITEM_LOG_LEVEL": "WARNING"})
    spider = Spider(name="sipp")
    spider.crawler = crawler
    item = CasePart(
        court="pn-x",
        nomor_perkara="1/Pid.B/2024/PN X",
        part="tab:pihak",
        data=[{"nama": NAME, "alamat": "Jl. Mawar 3"}],
        url="http://127.0.0.1/x",
    )
    formatter = PartLogFormatter()
    summary = (
        "CasePart(court='pn-x', nomor_perkara='1/Pid.B/2024/PN X', part='tab:pihak'; "
        "fields data, fetched_at, meta, url)"
    )
    error = formatter.item_error(item, ItemStoreError("disk full"), None, spider)
    dropped = formatter.dropped(item, DropItem("bad"), None, spider)
    scraped = formatter.scraped(item, None, spider)
    assert _line(error) == f"Error processing {summary}"
    assert error["level"] == logging.ERROR
    assert _line(dropped) == f"Dropped: bad{os.linesep}{summary}"
    assert _line(scraped) == f"Scraped from {Spider.__module__}.Spider.start{os.linesep}{summary}"
    for result in (error, dropped, scraped):
        assert NAME not in _line(result)


def test_the_project_switches_off_telnet_and_remote_control() -> None:
    settings = get_project_settings()
    assert settings.getbool("TELNETCONSOLE_ENABLED") is False
    assert settings.getbool("REMOTE_CONTROL_ENABLED") is False
    assert settings.getbool("DOWNLOAD_VERIFY_CERTIFICATES") is True
    assert settings["LOG_FORMATTER"] == "extensions.logformatter.PartLogFormatter"


@pytest.mark.slow
def test_a_killed_crawl_leaves_no_token_file_and_no_console(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home))
    with running_replica(cases=40, seed=51, court_id=COURT) as replica:
        cmd = crawl_command(
            replica.url, COURT, tmp_path / "ws", settings={"DOWNLOAD_DELAY": "0.2"}
        )
        proc = subprocess.Popen(
            cmd, cwd=REPO, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
        )
        seen: list[str] = []
        assert proc.stderr is not None
        for line in proc.stderr:
            seen.append(line)
            if "Crawled 0 pages" in line or "Spider opened" in line:
                break
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stderr.close()
    log = "".join(seen)
    assert "Spider opened" in log
    assert "Telnet" not in log
    assert "RemoteControl" not in log
    assert not (home / ".local" / "state" / "scrapy").exists()


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _texts(v)
    elif isinstance(value, str):
        yield value


@pytest.mark.slow
def test_a_full_disk_stops_the_crawl_with_status_1_and_no_names_in_the_log(
    tmp_path: Path,
) -> None:
    with (
        small_tmpfs(tmp_path / "disk", "640k") as disk,
        running_replica(cases=60, seed=52, court_id=COURT) as replica,
    ):
        truth = truth_by_key(replica.truth_path(tmp_path))
        ws = disk / "ws"
        full = crawl(replica.url, COURT, ws, settings={"LOG_LEVEL": "DEBUG"})
        # (on the full disk itself SQLite cannot open the WAL item store read-only: its -shm
        # index cannot be created; status then says so and what to do)
        grow(disk, "64m")
        status = scrapy_command("status", ws)
        resumed = crawl(replica.url, COURT, ws)
        harvest = exported(ws)

    assert full.returncode == 1, full.stderr[-3000:]
    assert "disk is full" in full.stderr
    assert "free space and run the crawl again" in full.stderr
    assert "scrapy crawl: the crawl stopped early (" in full.stderr
    # the people named in the cases never reach the log, at any level (DEBUG included)
    names = {
        text
        for doc in truth.values()
        for part in (doc["case"], doc["tabs"])
        for text in _texts(part)
        if len(text) >= 10 and " " in text and text.isupper() and "/" not in text
    }
    assert len(names) > 50
    leaked = sorted(name for name in names if name in full.stderr)
    assert leaked == []
    # nothing was recorded done without its data, and the next crawl completes the court
    assert "every ok request has its parts in items.sqlite" in status.stdout, status.stdout[-1500:]
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert mismatches(harvest, truth) == {}
