"""The served replica behaves like a SIPP site: lists, tokens, one-shot sessions, fragments."""

from __future__ import annotations

import datetime as dt
import json
import re
import socket

import pytest
import requests

from reference.sipp_site.court import make_court
from reference.sipp_site.formats import date_en, date_id, decimal_money, rupiah
from reference.sipp_site.model import CourtData
from reference.sipp_site.testing import running_replica
from tests.support.pages import PAGE_TEMPLATE, detail_tokens
from tests.support.waiting import wait_until

HEADER_NUMBER = re.compile(
    r'<table id="tableinfo"[^>]*>.*?</tr>\s*<tr>\s*<td>([^<]*)</td>', re.DOTALL
)


def _data() -> CourtData:
    return CourtData(make_court("pn"), seed=7, cases=300)


def _detail(http, base: str, token: str) -> requests.Response:
    return http.get(base + "show_detil/" + token)


def test_list_page_has_the_real_structure(replica, http):
    html = http.get(replica.url).text
    assert '<div class="total_perkara">' in html
    assert "Total : 300 Perkara" in html
    assert "var totalPage = '300';" in html
    assert "<b>DATA SELURUH PERKARA</b>" in html
    assert 'table id="tablePerkaraAll"' in html
    assert html.count("[<a href=") == 20
    assert '<div class="cssmenu"><ul><li class="has-sub"><a href="' + replica.url in html
    assert "SIPP Lokal Versi 5.5.0" in html
    assert PAGE_TEMPLATE.search(html)
    # newest registration first: the first row is the last generated case
    data = _data()
    newest = data.case(len(data) - 1)
    first_row = re.search(r"<tr><td>1</td><td>([^<]*)</td><td[^>]*>([^<]*)</td>", html)
    assert first_row.group(1) == newest.nomor_perkara_raw
    assert first_row.group(2) == date_en(newest.registered)


def test_paging_and_past_the_last_page(replica, http):
    html = http.get(replica.url).text
    prefix, suffix = PAGE_TEMPLATE.search(html).groups()
    page15 = http.get(f"{prefix}15{suffix}").text
    assert page15.count("[<a href=") == 20
    assert "<tr><td>281</td>" in page15
    page16 = http.get(f"{prefix}16{suffix}").text
    assert "Data Tidak diTemukan" in page16
    assert "[<a href=" not in page16
    # the old-scraper form without arguments lists all cases too
    assert http.get(replica.url + "list_perkara/page/2").text.count("[<a href=") == 20


def test_every_menu_flow_lists_its_cases(replica, http):
    html = http.get(replica.url).text
    links = re.findall(r'href="([^"]*list_perkara/type/[^"]+)">([^<]+)<', html)
    titles = {t for _, t in links}
    assert {"Pidana Biasa", "Perkara Lalu Lintas", "Perdata Gugatan", "Pidana Anak"} <= titles
    data = _data()
    for url, title in links:
        page = http.get(url)
        assert page.status_code == 200
        count = int(re.search(r"var totalPage = '(\d+)'", page.text).group(1))
        alur = {a.menu: a.id for a in data.court.alur}.get(title)
        assert count == (data.count(alur) if alur else 0), title
        if title == "Perkara Lalu Lintas":
            assert "Nomor Seri Tilang / No Pembayaran" in page.text
        if count == 0:
            assert "Data Tidak diTemukan" in page.text


def test_tokens_change_on_every_render_and_all_work(replica, http):
    first = detail_tokens(http.get(replica.url).text)
    second = detail_tokens(http.get(replica.url).text)
    assert len(first) == len(second) == 20
    assert not set(first) & set(second)
    a = HEADER_NUMBER.search(_detail(http, replica.url, first[0]).text).group(1)
    b = HEADER_NUMBER.search(_detail(http, replica.url, second[0]).text).group(1)
    assert a == b


