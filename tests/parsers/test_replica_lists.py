"""The one list parser on the replica's list pages (the same markup as the real page)."""

from __future__ import annotations

import json

from harvest.sipp import parse_list_page
from tests.support.pages import FIXTURES, read_fixture

BASE = "http://127.0.0.1:8800/"
MANIFEST = json.loads((FIXTURES / "replica" / "manifest.json").read_text(encoding="utf-8"))


def test_pn_all_cases_page_1():
    page = parse_list_page(read_fixture("replica/pn-list-all-page1.html"), BASE)
    assert page.title == "DATA SELURUH PERKARA"
    assert page.total_cases == 300
    assert len(page.rows) == 20
    assert not page.no_data
    assert page.rows[0].nomor_perkara == MANIFEST["pn"]["lists"]["all"]["first"]
    dates = [r.registered or "" for r in page.rows]
    assert dates == sorted(dates, reverse=True)  # newest registration first
    assert all(r.detail_url.startswith(BASE + "show_detil/") for r in page.rows)
    assert page.page_url_template is not None
    assert page.page_url_template.startswith(BASE + "list_perkara/page/{page}/")
    assert page.page_url_template.endswith("/key/col/2")
    labels = [m.label for m in page.menu]
    assert labels == [
        "Perdata Gugatan",
        "Perdata Permohonan",
        "Perdata Gugatan Sederhana",
        "Perdata Gugatan Bantahan",
        "Pidana Biasa",
        "Pidana Singkat",
        "Pidana Anak",
        "Perkara Lalu Lintas",
        "Praperadilan",
    ]
    assert all("/list_perkara/type/" in m.url for m in page.menu)
    row = page.rows[0]
    assert set(row.data) == {
        "nomor_perkara",
        "tanggal_register",
        "klasifikasi_perkara",
        "para_pihak",
        "status_perkara",
        "lama_proses",
    }
    assert isinstance(row.data["lama_proses"], int)


def test_pn_tilang_list_columns():
    page = parse_list_page(read_fixture("replica/pn-list-tilang-page1.html"), BASE)
    assert page.total_cases == MANIFEST["pn"]["lists"]["tilang"]["total"]
    assert len(page.rows) == 20
    row = page.rows[0]
    assert row.nomor_perkara == MANIFEST["pn"]["lists"]["tilang"]["first"]
    assert row.registered is None
    assert "/Pid.C/" in row.nomor_perkara
    assert len(row.data["nomor_pembayaran"]) == 15
    assert row.data["nomor_seri_tilang"][0].isalpha()
    assert set(row.data) == {
        "nomor_perkara",
        "nomor_seri_tilang",
        "nomor_pembayaran",
        "tanda_nomor_kendaraan",
        "pelanggar",
        "tanggal_sidang",
        "ruang_sidang",
        "putusan",
    }


def test_past_the_last_page():
    page = parse_list_page(read_fixture("replica/pn-list-past-end.html"), BASE)
    assert page.no_data
    assert page.rows == []
    assert page.total_cases == 300


def test_pa_list_and_menu_quirk():
    page = parse_list_page(read_fixture("replica/pa-list-all-page1.html"), BASE)
    assert page.total_cases == 120
    assert page.rows[0].nomor_perkara == MANIFEST["pa"]["lists"]["all"]["first"]
    menu = {m.label: m.url for m in page.menu}
    # the PA top-level entries are linked as /list_perkara/<enc>: rewritten to /type/
    assert menu["Perdata Gugatan"].startswith(BASE + "list_perkara/type/")
    assert menu["Perdata Permohonan"].startswith(BASE + "list_perkara/type/")
    assert list(menu) == [
        "Perdata Gugatan",
        "Perdata Permohonan",
        "Praperadilan Jinayat",
        "Register Perkara Jinayat",
        "Register Perkara Jinayat Anak",
    ]
    assert all(
        p["label"] == "Error, Pihak Not Found!!!" for r in page.rows for p in r.data["para_pihak"]
    )
