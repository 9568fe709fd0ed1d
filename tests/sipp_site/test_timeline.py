"""The replica as of a day (``--as-of``): the same court on every day, moving forward in time.

Pages are compared through :func:`reference.sipp_site.testing.page_text`: each token (random IV
per render) is replaced by what it decrypts to, so two renders of the same page are equal text.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import requests

from harvest.base.identity import dedupe_key
from reference.sipp_site.court import TODAY, make_court
from reference.sipp_site.model import CourtData, number_of, write_truth
from reference.sipp_site.site import Site
from reference.sipp_site.testing import (
    DayChanges,
    case_pages,
    court_changes,
    get_page,
    running_replica,
)
from reference.sipp_site.tokens import TokenCodec
from tests.support.paths import REPO
from tests.support.waiting import wait_until

D1 = TODAY + dt.timedelta(days=3)  # 2024-06-22
D2 = TODAY + dt.timedelta(days=17)  # 2024-07-06


def _data(as_of: dt.date = TODAY, *, variant: str = "pn", cases: int = 1200) -> CourtData:
    return CourtData(make_court(variant), seed=11, cases=cases, as_of=as_of)  # type: ignore[arg-type]


def _truth(data: CourtData) -> str:
    out = io.StringIO()
    write_truth(data, out)
    return out.getvalue()


def _site(data: CourtData) -> Site:
    return Site(data, codec=TokenCodec(11))


@pytest.fixture(scope="module")
def d1_d2() -> DayChanges:
    return court_changes(cases=1200, seed=11, before=D1, after=D2)


# ------------------------------------------------------------------ TODAY is what it was

#: sha256 of ``--variant V --cases N --seed 11 --registered 2 --truth`` written by main at
#: f071de2, before the as-of day existed
MAIN_TRUTH = {
    # pn: changed by issue 23's bankruptcy follow-up tab (declared bankruptcies list the menu
    # tab; its 15 sub pages are parts of the truth); the other kinds have no kepailitan
    ("pn", 400): "9b7f8350b3c7d5110a9b30c93718b386a7bac844ad979587f36e2a15dfafa673",
    ("pa", 300): "230b6c8f6724fdcf4a4ead0752b464e18719889b0a1e0ab18ece201cd439ffc6",
    ("ptun", 300): "f303658995371d8eae09ac35608d0c91d35a42e34591f13461d1467c667bc0b4",
    ("militer", 300): "375d50399c104533238eb6a23de401f7fc8e2dc85feab55ba59c626084dc21b2",
}
#: sha256 of the pages of :func:`_page_digest` rendered by main at c00410c (same code path:
#: in-process GETs, tokens decrypted). The hearing calendar (``/list_jadwal_sidang``) is not
#: among them since issue 26 renders it from the real template (tests/sipp_site/test_calendar.py)
MAIN_PAGES = {
    ("pn", 400): "0c59e223e27044c0e71938c1408a6f3eeb9388d3d5c2529cde3e1512f3070f3d",  # issue 23
    ("pa", 300): "131385d5e3885143374824ca431450d32c64fc602a3162fd869d9efeb80fe3e1",
    ("ptun", 300): "c1fe207f86f765c3f5554926dc37cedbb04a07feb384eb68b0d1efb0b2097dad",
    ("militer", 300): "20ce1f7928884d47a2ab8c658f5960eac39ae1e2ad89d0022e8f3e0d5ea64785",
}


def _page_digest(site: Site, cases: int) -> str:
    """Two list pages, the newest 40 cases' and three old cases' detail and tabs."""
    h = hashlib.sha256()
    for path in ("/list_perkara", "/list_perkara/page/2"):
        h.update(get_page(site, path).encode())
    for index in [*range(cases - 40, cases), 0, 100, 200]:
        for text in case_pages(site, index).values():
            h.update(text.encode())
    return h.hexdigest()


@pytest.mark.parametrize(("variant", "cases"), list(MAIN_TRUTH))
def test_default_day_is_today_byte_for_byte_as_before(variant, cases):
    for data in (
        CourtData(make_court(variant), seed=11, cases=cases),
        _data(TODAY, variant=variant, cases=cases),
    ):
        assert data.as_of == dt.date(2024, 6, 19)
        data.register()
        data.register()
        truth = _truth(data)
        assert hashlib.sha256(truth.encode()).hexdigest() == MAIN_TRUTH[(variant, cases)]
    pages = _page_digest(_site(_data(TODAY, variant=variant, cases=cases)), cases)
    assert pages == MAIN_PAGES[(variant, cases)]


def test_cli_as_of_today_writes_the_same_truth_as_before(tmp_path):
    out = tmp_path / "t.jsonl"
    subprocess.run(
        [sys.executable, "-m", "reference.sipp_site", "--cases", "400", "--seed", "11",
         "--registered", "2", "--as-of", "2024-06-19", "--truth", str(out)],
        check=True, cwd=REPO, capture_output=True,
    )  # fmt: skip
    assert hashlib.sha256(out.read_bytes()).hexdigest() == MAIN_TRUTH[("pn", 400)]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2024-02-30", "'2024-02-30' is not a day: give YYYY-MM-DD"),
        ("19/06/2024", "'19/06/2024' is not a day: give YYYY-MM-DD"),
        ("2019-06-30", "2019-06-30 is before the court's first registration day 2019-07-01"),
    ],
)
def test_cli_rejects_a_bad_as_of_day(tmp_path, value, message):
    done = subprocess.run(
        [sys.executable, "-m", "reference.sipp_site", "--cases", "10", "--as-of", value,
         "--truth", str(tmp_path / "t.jsonl")],
        check=False, cwd=REPO, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 2
    assert message in done.stderr
    assert not (tmp_path / "t.jsonl").exists()


# ------------------------------------------------------------------ determinism


def test_same_seed_and_day_give_the_same_site_twice():
    day = TODAY + dt.timedelta(days=9)
    one, two = _data(day, cases=400), _data(day, cases=400)
    assert len(one) == len(two) == 402
    assert _truth(one) == _truth(two)
    assert _page_digest(_site(one), 402) == _page_digest(_site(two), 402)
    # and another day is another court
    assert _truth(_data(day + dt.timedelta(days=20), cases=400)) != _truth(one)


# ------------------------------------------------------------------ registrations over time


def test_cases_registered_after_today_continue_the_index_at_the_same_rate():
    today, later, earlier = _data(TODAY), _data(D2), _data(TODAY - dt.timedelta(days=30))
    assert len(today) == 1200
    # 1200 cases over 1,815 days: 0.66 a day; none registered on TODAY itself (--live's day)
    assert len(later) == 1211
    assert len(earlier) == 1181
    assert all(today.day(i) < TODAY.toordinal() for i in range(1200))
    assert [later.case(i).nomor_perkara for i in range(1200, 1211)][-2:] == [
        "31/Pdt.G/2024/PN Rpk",
        "39/Pid.B/2024/PN Rpk",
    ]
    assert later.case(1210).registered == dt.date(2024, 7, 5)
    assert later.case(1200).registered == dt.date(2024, 6, 20)
    # case i is the same case whatever the day: number, flow, registration
    for i in range(1181):
        assert (number_of(earlier, i), earlier.alur_id(i), earlier.day(i)) == (
            number_of(later, i),
            later.alur_id(i),
            later.day(i),
        )
    assert earlier.day(1180) <= (TODAY - dt.timedelta(days=30)).toordinal() < today.day(1181)


def test_a_case_registered_after_d1_is_absent_on_d1_and_the_newest_on_d2(d1_d2):
    on_d1, on_d2 = _site(_data(D1)), _site(_data(D2))
    newest = "39/Pid.B/2024/PN Rpk"
    list_d1, list_d2 = get_page(on_d1, "/list_perkara"), get_page(on_d2, "/list_perkara")
    assert "Total : 1.202 Perkara" in list_d1
    assert "Total : 1.211 Perkara" in list_d2
    first = re.search(r"<tr><td>1</td><td>([^<]*)</td><td[^>]*>([^<]*)</td>", list_d2)
    assert first is not None
    assert (" ".join(first.group(1).split()), first.group(2)) == (newest, "05 Jul 2024")
    assert newest not in list_d1
    # not on D1 at all: its id is no case there, a search for it finds nothing
    assert on_d1.data.index_of_id(1000 + 1210) is None
    assert on_d2.data.index_of_id(1000 + 1210) == 1210
    new = d1_d2.new_cases
    assert len(new) == 9
    assert newest in new
    d1_numbers = {number_of(on_d1.data, i) for i in range(len(on_d1.data))}
    assert not d1_numbers & set(new)
    # the sync date on the list is the as-of day
    assert "Pembaharuan Data : Sabtu, 06 Jul. 2024 06:00:01 WIB" in list_d2


def test_live_registers_on_the_as_of_day():
    data = _data(D2)
    assert len(data) == 1211
    index = data.register()
    case = data.case(index)
    assert (index, case.registered) == (1211, D2)
    # the stream's next case (naturally registered later), brought forward to the as-of day
    natural = _data(D2 + dt.timedelta(days=10))
    assert natural.alur_id(1211) == case.alur.id
    assert natural.case(1211).registered > D2
    # earlier cases never move
    assert data.case(1210).document("x") == _data(D2).case(1210).document("x")


def test_live_replica_as_of_a_day_registers_on_that_day(tmp_path):
    day = dt.date(2024, 8, 1)
    with (
        running_replica(
            cases=45, seed=2, live=True, as_of=day, extra_args=["--live-interval", "0.3"]
        ) as rep,
        requests.Session() as s,
    ):
        assert rep.as_of == day
        wait_until(
            lambda: rep.registered() >= 2, timeout=30, what="the replica registers 2 live cases"
        )
        html = s.get(rep.url).text
        total = int(re.search(r"var totalPage = '(\d+)'", html).group(1))
        top = re.search(r"<tr><td>1</td><td>([^<]*)</td><td[^>]*>([^<]*)</td>", html)
        assert top.group(2) == "01 Aug 2024"
        base = len(CourtData(make_court("pn"), seed=2, cases=45, as_of=day))
        truth = rep.write_truth(tmp_path / "live.jsonl", registered=total - base)
        ids = {json.loads(line)["source_id"] for line in truth.read_text().splitlines()}
        assert len(ids) == total
        assert " ".join(top.group(1).split()) in ids


# ------------------------------------------------------------------ monotonic lives


def _flat(x: Any, path: str, out: dict[str, Any]) -> dict[str, Any]:
    if isinstance(x, dict):
        for k, v in x.items():
            _flat(v, f"{path}.{k}", out)
    elif isinstance(x, list):
        for k, v in enumerate(x):
            _flat(v, f"{path}[{k}]", out)
    else:
        out[path] = x
    return out


#: what may change on a value the earlier day already shows: the status; a stage's totals of
#: Biaya Perkara (rows are added); a judge replaced (the old row turns inactive); Diversi's
#: agreement and execution texts, which the view prints ("Tidak Sepakat", "Dilaksanakan
#: Sebagian/Tidak Dilaksanakan Sepenuhnya") before the deliberation and the report; an
#: appeal's Keterangan, which notes a withdrawal ("... Telah Dicabut Pada ...") once it happens
VOLATILE = re.compile(
    r"^(\.case\.(list_row|header)\.status_perkara"
    r"|\.tabs\.biaya_perkara\[\d+\]\.total\.\w+"
    r"|\.tabs\.penetapan\.hakim\[\d+\]\.aktif"
    r"|\.tabs\.diversi\[0\]\.(kesepakatan|status_pelaksanaan)"
    r"|\.tabs\.(banding|kasasi|pk)\.pemohon\[\d+\]\.keterangan)$"
)


def _assert_grows(a: Any, b: Any, d1: dt.date) -> None:
    """Case ``b`` (a later day) keeps everything case ``a`` (day ``d1``) shows."""
    where = a.nomor_perkara
    assert (a.nomor_perkara_raw, a.registered, a.id_perkara) == (
        b.nomor_perkara_raw,
        b.registered,
        b.id_perkara,
    )
    cut = d1.isoformat()
    # the history up to d1 is the same; what b adds is dated after d1
    old = b.tabs["riwayat_perkara"][: len(a.tabs["riwayat_perkara"])]
    assert old == a.tabs["riwayat_perkara"], where
    assert all(r["tanggal"] > cut for r in b.tabs["riwayat_perkara"][len(old) :]), where
    assert a.case_data["data_umum"] == b.case_data["data_umum"], where
    for part in ("list_row", "header"):
        pa = {k: v for k, v in a.case_data[part].items() if k != "status_perkara"}
        pb = {k: v for k, v in b.case_data[part].items() if k != "status_perkara"}
        assert pa == pb, where
    # hearings held by d1 stay as they were (an upcoming one may get its room, its agenda)
    if "jadwal_sidang" in a.tabs and "jadwal_sidang" in b.tabs:
        held_a = [r for r in a.tabs["jadwal_sidang"] if r["tanggal"] <= cut]
        held_b = [r for r in b.tabs["jadwal_sidang"] if r["tanggal"] <= cut]
        assert held_a == held_b, where
    # every other value a tab shows on d1 is still there
    fa = _flat({k: v for k, v in a.tabs.items() if k != "jadwal_sidang"}, ".tabs", {})
    fb = _flat(b.tabs, ".tabs", {})
    for path, value in fa.items():
        if value is not None and not VOLATILE.match(path):
            assert fb.get(path, "(missing)") == value, (where, path)
    # tabs are only added (Jadwal Sidang is dropped when a dismissal or diversi ends a case)
    slugs_a = {t["slug"] for t in a.tab_list} - {"jadwal_sidang"}
    assert slugs_a <= {t["slug"] for t in b.tab_list}, where


@pytest.mark.parametrize(
    ("variant", "cases", "d1", "d2"),
    [
        ("pn", 3000, TODAY - dt.timedelta(days=20), TODAY + dt.timedelta(days=25)),
        ("pn", 3000, TODAY + dt.timedelta(days=5), TODAY + dt.timedelta(days=60)),
        ("pa", 1000, TODAY - dt.timedelta(days=40), TODAY + dt.timedelta(days=30)),
        ("ptun", 1000, TODAY - dt.timedelta(days=40), TODAY + dt.timedelta(days=30)),
        ("militer", 1000, TODAY - dt.timedelta(days=40), TODAY + dt.timedelta(days=30)),
    ],
)
def test_an_event_visible_on_d1_is_still_visible_later(variant, cases, d1, d2):
    a, b = _data(d1, variant=variant, cases=cases), _data(d2, variant=variant, cases=cases)
    assert len(b) > len(a)
    # cases registered in the 400 days before d1 (older ones are long decided; checked on a
    # sample: their documents do not change at all)
    recent = [i for i in range(len(a)) if a.day(i) >= d1.toordinal() - 400]
    changed = 0
    for index in recent:
        ca, cb = a.case(index), b.case(index)
        _assert_grows(ca, cb, d1)
        changed += ca.document("x") != cb.document("x")
    assert changed > len(recent) // 10
    for index in range(0, len(a) - len(recent), 97):
        assert a.case(index).document("x") == b.case(index).document("x")


# ------------------------------------------------------------------ pages change with events


def test_pages_of_a_case_without_an_event_are_identical_on_both_days(d1_d2):
    one, two = _site(_data(D1)), _site(_data(D2))
    changed = set(d1_d2.changed_documents)
    same = differ = 0
    for index in range(1080, 1202):
        number = one.case(index).nomor_perkara
        pages_1, pages_2 = case_pages(one, index), case_pages(two, index)
        if number in changed:
            assert pages_1 != pages_2, number
            differ += 1
        else:
            assert pages_1 == pages_2, number
            same += 1
    assert (same, differ) == (76, 46)
    # an old, decided case too
    assert case_pages(one, 17) == case_pages(two, 17)


def test_truth_of_the_later_day_shows_the_new_events():
    a, b = _data(D1), _data(D2)
    # 7/Pdt.G/2024: judged on 2024-07-01
    before, after = a.case(1105), b.case(1105)
    assert before.nomor_perkara == "7/Pdt.G/2024/PN Rpk"
    assert before.case_data["list_row"]["status_perkara"] == "Persidangan"
    assert "putusan" not in before.tabs
    assert after.case_data["list_row"]["status_perkara"] == "Putusan"
    assert after.case_data["header"]["status_perkara"] == "Putusan"
    assert after.tabs["putusan"]["tanggal_putusan"] == "2024-07-01"
    assert after.tabs["putusan"]["tanggal_minutasi"] is None
    assert after.tabs["riwayat_perkara"][-1] == {
        "tanggal": "2024-07-01",
        "tahapan": "Putusan",
        "proses": "Putusan",
    }
    # 27/Pid.B/2024: judged on 2024-06-26, minutasi on 2024-07-03
    before, after = a.case(1173), b.case(1173)
    assert before.nomor_perkara == "27/Pid.B/2024/PN Rpk"
    assert before.case_data["list_row"]["status_perkara"] == "Persidangan"
    assert after.case_data["list_row"]["status_perkara"] == "Minutasi"
    assert after.tabs["putusan"]["tanggal_putusan"] == "2024-06-26"
    assert after.tabs["putusan"]["tanggal_minutasi"] == "2024-07-03"
    # 25/Pid.B/2024: judged on 2024-07-01, appealed on 2024-07-04
    after = b.case(1170)
    assert after.case_data["list_row"]["status_perkara"] == "Banding"
    assert [(r["tanggal"], r["proses"]) for r in after.tabs["riwayat_perkara"][-2:]] == [
        ("2024-07-01", "Putusan"),
        ("2024-07-04", "Permohonan Banding"),
    ]
    assert "banding" in after.tabs
    assert "banding" not in a.case(1170).tabs


def test_court_changes_agrees_with_the_truth_files_of_both_days(tmp_path, d1_d2):
    def truth(day: dt.date) -> dict[str, str]:
        out = tmp_path / f"{day}.jsonl"
        subprocess.run(
            [sys.executable, "-m", "reference.sipp_site", "--cases", "1200", "--seed", "11",
             "--as-of", day.isoformat(), "--truth", str(out)],
            check=True, cwd=REPO, capture_output=True,
        )  # fmt: skip
        docs = (json.loads(line) for line in out.read_text().splitlines())
        return {d["dedupe_key"]: json.dumps(d, sort_keys=True) for d in docs}

    one, two = truth(D1), truth(D2)
    changes = d1_d2
    key = {n: dedupe_key("pn-replika", n) for n in changes.refetch}
    assert {key[n] for n in changes.new_cases} == set(two) - set(one)
    assert {key[n] for n in changes.changed_documents} == {k for k in one if one[k] != two[k]}
    assert len(changes.changed_documents) == 47
    assert len(changes.changed_list_rows) == 17
    assert set(changes.changed_list_rows) <= set(changes.changed_documents)
    assert changes.cases_before == 1202
    rows_one = {k: json.loads(v)["case"]["list_row"] for k, v in one.items()}
    rows_two = {k: json.loads(v)["case"]["list_row"] for k, v in two.items()}
    assert {dedupe_key("pn-replika", n) for n in changes.changed_list_rows} == {
        k for k in one if rows_one[k] != rows_two[k]
    }
    with pytest.raises(ValueError, match="give the earlier day as before"):
        court_changes(cases=10, before=D2, after=D1)


def test_running_replica_as_of_serves_that_day_and_writes_its_truth(tmp_path):
    with running_replica(cases=300, seed=11, as_of=D2) as rep, requests.Session() as s:
        assert rep.as_of == D2
        html = s.get(rep.url).text
        # 300 cases over 1,815 days, 3 more registered by 2024-07-06
        assert "Total : 303 Perkara" in html
        assert "Pembaharuan Data : Sabtu, 06 Jul. 2024 06:00:01 WIB" in html
        served = rep.write_truth(tmp_path / "d2.jsonl").read_text()
        assert served == _truth(_data(D2, cases=300))
        assert len(served.splitlines()) == 303
        other: Path = rep.write_truth(tmp_path / "d1.jsonl", as_of=D1)
        assert other.read_text() == _truth(_data(D1, cases=300))


def test_lama_proses_grows_daily_while_a_case_waits_for_its_verdict():
    # list position (newest first) 1211 - 1161 = 50 on D2, 1202 - 1161 = 41 on D1: page 3
    def lama(site: Site, number: str) -> str:
        html = get_page(site, "/list_perkara/page/3")
        row = re.search(re.escape(number) + r"</td>.*?>(\d+) Hari</td>", html, re.DOTALL)
        assert row is not None, number
        return row.group(1)

    one, two = _site(_data(D1)), _site(_data(D2))
    # 23/Pid.B/2024, registered 2024-04-21, still in trial on both days
    assert (lama(one, "23/Pid.B/2024/PN Rpk"), lama(two, "23/Pid.B/2024/PN Rpk")) == ("62", "76")
    # 7/Pdt.G/2024, registered 2024-01-28, judged on 2024-07-01: it stops growing then
    assert one.case(1105).extra["lama_proses"] == 116
    assert two.case(1105).extra["lama_proses"] == 125
    assert _site(_data(D2 + dt.timedelta(days=30))).case(1105).extra["lama_proses"] == 125
    # not in the item: the case's document is the same whatever its Lama Proses
    assert "lama_proses" not in json.dumps(two.case(1161).document("pn-replika"))


def test_a_week_moves_most_open_cases_as_docs_replica_md_states():
    week = court_changes(cases=2000, seed=1, before=TODAY, after=TODAY + dt.timedelta(days=7))
    assert (len(week.new_cases), len(week.changed_documents), len(week.changed_list_rows)) == (
        8,
        61,
        23,
    )
    assert week.cases_before == 2000
    assert len(week.refetch) == 69