def test_detail_value_is_consumed_once(replica, http):
    token = detail_tokens(http.get(replica.url).text)[2]
    r = http.get(replica.url + "show_detil/" + token, allow_redirects=False)
    assert r.status_code == 302
    assert r.headers["Location"] == replica.url + "detil_perkara"
    page = http.get(replica.url + "detil_perkara")
    assert "INFORMASI DETAIL PERKARA" in page.text
    again = http.get(replica.url + "detil_perkara", allow_redirects=False)
    assert again.status_code == 302
    assert again.headers["Location"] == replica.url + "list_perkara"
    # a tab without a stored value is CodeIgniter's 404
    missing = http.get(replica.url + "riwayat_perkara")
    assert missing.status_code == 404
    assert "<title>404 Page Not Found</title>" in missing.text


def test_interleaved_show_requests_serve_the_wrong_case(replica, http):
    tokens = detail_tokens(http.get(replica.url).text)
    data = _data()
    want_a = data.case(len(data) - 1).nomor_perkara_raw
    want_b = data.case(len(data) - 2).nomor_perkara_raw
    for tok in tokens[:2]:
        assert (
            http.get(replica.url + "show_detil/" + tok, allow_redirects=False).status_code == 302
        )
    got = HEADER_NUMBER.search(http.get(replica.url + "detil_perkara").text).group(1)
    assert got == want_b != want_a  # the second show_detil clobbered the first
    assert http.get(replica.url + "detil_perkara", allow_redirects=False).status_code == 302


def test_detail_tabs_and_fragments_equal_the_truth(replica, http, tmp_path):
    truth = {}
    for line in replica.truth_path(tmp_path).read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        truth[doc["source_id"]] = doc
    tokens = detail_tokens(http.get(replica.url).text)
    for tok in tokens[:6]:
        page = _detail(http, replica.url, tok).text
        number = HEADER_NUMBER.search(page).group(1)
        doc = truth[" ".join(number.split())]
        lis = re.findall(r"<a href=\"#(tabs\d+)\" id= 'tabInfo'[^>]*>([^<]+)</a>", page)
        assert [label.strip() for _, label in lis[1:]] == [t["label"] for t in doc["case"]["tabs"]]
        loads = dict(re.findall(r"\$\('#(tabs\d+)'\)\.load\('([^']+)'\)", page))
        assert len(loads) > len(lis)  # a .load line for every route, shown or not
        for div, _label in lis[1:]:
            slug = loads[div].split("/show_", 1)[1].split("/", 1)[0]
            frag = http.get(loads[div])
            assert frag.status_code == 200
            assert frag.text.rstrip().endswith(
                '<script type="text/javascript">closeLoading();</script>'
            )
            assert "<html" not in frag.text
            if slug == "riwayat_perkara":
                rows = doc["tabs"]["riwayat_perkara"]
                assert frag.text.count("<tr>") == len(rows) + 1


def _case_with(data: CourtData, slug: str) -> int:
    return next(i for i in range(len(data) - 1, -1, -1) if slug in data.case(i).tabs)


def test_fragments_of_a_never_warmed_session_lack_party_labels(replica):
    data = _data()
    index = next(
        i
        for i in range(len(data) - 1, -1, -1)
        if data.case(i).tabs.get("putusan", {}).get("pemberitahuan_putusan")
    )
    case = data.case(index)
    with requests.Session() as warm:
        html = warm.get(replica.url).text
        # find the token of that case on its list page
        pos = len(data) - 1 - index
        page = pos // 20 + 1
        prefix, suffix = PAGE_TEMPLATE.search(html).groups()
        listing = warm.get(f"{prefix}{page}{suffix}").text
        row = listing.split(f"<td>{case.nomor_perkara_raw}</td>", 1)[1]
        token = detail_tokens(row)[0]
        good = warm.get(replica.url + "show_putusan/" + token).text
    label = case.tabs["putusan"]["pemberitahuan_putusan"][0]["status"]
    assert label in good
    assert "Error, Pihak Not Found!!!" not in good
    with requests.Session() as cold:  # a new cookie jar resuming a pending tab
        bad = cold.get(replica.url + "show_putusan/" + token).text
        assert "Error, Pihak Not Found!!!" in bad
        assert f"<td>{label}</td>" not in bad
        cold.get(replica.url)  # one full page warms the session
        assert (
            "Error, Pihak Not Found!!!" not in cold.get(replica.url + "show_putusan/" + token).text
        )


