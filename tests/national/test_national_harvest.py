"""The whole country in three commands, against 30 replica courts played by ONE process on
loopback addresses (docs/national.md): ``scrapy courts add --directory``, ``scrapy courts
check``, two workers ``scrapy crawl sipp -a courts=registered -a max_courts=...``.

The courts: ok courts of the four kinds, courts on the replica's second port (sharing an address
with an ok court), sub-path installs, courts that moved to another host (a 301), courts behind
the JavaScript gate, and courts that refuse us (403), are down (nothing listens) or are not a
SIPP site. Each check class is asserted, each harvestable court's export equals its truth, the
challenge courts alone go through the browser, nothing is requested from a court left out after
its check, ``scrapy status --json`` names every court's access and reason, ``scrapy reparse``
serves the harvest from its archive, and the status page, loaded in Chromium, shows the numbers
of the state (screenshot saved in the test's tmp directory)."""

from __future__ import annotations

import json
import random
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from reference.sipp_site.national import load_plan, write_truths
from reference.sipp_site.testing import NationalReplica, running_national
from tests.support.browser import needs_chromium
from tests.support.harvest_run import (
    exported,
    mismatches,
    scrapy_args,
    scrapy_command,
    start,
    state_query,
    truth_by_key,
)
from tests.support.paths import REPO, SCRAPY

pytestmark = pytest.mark.slow

#: (court id, variant, plan fields, the access its check must find). Two cases a court.
COURTS: tuple[tuple[str, str, dict[str, Any], str], ...] = (
    ("pn-satu", "pn", {}, "ok"),
    ("pn-dua", "pn", {}, "ok"),
    ("pn-tiga", "pn", {}, "ok"),
    ("pn-empat", "pn", {}, "ok"),
    ("pa-satu", "pa", {}, "ok"),
    ("pa-dua", "pa", {}, "ok"),
    ("pa-tiga", "pa", {}, "ok"),
    ("ptun-satu", "ptun", {}, "ok"),
    ("ptun-dua", "ptun", {}, "ok"),
    ("dilmil-satu", "militer", {}, "ok"),
    ("dilmil-dua", "militer", {}, "ok"),
    ("pn-port", "pn", {"port": "other", "share": "pn-satu"}, "ok"),
    ("pa-port", "pa", {"port": "other", "share": "pa-satu"}, "ok"),
    ("pn-sub", "pn", {"base_path": "/sipp/"}, "ok"),
    ("pa-sub", "pa", {"base_path": "/sipp/"}, "ok"),
    ("dilmil-sub", "militer", {"base_path": "/sipp/"}, "ok"),
    ("pn-pindah", "pn", {"answer": "moved"}, "redirected"),
    ("pa-pindah", "pa", {"answer": "moved"}, "redirected"),
    ("ptun-pindah", "ptun", {"answer": "moved"}, "redirected"),
    ("pn-gerbang", "pn", {"challenge": True}, "challenge"),
    ("pa-gerbang", "pa", {"challenge": True}, "challenge"),
    ("pn-tolak", "pn", {"answer": "forbidden"}, "refused"),
    ("pa-tolak", "pa", {"answer": "forbidden"}, "refused"),
    ("ptun-tolak", "ptun", {"answer": "forbidden"}, "refused"),
    ("pn-mati", "pn", {"answer": "down"}, "unreachable"),
    ("pa-mati", "pa", {"answer": "down"}, "unreachable"),
    ("dilmil-mati", "militer", {"answer": "down"}, "unreachable"),
    ("pn-lain", "pn", {"answer": "not_sipp"}, "not_sipp"),
    ("pa-lain", "pa", {"answer": "not_sipp"}, "not_sipp"),
    ("pn-lima", "pn", {}, "ok"),
)
CASES = 2
HARVESTABLE = ("ok", "redirected", "challenge")
PROVINCES = ("Jawa Barat", "Jawa Timur", "Lampung", "Bali", "Papua")
KIND_OF_VARIANT = {"pn": "pn", "pa": "pa", "ptun": "ptun", "militer": "militer"}


@dataclass
class Harvest:
    tmp: Path
    ws: Path
    replica: NationalReplica
    checks: dict[str, dict[str, Any]]
    hits_after_check: dict[str, int]
    logs: list[Path]
    truths: Path
    moved_to: dict[str, str]  # court -> the address it moved to (answer "moved")


def _plan(tmp: Path) -> Path:
    """The plan: each court on its own 127.x.y.z address of a block picked at random (tests
    running at once pick different blocks; the ports are free ones)."""
    block = f"127.{random.randint(1, 250)}.{random.randint(1, 250)}"
    addresses: dict[str, str] = {}
    courts = []
    for n, (court, variant, fields, _) in enumerate(COURTS, start=2):
        extra = dict(fields)
        share = extra.pop("share", None)
        address = addresses[share] if share else f"{block}.{n}"
        addresses[court] = address
        entry: dict[str, Any] = {"court_id": court, "variant": variant, "cases": CASES,
                                 "seed": 100 + n, "address": address, **extra}  # fmt: skip
        if extra.get("answer") == "moved":
            entry["moved_to"] = f"{block}.{n + 100}"
        courts.append(entry)
    path = tmp / "plan.json"
    path.write_text(json.dumps({"port": 0, "courts": courts}, indent=1), encoding="utf-8")
    return path


