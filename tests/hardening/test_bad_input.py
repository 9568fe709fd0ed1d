"""Bad input is refused with one line, before anything is fetched or written (issue 24).

Each case was a traceback, a silent wrong run, or a password in the log on main: a missing
``base_url`` (``TypeError``), an out-of-range port or a broken IPv6 literal (``ValueError``),
credentials in ``base_url`` (logged, stored in ``state.sqlite``), a court list that is binary,
has extra cells, an unterminated quote or one court under two ids (crawled at twice its polite
rate), a typo'd ``-s HARVEST_...`` (silently ignored), a boolean given ``yes``, the two state
store settings together (one silently ignored), no ``HARVEST_CONTACT`` (no word).
"""

from __future__ import annotations

import logging
import re
import subprocess
from pathlib import Path

import pytest
from scrapy.settings import Settings

from extensions.config import SchedulerConfig
from harvest.base.settings_error import SettingsError
from harvest.contact import NO_CONTACT_WARNING, ContactAddon
from harvest.courts import CourtListError, read_courts
from harvest.settings_check import PREFIXES, check, known_settings
from harvest.spider_args import SippArgs, SpiderArgumentError
from tests.support.paths import REPO, SCRAPY

SECRET = "s3cr3t-pw"


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({}, r"^missing -a base_url=<court SIPP root>"),
        ({"court_id": "pn-x"}, r"^missing -a base_url="),
        (
            {"base_url": "http://127.0.0.1:99999/"},
            r"^-a base_url='http://127\.0\.0\.1:99999/' is not a valid URL \(Port out of range",
        ),
        ({"base_url": "http://[::1/"}, r"is not a valid URL \(Invalid IPv6 URL\)"),
        ({"base_url": "https://sipp.x.go.id:0/"}, r"has port 0"),
        (
            {"base_url": f"https://bob:{SECRET}@sipp.x.go.id/"},
            r"^-a base_url='https://\*\*\*@sipp\.x\.go\.id/' has a user name or password in it",
        ),
    ],
)
def test_bad_spider_arguments_are_one_clear_error(given: dict[str, str], message: str) -> None:
    with pytest.raises(SpiderArgumentError, match=message) as info:
        SippArgs.from_arguments(given)
    assert SECRET not in str(info.value)
    assert "\n" not in str(info.value)


def _court_list(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "courts.csv"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", r"is not a UTF-8 text file"),
        (b"base_url\nhttps://a.go.id/\x00\n", r"is not a UTF-8 text file"),
        (
            "base_url,court_id\nhttps://a.go.id/,pn-a,extra\n",
            r"court 1 \(line 2\): 3 cells, but the header names 2 columns",
        ),
        (
            'base_url,court_id\n"https://a.go.id/,pn-a\nhttps://b.go.id/,pn-b\n',
            r"line \d+: not valid CSV \(unexpected end of data: an unterminated quote\?\)",
        ),
        (
            "base_url,court_id\nhttps://a.go.id/,pn-a\nhttps://A.go.id:443,pn-a2\n",
            r"court 2: base_url https://A\.go\.id:443/ is already court 1 \('pn-a'\)",
        ),
        (
            f"base_url,court_id\nhttps://u:{SECRET}@a.go.id/,pn-a\n",
            r"court 1: -a base_url='https://\*\*\*@a\.go\.id/' has a user name or password",
        ),
    ],
)
def test_a_bad_court_list_is_one_clear_error(
    tmp_path: Path, content: str | bytes, message: str
) -> None:
    with pytest.raises(CourtListError, match=message) as info:
        read_courts(_court_list(tmp_path, content))
    assert SECRET not in str(info.value)
    assert "\n" not in str(info.value)