def test_ci_session_is_bound_to_the_user_agent_php_session_is_not(replica):
    with requests.Session() as s:
        s.headers["User-Agent"] = "agent-one"
        html = s.get(replica.url).text
        prefix, suffix = PAGE_TEMPLATE.search(html).groups()
        enc = suffix.split("/")[1]
        newest = re.search(r"<tr><td>1</td><td>([^<]*)</td>", html).group(1)
        s.get(replica.url + f"list_perkara/sort/2/{enc}/key")  # toggles to ASC
        asc = s.get(f"{prefix}1{suffix}").text
        oldest = re.search(r"<tr><td>1</td><td>([^<]*)</td>", asc).group(1)
        assert oldest != newest
        token = detail_tokens(html)[0]
        s.get(replica.url + "show_detil/" + token, allow_redirects=False)
        s.headers["User-Agent"] = "agent-two"
        # the one-shot value (PHP session) survives the UA change
        assert "INFORMASI DETAIL PERKARA" in s.get(replica.url + "detil_perkara").text
        # the sort order (ci_session) does not
        desc = s.get(f"{prefix}1{suffix}").text
        assert re.search(r"<tr><td>1</td><td>([^<]*)</td>", desc).group(1) == newest


def test_tokens_stay_valid_after_a_restart_with_the_same_seed(replica, http):
    token = detail_tokens(http.get(replica.url).text)[0]
    with running_replica(cases=300, seed=7) as again, requests.Session() as s:
        page = s.get(again.url + "show_detil/" + token)
        assert "INFORMASI DETAIL PERKARA" in page.text
    with running_replica(cases=300, seed=8) as other, requests.Session() as s:
        r = s.get(other.url + "show_detil/" + token, allow_redirects=False)
        assert s.get(other.url + "detil_perkara", allow_redirects=False).status_code == 302
        assert r.status_code == 302


def test_pa_variant_page(pa_replica, http):
    html = http.get(pa_replica.url).text
    assert "PENGADILAN AGAMA REPLIKA" in html
    assert '<font color="red">Error, Pihak Not Found!!!</font>:</br>Disamarkan' in html
    quirk = re.search(
        r'href="([^"]*list_perkara/(?!type/)[A-Za-z0-9=]{40,})">Perdata Gugatan<', html
    )
    assert quirk, "top-level menu entry without /type/"
    assert http.get(quirk.group(1)).status_code == 404
    fixed = quirk.group(1).replace("/list_perkara/", "/list_perkara/type/")
    assert "DAFTAR PERKARA PERDATA GUGATAN" in http.get(fixed).text


def test_live_registration_shifts_rows(tmp_path):
    with running_replica(
        cases=45, seed=2, live=True, extra_args=["--live-interval", "0.3"]
    ) as rep:
        s = requests.Session()
        first = s.get(rep.url).text
        start = int(re.search(r"var totalPage = '(\d+)'", first).group(1))
        wait_until(
            lambda: rep.registered() >= 2, timeout=30, what="the replica registers 2 live cases"
        )
        later = s.get(rep.url).text
        now = int(re.search(r"var totalPage = '(\d+)'", later).group(1))
        assert now >= start + 2
        top = re.search(r"<tr><td>1</td><td>([^<]*)</td><td[^>]*>([^<]*)</td>", later)
        assert top.group(2) == "19 Jun 2024"
        k = now - 45
        truth = rep.write_truth(tmp_path / "live.jsonl", registered=k)
        ids = {json.loads(line)["source_id"] for line in truth.read_text().splitlines()}
        assert len(ids) == now
        assert " ".join(top.group(1).split()) in ids