def _directory(tmp: Path, replica: NationalReplica) -> Path:
    """A court directory (the shipped directory's format) of the 30 replica courts."""
    lines = [
        "# the national test's replica courts (tests/national)",
        "court_id,kind,name,city,province,high_court,base_url,snapshot",
    ]
    for n, (court, variant, _, _) in enumerate(COURTS):
        province = PROVINCES[n % len(PROVINCES)]
        name = f"Pengadilan {court}"
        lines.append(
            f"{court},{KIND_OF_VARIANT[variant]},{name},Kota {n},{province},PT {province},"
            f"{replica.urls[court]},"
        )
    path = tmp / "directory.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _scrapy(ws: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SCRAPY, *args, "-s", f"HARVEST_WORKSPACE={ws}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="module")
def harvest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harvest]:
    tmp = tmp_path_factory.mktemp("national")
    ws = tmp / "ws"
    plan = _plan(tmp)
    truths = tmp / "truths"
    planned = load_plan(plan)[1]
    write_truths(planned, truths)
    moved_to = {c.court_id: c.moved_to for c in planned if c.moved_to}
    with running_national(plan) as replica:
        directory = _directory(tmp, replica)
        added = _scrapy(ws, "courts", "add", "--directory", str(directory))
        assert added.returncode == 0, added.stderr
        assert added.stdout == "30 courts added, 0 changed, 0 unchanged; 30 registered\n"
        checked = _scrapy(ws, "courts", "check", "--json")
        assert checked.returncode == 0, checked.stderr
        checks = {d["court_id"]: d for d in map(json.loads, checked.stdout.splitlines())}
        hits_after_check = {court: len(replica.hits(court)) for court, *_ in COURTS}
        # the replica's gate sets sipp_clearance (a real court's: cf_clearance, the default)
        settings = {"HARVEST_LEASE_TTL": "20", "SIPP_BROWSER_TIMEOUT": "60",
                    "SIPP_BROWSER_COOKIES": "sipp_clearance"}  # fmt: skip
        cmd = [*SCRAPY, "crawl", "sipp", "-a", "courts=registered", "-a", "max_courts=6",
               *scrapy_args(ws, settings)]  # fmt: skip
        logs = [tmp / "worker-1.log", tmp / "worker-2.log"]
        workers = [start(cmd, log) for log in logs]
        try:
            codes = [w.wait(timeout=900) for w in workers]
        finally:
            for w in workers:
                if w.poll() is None:
                    w.kill()
                    w.wait()
        tails = [log.read_text(errors="replace")[-3000:] for log in logs]
        assert codes == [0, 0], tails
        yield Harvest(tmp, ws, replica, checks, hits_after_check, logs, truths, moved_to)


def test_the_check_classifies_every_court(harvest: Harvest) -> None:
    got = {court: d["access"] for court, d in harvest.checks.items()}
    assert got == {court: access for court, _, _, access in COURTS}
    urls = harvest.replica.urls
    for court, _, fields, access in COURTS:
        d = harvest.checks[court]
        assert d["checked_at"].endswith("Z")
        if access == "redirected":
            # the effective base URL: where the court moved (the plan's moved_to address)
            address = urls[court].split("//")[1].split(":")[0]
            assert d["base_url"] == urls[court].replace(address, harvest.moved_to[court])
            assert d["http_status"] == 200
            assert d["reason"].startswith("redirect (301) to ")
        else:
            assert d["base_url"] == urls[court]
        want_status = {"ok": 200, "challenge": 403, "refused": 403, "unreachable": None,
                       "not_sipp": 200}  # fmt: skip
        if access in want_status:
            assert d["http_status"] == want_status[access], court
        if fields.get("base_path"):
            assert d["base_url"].endswith("/sipp/")


def test_every_harvestable_court_equals_its_truth(harvest: Harvest) -> None:
    for court, _, _, access in COURTS:
        if access not in HARVESTABLE:
            continue
        truth = truth_by_key(harvest.truths / f"{court}.jsonl")
        got = exported(harvest.ws, "--court", court)
        assert mismatches(got, truth) == {}, court
        assert len(got) == CASES, court


def test_both_workers_took_courts_and_the_browser_served_the_challenge_courts_only(
    harvest: Harvest,
) -> None:
    runs = state_query(harvest.ws, "SELECT court, pid FROM runs WHERE close_reason = 'finished'")
    by_pid: dict[int, set[str]] = {}
    for court, pid in runs:
        by_pid.setdefault(int(pid), set()).add(str(court))
    assert len(by_pid) == 2, by_pid  # two workers, each finished courts of its own
    harvested = {c for c, _, _, a in COURTS if a in HARVESTABLE}
    assert set().union(*by_pid.values()) == harvested
    for court, _, _, access in COURTS:
        through_browser = harvest.replica.hits(court, "browser")
        if access == "challenge":
            assert len(through_browser) >= 1, court  # its gate passed in Chromium
            assert len(harvest.replica.hits(court, "http")) > 3 * CASES  # then plain HTTP
        else:
            assert through_browser == [], court