def test_a_court_list_comment_may_hold_a_quote(tmp_path: Path) -> None:
    path = _court_list(tmp_path, 'base_url\n# the "old one\nhttps://a.go.id/\n')
    assert [e.base_url for e in read_courts(path)] == ["https://a.go.id/"]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"HARVEST_WORKSPCE": "/tmp/x"},
            r"^unknown setting HARVEST_WORKSPCE .*: did you mean HARVEST_WORKSPACE\?$",
        ),
        (
            {"SIPP_BROWSER_TIMOUT": "5"},
            r"^unknown setting SIPP_BROWSER_TIMOUT .*: did you mean SIPP_BROWSER_TIMEOUT\?$",
        ),
        (
            {"HARVEST_STATE_URL_LOG": "maybe"},
            r"^HARVEST_STATE_URL_LOG is a boolean setting: give True or False .* not 'maybe'$",
        ),
        ({"AUTOTHROTTLE_ENABLED": "yes"}, r"^AUTOTHROTTLE_ENABLED is a boolean setting"),
        ({"DEDUPE_ENABLED": "off"}, r"^DEDUPE_ENABLED is a boolean setting"),
    ],
)
def test_typos_and_non_booleans_in_settings_are_refused(
    settings: dict[str, str], message: str
) -> None:
    with pytest.raises(SettingsError, match=message):
        check(Settings(settings))


def test_every_setting_of_ours_the_code_or_the_readme_names_is_known() -> None:
    check(
        Settings({"HARVEST_ARCHIVE": "False", "HARVEST_STATE_URL_LOG": "1", "DEDUPE_ENABLED": 0})
    )

    names = set()
    for root in ("harvest", "extensions", "pipelines"):
        for path in (REPO / root).rglob("*.py"):
            names |= set(
                re.findall(r"[\"']((?:HARVEST|SIPP)_[A-Z0-9_]*[A-Z0-9])[\"']", path.read_text())
            )
    readme = (REPO / "README.md").read_text()
    names |= set(re.findall(r"^\| `((?:HARVEST|SIPP)_[A-Z0-9_]+)`", readme, re.MULTILINE))
    assert all(n.startswith(PREFIXES) for n in names)
    assert sorted(names - known_settings()) == []


def test_the_state_store_and_the_database_url_together_are_refused() -> None:
    settings = Settings(
        {
            "HARVEST_STATE_STORE": "extensions.sqlite_store.SqliteRequestStore",
            "HARVEST_DATABASE_URL": f"postgresql://u:{SECRET}@127.0.0.1:1/db",
        }
    )
    with pytest.raises(SettingsError, match="both choose the request state store") as info:
        SchedulerConfig.from_settings(settings)
    assert SECRET not in str(info.value)


def test_an_unset_contact_is_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="harvest.contact")
    ContactAddon().update_settings(Settings({"HARVEST_CONTACT": ""}))
    assert [r.getMessage() for r in caplog.records] == [NO_CONTACT_WARNING]
    caplog.clear()
    ContactAddon().update_settings(Settings({"HARVEST_CONTACT": "ops@example.org"}))
    explicit = Settings({"HARVEST_CONTACT": ""})
    explicit.set("USER_AGENT", "my-agent/1.0", priority="cmdline")
    ContactAddon().update_settings(explicit)
    assert caplog.records == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "line"),
    [
        ([], "scrapy crawl: missing -a base_url=<court SIPP root>"),
        (["-a", "base_url=http://127.0.0.1:99999/"], "is not a valid URL (Port out of range"),
        (["-a", f"base_url=http://bob:{SECRET}@127.0.0.1:1/"], "has a user name or password"),
        (
            ["-a", "base_url=http://127.0.0.1:1/", "-s", "HARVEST_WORKSPCE=/tmp/elsewhere"],
            "did you mean HARVEST_WORKSPACE?",
        ),
    ],
)
def test_scrapy_crawl_refuses_bad_input_with_one_line(
    tmp_path: Path, args: list[str], line: str
) -> None:
    workspace = tmp_path / "ws"
    proc = subprocess.run(
        [*SCRAPY, "crawl", "sipp", *args, "-s", f"HARVEST_WORKSPACE={workspace}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert [x for x in proc.stderr.splitlines() if line in x] != [], proc.stderr[-3000:]
    assert SECRET not in proc.stderr + proc.stdout
    assert not (workspace / "state.sqlite").exists()