def test_a_large_court_starts_and_serves_its_last_page():
    with running_replica(cases=100_000, seed=1) as rep, requests.Session() as s:
        html = s.get(rep.url).text
        assert "Total : 100.000 Perkara" in html
        prefix, suffix = PAGE_TEMPLATE.search(html).groups()
        last = s.get(f"{prefix}5000{suffix}").text
        assert "<tr><td>100000</td>" in last
        assert "Data Tidak diTemukan" in s.get(f"{prefix}5001{suffix}").text


def test_detailed_search_filters_by_flow_and_date_and_is_bound_to_the_agent(replica):
    data = _data()
    want = [
        i
        for i in range(len(data))
        if data.alur_id(i) == 111 and data.case(i).registered.year == 2022
    ]
    form = {
        "id_alur_perkara": "111",
        "tgl_pendaftaran_select": "6",
        "from_tgl_pendaftaran": "01/01/2022",
        "to_tgl_pendaftaran": "31/12/2022",
        "id_proses": "-1",
    }
    with requests.Session() as s:
        s.headers["User-Agent"] = "agent-one"
        first = s.post(replica.url + "list_perkara/search_detail", data=form).text
        assert f"var totalPage = '{len(want)}';" in first
        numbers = re.findall(r"<tr><td>\d+</td><td>([^<]*)</td>", first)
        assert numbers[0] == data.case(want[-1]).nomor_perkara_raw  # newest first
        assert "list_perkara/search_detail/page/'+pageNumber" in first
        page2 = s.get(replica.url + "list_perkara/search_detail/page/2/x/key/col/2").text
        expected = [data.case(i).nomor_perkara_raw for i in reversed(want)][20:40]
        assert re.findall(r"<tr><td>\d+</td><td>([^<]*)</td>", page2) == expected
        # the filter lives in ci_session: another User-Agent pages through every case
        s.headers["User-Agent"] = "agent-two"
        other = s.get(replica.url + "list_perkara/search_detail/page/2/x/key/col/2").text
        assert "var totalPage = '300';" in other
        # the stock bug: without id_proses the SQL breaks (a database error page with 200)
        del form["id_proses"]
        broken = s.post(replica.url + "list_perkara/search_detail", data=form)
        assert broken.status_code == 200
        assert "A Database Error Occurred" in broken.text


def test_search_popup_and_detention_popup(replica, http):
    html = http.get(replica.url).text
    enc = re.search(r'name="enc" value="([^"]+)"', html).group(1)
    popup = http.get(replica.url + "search/" + enc).text
    assert 'name="id_proses"' in popup
    assert 'action="' + replica.url + 'list_perkara/search_detail"' in popup
    for token in detail_tokens(html):
        page = _detail(http, replica.url, token).text
        m = re.search(r"detilPenahanan\('([^']+)' , '([^']+)'\)", page)
        if m:
            break
    else:
        pytest.fail("no case with a detention link on the first list page")
    number = HEADER_NUMBER.search(page).group(1)
    r = http.get(replica.url + f"penahanan/{m.group(1)}/{m.group(2)}")
    assert r.url == replica.url + "detil_penahanan"
    assert f"<td>{number}</td>" in r.text
    assert "<td>Penyidik</td>" in r.text
    assert http.get(replica.url + "detil_penahanan").status_code == 404  # one-shot too