def test_nothing_is_requested_from_a_court_left_out_after_its_check(harvest: Harvest) -> None:
    for court, _, _, access in COURTS:
        if access in HARVESTABLE:
            continue
        # the check's one request (a down court: none reached it), nothing after it
        assert len(harvest.replica.hits(court)) == harvest.hits_after_check[court], court
        assert harvest.hits_after_check[court] == (0 if access == "unreachable" else 1)
        rows = state_query(harvest.ws, "SELECT count(*) FROM requests WHERE court = ?", (court,))
        assert rows == [(0,)], court
        log = state_query(
            harvest.ws, "SELECT count(*) FROM url_log WHERE url LIKE ?",
            (harvest.replica.urls[court] + "%",),
        )  # fmt: skip
        assert log == [(0,)], court


def test_status_json_gives_every_court_its_access_and_reason(harvest: Harvest) -> None:
    result = scrapy_command("status", harvest.ws, "--json", "--no-parts-check")
    assert result.returncode == 0, result.stderr
    national = {c["court_id"]: c for c in json.loads(result.stdout)["national"]}
    assert set(national) == {c for c, *_ in COURTS}
    for court, variant, _, access in COURTS:
        c = national[court]
        assert c["access"] == access
        assert c["kind"] == KIND_OF_VARIANT[variant]
        assert c["reason"] == harvest.checks[court]["reason"]
        assert c["http_status"] == harvest.checks[court]["http_status"]
        if access in HARVESTABLE:
            assert c["crawled"] is True
            assert (c["cases_complete"], c["cases_listed"]) == (CASES, CASES)
            assert c["advice"] is None
        else:
            assert c["crawled"] is False
            assert (c["cases_complete"], c["cases_listed"], c["requests_ok"]) == (0, 0, 0)
            assert c["advice"]  # what a user can do


def test_the_archive_serves_the_national_harvest(harvest: Harvest) -> None:
    result = _scrapy(harvest.ws, "reparse", "--json", timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["failed"] == []
    assert (report["created"], report["updated"]) == (0, 0)
    assert report["unchanged"] == report["pages"] > 0
    courts = {p.name for p in (harvest.ws / "archive").iterdir() if p.is_dir()}
    assert courts == {c for c, _, _, a in COURTS if a in HARVESTABLE}


@needs_chromium
def test_the_national_status_page_in_chromium_shows_the_state(harvest: Harvest) -> None:
    from playwright.sync_api import sync_playwright

    from harvest.clearance import DEFAULT_EXECUTABLE

    page_file = harvest.tmp / "status.html"
    result = scrapy_command("status", harvest.ws, "--html", str(page_file))
    assert result.returncode == 0, result.stderr
    source = page_file.read_text(encoding="utf-8")
    assert "<script" not in source  # one self-contained file
    assert "<link" not in source
    state = json.loads(scrapy_command("status", harvest.ws, "--json", "--no-parts-check").stdout)
    national = {c["court_id"]: c for c in state["national"]}
    shot = harvest.tmp / "national-status.png"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=DEFAULT_EXECUTABLE, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 1400})
            page.goto(page_file.as_uri())
            page.screenshot(path=str(shot), full_page=True)
            assert page.inner_text("#national-courts") == "30"
            crawled = sum(1 for c in national.values() if c["crawled"])
            assert page.inner_text("#national-crawled") == str(crawled) == "22"
            complete = sum(c["cases_complete"] for c in national.values())
            assert page.inner_text("#national-complete") == str(complete) == str(22 * CASES)
            rows = page.locator("#national-table tr[data-court]")
            assert rows.count() == 30
            for i in range(30):
                row = rows.nth(i)
                court = str(row.get_attribute("data-court"))
                c = national[court]
                assert row.locator("[data-field=access]").inner_text() == c["access"]
                want = f"{c['cases_complete']}/{c['cases_listed']}"
                assert row.locator("[data-field=complete]").inner_text() == want
                assert row.locator("[data-field=failed]").inner_text() == str(
                    sum(c["failures"].values())
                )
            for access in ("refused", "unreachable", "not_sipp", "challenge", "redirected"):
                tile = page.locator(f".tile[data-access={access}]").inner_text()
                n = sum(1 for c in national.values() if c["access"] == access)
                assert tile == f"{n} {access}"
            for kind in ("pn", "pa", "ptun", "militer"):
                n = sum(1 for c in national.values() if c["kind"] == kind)
                cell = page.locator(f'tr[data-kind="{kind}"] [data-field=courts]').inner_text()
                assert cell == str(n)
            # a court's row links to its detail, which says what to do
            page.click('#national-table a[href="#court-pn-tolak"]')
            detail = page.inner_text("#court-pn-tolak")
            assert "refused" in detail
            assert "proxy" in detail
        finally:
            browser.close()
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 50_000
    print(f"national status page screenshot: {shot}")
