"""Sub-path installs and the court types (PTUN, military) of the replica, over HTTP."""

from __future__ import annotations

import re

import requests

from reference.sipp_site.court import make_court
from reference.sipp_site.model import CourtData
from reference.sipp_site.testing import running_replica
from tests.support.pages import detail_tokens


def test_sub_path_install_prefixes_every_link_and_refuses_the_rest() -> None:
    with (
        running_replica(cases=40, seed=5, extra_args=["--base-path", "sipp"]) as rep,
        requests.Session() as http,
    ):
        assert rep.url == f"http://127.0.0.1:{rep.port}/sipp/"
        root = f"http://127.0.0.1:{rep.port}/"
        assert http.get(root + "list_perkara").status_code == 404
        html = http.get(rep.url).text
        assert "Total : 40 Perkara" in html
        hrefs = re.findall(r'href="(http[^"]+)"', html)
        assert len(hrefs) > 20
        assert all(h.startswith(rep.url) for h in hrefs)
        token = detail_tokens(html)[0]
        r = http.get(rep.url + "show_detil/" + token, allow_redirects=False)
        assert r.status_code == 302
        assert r.headers["Location"] == rep.url + "detil_perkara"
        page = http.get(rep.url + "detil_perkara").text
        loads = re.findall(r"\.load\('([^']+)'\)", page)
        assert len(loads) == 33
        assert all(u.startswith(rep.url + "show_") for u in loads)
        riwayat = next(u for u in loads if "/show_riwayat_perkara/" in u)
        assert "<td>Pendaftaran Perkara</td>" in http.get(riwayat).text


def test_military_and_ptun_courts_render_their_branches() -> None:
    mil = CourtData(make_court("militer"), seed=1, cases=80)
    kinds = {mil.case(i).alur.id for i in range(len(mil))}
    assert kinds == {111, 124}
    number = mil.case(0).nomor_perkara
    assert re.fullmatch(r"\d+-(K|PH)/PM\.III-16/AD/[IVX]+/\d{4}", number), number
    opinion = next(mil.case(i) for i in range(len(mil)) if mil.case(i).alur.id == 124)
    du = opinion.case_data["data_umum"]
    assert du["berkas_dari"] == "POMDAM XIV/HSN"
    assert [p["label"] for p in du["pihak"]] == ["Oditur Militer", "Terdakwa", "Tersangka"]
    assert "kuasa" not in du
    crime = next(mil.case(i) for i in range(len(mil)) if mil.case(i).alur.id == 111)
    assert crime.case_data["data_umum"]["informasi"]["tanggal_kejadian"] is None
    ptun = CourtData(make_court("ptun"), seed=1, cases=30)
    case = ptun.case(0)
    assert case.nomor_perkara.endswith("/PTUN.RPK")
    assert "gugatan" in case.case_data["data_umum"]
    assert "petitum" not in case.case_data["data_umum"]
    assert "nilai_sengketa" not in case.case_data["data_umum"]
    assert all(t["slug"] != "mediasi" for i in range(len(ptun)) for t in ptun.case(i).tab_list)


def test_keyword_search_shows_the_keyword_and_pages_through_the_hits() -> None:
    from harvest.sipp import parse_list_page

    with running_replica(cases=300, seed=5) as rep, requests.Session() as http:
        first = http.post(rep.url + "list_perkara/search", data={"search_keyword": "Pid.B"})
        assert 'name="search_keyword" value="Pid.B"' in first.text
        page1 = parse_list_page(first.text, rep.url + "list_perkara/search")
        assert page1.total_cases is not None
        assert page1.total_cases > 20
        assert all("/Pid.B/" in r.nomor_perkara for r in page1.rows)
        assert page1.page_url_template is not None
        assert "/key/" not in page1.page_url_template
        second = http.get(page1.page_url_template.format(page=2))
        page2 = parse_list_page(second.text, second.url)
        assert page2.total_cases == page1.total_cases
        assert page2.rows
        assert all("/Pid.B/" in r.nomor_perkara for r in page2.rows)
        assert not {r.nomor_perkara for r in page1.rows} & {r.nomor_perkara for r in page2.rows}