def test_gzip_when_accepted(replica):
    zipped = requests.get(replica.url, headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    plain = requests.get(replica.url, headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in plain.headers
    assert zipped.text.count("[<a href=") == plain.text.count("[<a href=") == 20


def test_malformed_requests_get_400_and_the_server_lives_on(replica, http):
    with socket.create_connection(("127.0.0.1", replica.port), timeout=5) as sock:
        sock.sendall(b"NONSENSE\r\n\r\n")
        assert sock.recv(100).startswith(b"HTTP/1.1 400 Bad Request")
    with socket.create_connection(("127.0.0.1", replica.port), timeout=5) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n")
        assert sock.recv(100).startswith(b"HTTP/1.1 400")
    assert http.get(replica.url + "show_detil/%3D%3D", allow_redirects=False).status_code == 302
    assert http.get(replica.url + "detil_perkara", allow_redirects=False).headers["Location"] == (
        replica.url + "list_perkara"
    )
    assert http.get(replica.url + "no/such/page").status_code == 404
    assert "Total : 300 Perkara" in http.get(replica.url).text


def test_hearing_list_of_a_day_and_its_popup(replica, http):
    data = _data()
    day = "2024-06-13"
    want = sorted(
        data.case(i).nomor_perkara
        for i in range(len(data))
        for row in data.case(i).tabs.get("jadwal_sidang", [])
        if row["tanggal"] == day
    )
    assert want, "the fixture court has hearings on that day"
    html = http.get(replica.url + "list_jadwal_sidang/search/1/13/06/2024").text
    assert "<b>JADWAL SIDANG - Kamis, 13 Jun. 2024</b>" in html
    shown = re.findall(
        r'<tr><td>\d+</td><td align="center">Kamis, 13 Jun\. 2024</td><td>([^<]*)</td>', html
    )
    assert sorted(" ".join(n.split()) for n in shown) == want
    # ORDER BY noPerkara DESC (a fresh session's order), as typed
    assert shown == sorted(shown, key=lambda n: n.rstrip().casefold(), reverse=True)
    token = re.search(r"detilSidang\('([^']+)'\)", html).group(1)
    popup = http.get(replica.url + "detil_jadwal_sidang/" + token)
    assert popup.url == replica.url + "detil_jadwal_sidang"
    assert "Hari dan Tanggal Sidang</font></td><td>Kamis, 13 Jun. 2024</td>" in popup.text
    assert http.get(replica.url + "list_jadwal_sidang/search/1/31/02/2024").status_code == 404


def _token_of(http, base: str, data: CourtData, index: int) -> str:
    """The show_detil token of case ``index`` from its row on the all-cases list."""
    html = http.get(base).text
    prefix, suffix = PAGE_TEMPLATE.search(html).groups()
    page = (len(data) - 1 - index) // 20 + 1
    listing = http.get(f"{prefix}{page}{suffix}").text
    row = listing.split(f"<td>{data.case(index).nomor_perkara_raw}</td>", 1)[1]
    return detail_tokens(row)[0]


def test_values_are_printed_in_the_site_formats(replica, http):
    data = _data()
    civil = next(
        i for i in range(len(data)) if "nilai_sengketa" in data.case(i).case_data["data_umum"]
    )
    case = data.case(civil)
    token = _token_of(http, replica.url, data, civil)
    detail = _detail(http, replica.url, token).text
    du = case.case_data["data_umum"]
    assert f"<td class='wrapword'>{decimal_money(du['nilai_sengketa'])}</td>" in detail
    registered = date_id(case.registered)
    assert f"Tanggal Pendaftaran</font></td>\n\t\t\t\t<td>{registered}</td>" in detail
    biaya = http.get(replica.url + "show_biaya_perkara/" + token).text
    first = case.tabs["biaya_perkara"][0]["transaksi"][0]
    assert f'<td style="text-align: right;">{rupiah(first["pemasukan"])}</td>' in biaya
    assert re.search(r"Rp\. \d{1,3}(\.\d{3})+</td>", biaya)
    riwayat = http.get(replica.url + "show_riwayat_perkara/" + token).text
    assert f"<td>{registered}</td><td>Pendaftaran</td><td>Pendaftaran Perkara</td>" in riwayat

    criminal = next(i for i in range(len(data)) if data.case(i).tabs.get("barang_bukti"))
    case = data.case(criminal)
    token = _token_of(http, replica.url, data, criminal)
    http.get(replica.url)  # a full page first: fragments then have labels
    bb = http.get(replica.url + "show_barang_bukti/" + token).text
    item = case.tabs["barang_bukti"][0]
    received = dt.date.fromisoformat(item["tanggal_penerimaan"]).strftime("%d/%m/%Y")
    assert re.search(
        r'Tanggal Penerimaan</font></td>\s*<td style="padding:0px;padding-left:5px;">\s*'
        + re.escape(received)
        + r"\s*</td>",
        bb,
    )
    assert bb.count('<table id="tableDetilPerkara"') == len(case.tabs["barang_bukti"])
