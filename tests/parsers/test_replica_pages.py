"""The parsers on pages saved from the replica (tests/fixtures/make_replica_fixtures.py).

Each saved case carries the replica's ground truth (``truth.json``): the parsers' output must
equal it exactly, and a few values a user would check are asserted by hand as well.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from harvest.sipp import (
    DetailPage,
    ListRow,
    case_part_data,
    page_error,
    parse_detail_page,
    parse_list_page,
    parse_tab,
)
from harvest.sipp.pailit import MENU_SLUG, SUB_SLUG_PREFIX, sub_page_links, sub_page_slug
from tests.support.pages import FIXTURES, read_fixture

REPLICA = FIXTURES / "replica"
BASE = "http://127.0.0.1:8800/"
MANIFEST = json.loads((REPLICA / "manifest.json").read_text(encoding="utf-8"))
CASE_NAMES = sorted(p.name for p in (REPLICA / "cases").iterdir())


def _variant(name: str) -> str:
    return name.split("-", 1)[0]


def _truth(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (REPLICA / "cases" / name / "truth.json").read_text(encoding="utf-8")
    )
    return data


def _detail(name: str) -> DetailPage:
    return parse_detail_page(
        read_fixture(f"replica/cases/{name}/detail.html"), BASE + "detil_perkara"
    )


def _row(name: str) -> ListRow:
    page = parse_list_page(read_fixture(f"replica/{_variant(name)}-list-picked.html"), BASE)
    number = _truth(name)["case"]["nomor_perkara_raw"]
    (row,) = [r for r in page.rows if r.nomor_perkara == number]
    return row


def _tab(name: str, slug: str):
    return parse_tab(slug, read_fixture(f"replica/cases/{name}/tab-{slug}.html"))


def test_every_case_type_and_tab_is_saved():
    kinds = {n.split("-")[1] for n in CASE_NAMES}
    assert {"pidana", "anak", "tilang", "gugatan", "permohonan", "sederhana", "jinayat"} <= kinds
    saved_tabs = {p.name for p in (REPLICA / "cases").glob("*/tab-*.html")}
    slugs = ("penetapan", "jadwal_sidang", "saksi", "mediasi", "penuntutan", "putusan",
             "banding", "kasasi", "biaya_perkara", "barang_bukti", "riwayat_perkara")  # fmt: skip
    for slug in slugs:
        assert f"tab-{slug}.html" in saved_tabs


@pytest.mark.parametrize("name", CASE_NAMES)
def test_case_part_equals_truth(name):
    truth = _truth(name)["case"]
    detail = _detail(name)
    assert detail.nomor_perkara == truth["nomor_perkara_raw"]
    assert case_part_data(truth["court"], _row(name), detail) == truth


@pytest.mark.parametrize("name", CASE_NAMES)
def test_every_tab_equals_truth(name):
    truth = _truth(name)
    available = [t["slug"] for t in truth["case"]["tabs"] if t["available"]]
    # the bankruptcy follow-up menu's sub pages are parts of their own (tab:pailit-sub_<x>)
    sub = [s for s in truth["tabs"] if s.startswith(SUB_SLUG_PREFIX)]
    assert sorted(available) == sorted(s for s in truth["tabs"] if s not in sub)
    if MENU_SLUG in available:
        menu = read_fixture(f"replica/cases/{name}/tab-{MENU_SLUG}.html")
        linked = [sub_page_slug(link.route) for link in sub_page_links(menu, BASE)]
        assert sorted(linked) == sorted(sub)
        assert len(sub) == 15
    else:
        assert sub == []
    for slug in available + sub:
        assert _tab(name, slug) == truth["tabs"][slug], slug


@pytest.mark.parametrize("name", CASE_NAMES)
def test_saved_pages_are_not_error_pages(name):
    folder = f"replica/cases/{name}"
    detail_html = read_fixture(f"{folder}/detail.html")
    number = _truth(name)["case"]["nomor_perkara"]
    assert page_error(detail_html, expect="detail", case_number=number) is None
    assert page_error(detail_html, expect="detail", case_number="999/Pid.B/1999/PN Rpk") == (
        "wrong case"
    )
    labels_missing = _detail(name).party_labels_missing
    assert labels_missing == (_variant(name) == "pa")
    for path in sorted((REPLICA / "cases" / name).glob("tab-*.html")):
        html = path.read_text(encoding="utf-8")
        assert page_error(html, expect="tab", party_labels_missing=labels_missing) is None


def test_pidana_values():
    name = "pn-pidana"
    case = case_part_data("pn-replika", _row(name), _detail(name))
    assert case["nomor_perkara"] == "8/Pid.B/2021/PN Rpk"
    header = case["header"]
    assert header["pihak_1"]["label"] == "Penuntut Umum"
    assert header["pihak_2"]["label"] == "Terdakwa"
    du = case["data_umum"]
    assert du["tanggal_pendaftaran"] == case["list_row"]["tanggal_register"]
    assert du["nomor_surat"].startswith("B-")
    assert du["dakwaan"].split("\n")[0] == "PERTAMA:"
    assert "nilai_sengketa" not in du
    assert "petitum" not in du
    # data_umum.php: the second party's lawyers (kuasa 2) and, for alur 111, Anak Korban
    assert du["kuasa"] == [{"label": "Penasihat Hukum Terdakwa", "rows": []}]  # none named
    assert du["pihak"][2] == {"label": "Anak Korban", "nama": []}
    assert [p["label"] for p in du["pihak"]] == ["Penuntut Umum", "Terdakwa", "Anak Korban"]
    assert du["pihak_dipublikasikan"] == "Ya"
    putusan = _tab(name, "putusan")
    assert putusan["tanggal_label"] == "Tanggal Putusan"
    assert "status_putusan" not in putusan
    (first,) = putusan["status_putusan_terdakwa"][:1]
    assert first["putusan"].startswith("Pidana Penjara Waktu Tertentu (")
    assert putusan["amar_putusan"].startswith("Menyatakan Terdakwa ")
    assert len(putusan["amar_putusan"].split("\n")) == 5
    kasasi = _tab(name, "kasasi")
    defendant = header["pihak_2"]["nama"][0]
    (pemohon,) = kasasi["pemohon"]
    assert pemohon["nama"] == defendant
    assert pemohon["keterangan"] == "Keterangan:"  # detil_kasasi.php prints the prefix always
    assert [p["status"] for p in kasasi["para_pihak"]] == ["Pemohon Kasasi", "Termohon Kasasi"]
    assert kasasi["para_pihak"][0]["nama"] == defendant
    assert [p["nama"] for p in kasasi["penerimaan_memori"]] == [defendant]
    assert len(kasasi["pemberitahuan_inzage"]) == 2
    # criminal verdicts: the per-party tables of Menerima / Kirim Salinan Putusan
    # a Perlindungan Anak case (jenis perkara 282/13 in the views): putusan_akhir.php prints
    # the first side's names as 'Data disamarkan' (lines 224-228, 378-382, 463-467)
    assert du["klasifikasi_perkara"] == "Perlindungan Anak"
    hidden = ["Data disamarkan"] * len(header["pihak_1"]["nama"])
    parties = [*hidden, *header["pihak_2"]["nama"]]
    assert [n["nama"] for n in putusan["pemberitahuan_putusan"]] == parties
    assert [n["nama"] for n in putusan["menerima_putusan"]] == parties
    assert [n["nama"] for n in putusan["kirim_salinan_putusan"]] == parties
    assert putusan["pemberitahuan_putusan"][0]["status"] == "Penuntut Umum 1"
    # ... and every name of the Penetapan and Saksi tabs (penetapan.php:37-42, saksi.php:25-29)
    assert {h["nama"] for h in _tab(name, "penetapan")["hakim"]} == {"Data disamarkan"}
    assert set(_tab(name, "saksi")) == {"Data disamarkan"}
    # the defence's objection ruled on by a putusan sela; putusan_sela.php:72-81 label all
    # three notices with the first party's label
    sela = _tab(name, "putusan_sela")
    assert sela["tanggal_putusan_sela"] == "2021-04-01"
    assert sela["amar_putusan_sela"].split("\n")[:2] == [
        "MENGADILI:",
        "Menolak keberatan Penasihat Hukum Terdakwa;",
    ]
    assert [n["kepada"] for n in sela["pemberitahuan"]] == [
        "Penuntut Umum",
        "Penuntut Umum",
        "Pihak Penuntut Umum",
    ]
    assert kasasi["nomor_putusan"] is None or " K/Pid/" in kasasi["nomor_putusan"]
    bb = _tab(name, "barang_bukti")
    assert len(bb) == 3
    assert all(item["tanggal_penerimaan"] == du["tanggal_pendaftaran"] for item in bb)
    assert bb[0]["tanggal_penyerahan"] == "2021-06-09"  # printed 09/06/2021
    assert bb[0]["tempat_penyerahan"] == "Kejaksaan Negeri Replika"
    assert [item["catatan"] for item in bb] == [None, None, None]  # the Catatan cells are empty
    assert [item["tanggal_penyerahan"] for item in bb] == ["2021-06-09", None, "2021-06-09"]
    assert bb[2]["nama_penerima"] == "TEGUH WIJAYA"
    assert _tab("pn-pidana-no-barang-bukti", "barang_bukti") == []
    riwayat = _tab(name, "riwayat_perkara")
    assert riwayat[0] == {
        "tanggal": du["tanggal_pendaftaran"],
        "tahapan": "Pendaftaran",
        "proses": "Pendaftaran Perkara",
    }
    tabs = [t["slug"] for t in case["tabs"]]
    assert tabs[0] == "penetapan"
    assert tabs[-1] == "riwayat_perkara"
    assert "jurusita_pengganti" not in _tab(name, "penetapan")


def test_gugatan_with_mediasi_values():
    name = "pn-gugatan"
    case = case_part_data("pn-replika", _row(name), _detail(name))
    du = case["data_umum"]
    assert case["header"]["pihak_1"]["label"] == "Penggugat"
    assert isinstance(du["nilai_sengketa"], int)
    assert du["nilai_sengketa"] % 1_000_000 == 0
    assert du["petitum"].startswith("PRIMAIR:\nMengabulkan gugatan Penggugat untuk seluruhnya;")
    assert [k["label"] for k in du["kuasa"]] == [
        "Kuasa Hukum Penggugat",
        "Kuasa Hukum Tergugat",
        "Kuasa Hukum Turut Tergugat",
    ]
    assert du["pihak"][2] == {
        "label": "Turut Tergugat",
        "nama": ["PT. BANK PERKREDITAN RAKYAT SEJAHTERA"],
    }
    assert du["prodeo"] in ("Ya", "Tidak")
    round_1 = _tab(name, "mediasi")[0]
    # the replica's decree number is the case number (which case is picked follows the seed)
    assert round_1["nomor_penetapan_mediator"] == case["nomor_perkara"]
    assert re.fullmatch(r"\d+/Pdt\.G/\d{4}/PN Rpk", round_1["nomor_penetapan_mediator"])
    assert round_1["jenis"] == "Mediasi"
    assert round_1["mediator"][0]["status"] in ("Hakim", "Non-Hakim")
    penetapan = _tab(name, "penetapan")
    assert [h["posisi"] for h in penetapan["hakim"]][:3] == [
        "Hakim Ketua",
        "Hakim Anggota",
        "Hakim Anggota",
    ]
    assert "jurusita_pengganti" in penetapan
    biaya = _tab(name, "biaya_perkara")
    first_stage = biaya[0]
    assert first_stage["tahap"] == "BIAYA TINGKAT PERTAMA"
    assert first_stage["transaksi"][0]["uraian"] == "Panjar Biaya Perkara"
    total = first_stage["total"]
    assert total["sisa"] == total["pemasukan"] - total["pengeluaran"]
    assert total["pemasukan"] == sum(t["pemasukan"] or 0 for t in first_stage["transaksi"])
    putusan = _tab(name, "putusan")
    assert putusan["putusan_verstek"] in ("Ya", "Tidak")
    assert isinstance(putusan["status_putusan"], str)
    assert putusan["amar_putusan"].split("\n")[0] == "MENGADILI:"
    assert putusan["amar_label"] == "Amar Putusan"
    assert "kirim_salinan_putusan" not in putusan  # civil verdicts print no Kirim Salinan row
    assert putusan["pemberitahuan_putusan"][0]["status"].startswith(("Penggugat 1", "Error"))


def test_permohonan_values():
    name = "pn-permohonan"
    case = case_part_data("pn-replika", _row(name), _detail(name))
    assert case["header"]["pihak_2"]["nama"] == []
    assert len(case["list_row"]["para_pihak"]) == 1
    assert case["data_umum"]["kuasa"] == [
        {"label": "Kuasa Hukum Pemohon", "rows": []},
        {"label": "Kuasa Hukum Termohon", "rows": []},
    ]
    assert case["data_umum"]["pihak"][1] == {"label": "Termohon", "nama": []}
    putusan_tab = next(t for t in case["tabs"] if t["slug"] == "putusan")
    assert putusan_tab == {"slug": "putusan", "label": "Penetapan", "available": True}
    putusan = _tab(name, "putusan")
    assert putusan["tanggal_label"] == "Tanggal Penetapan"
    # putusan_akhir.php: status 91 -> "Penetapan" labels and no Status Putusan row; alur < 100
    # always prints Putusan Verstek and Sumber Hukum, alur 2 no Nilai Ganti Kerugian
    assert putusan["amar_label"] == "Amar Penetapan"
    assert putusan["putusan_verstek"] == "Tidak"
    assert "status_putusan" not in putusan
    assert "nilai_ganti_kerugian" not in putusan
    assert "menerima_putusan" not in putusan
    assert [n["status"] for n in putusan["pemberitahuan_putusan"]] == ["Pemohon 1"]


def test_tilang_values():
    name = "pn-tilang"
    du = _detail(name).data["data_umum"]
    assert du["klasifikasi_perkara"] == "Lalu Lintas"
    # data_umum.php:52-97: Tanggal Surat but no Nomor Surat; the controller never sets
    # Tanggal Penindakan, Jenis Surat Tilang or Nomor Pembayaran; an empty Dakwaan row
    assert du["tanggal_surat"] == "2019-06-27"
    assert "nomor_surat" not in du
    assert du["dakwaan"] is None
    assert du["ditindak_oleh"] == "Sat Lantas Polres Replika"
    assert du["tanggal_penindakan"] is None
    assert du["jenis_surat_tilang"] is None
    assert du["nomor_pembayaran"] is None
    assert du["pihak"] == [
        {"label": "Terdakwa", "nama": [_detail(name).data["header"]["pihak_2"]["nama"][0]]}
    ]
    assert "kuasa" not in du
    assert _detail(name).data["header"]["pihak_1"] is None
    putusan = _tab(name, "putusan")
    # alur 114: no pihakke 1 table under Pemberitahuan / Menerima / Kirim Salinan Putusan
    offender = du["pihak"][0]["nama"][0]
    for key in ("pemberitahuan_putusan", "menerima_putusan", "kirim_salinan_putusan"):
        assert [n["status"] for n in putusan[key]] == ["Terdakwa 1"], key
        assert putusan[key][0]["nama"] == offender
    assert putusan["putusan_verstek"] in ("Ya", "Tidak")
    assert "sumber_hukum" not in putusan
    assert putusan["status_putusan_terdakwa"][0]["putusan"].startswith("Denda Rp.")
    assert _tab(name, "jadwal_sidang")[0]["jam"] == "08:00 s/d Selesai"


def test_anak_diversi_is_fetched_and_amar_hidden():
    detail = _detail("pn-anak")
    diversi = [t for t in detail.tabs if t.slug == "diversi"]
    assert len(diversi) == 1
    assert diversi[0].available is True  # redir_diversi -> /diversi works in the stock app
    assert diversi[0].url.startswith(BASE + "show_diversi/")
    assert all(t.available for t in detail.tabs)
    (record,) = _tab("pn-anak", "diversi")
    assert record["kesepakatan"] in (
        "Sepakat Melaksanakan Diversi",
        "Tidak Sepakat Melaksanakan Diversi",
    )
    assert len(record["pembimbing_kemasyarakatan"]) == 1
    assert _tab("pn-anak", "putusan")["amar_putusan"] == "Disamarkan"
    assert {"label": "Anak Korban", "nama": []} in detail.data["data_umum"]["pihak"]
    # detil_perkara.php:2-7/96: a child case with diversi data lists no Jadwal Sidang
    assert "jadwal_sidang" not in [t.slug for t in detail.tabs]


def test_tab_urls_are_absolute_load_urls():
    detail = _detail("pn-gugatan")
    by_slug = {t.slug: t for t in detail.tabs}
    assert by_slug["riwayat_perkara"].label == "Riwayat Perkara"
    for tab in detail.tabs:
        assert tab.url.startswith(f"{BASE}show_{tab.slug}/")


def test_pa_case_keeps_error_labels():
    name = "pa-gugatan"
    case = case_part_data("pa-replika", _row(name), _detail(name))
    error = "Error, Pihak Not Found!!!"
    assert case["header"]["pihak_1"] == {"label": error, "nama": ["Disamarkan"]} or (
        case["header"]["pihak_1"]["label"] == error
    )
    assert all(p["label"] == error for p in case["list_row"]["para_pihak"])
    assert all(k["label"] == error for k in case["data_umum"]["kuasa"])
    assert "nilai_sengketa" not in case["data_umum"]
    notices = _tab(name, "putusan")["pemberitahuan_putusan"]
    assert notices
    assert all(n["status"].startswith(error + " ") for n in notices)  # + urutan


def test_cold_session_fragment_is_a_session_error():
    html = read_fixture("replica/errors/tab-putusan-cold-session.html")
    assert page_error(html, expect="tab") == "session not warmed: party labels missing"


@pytest.mark.parametrize(
    ("fixture", "reason"),
    [
        ("ci-404.html", "404 page"),
        ("ci-db-error.html", "database error"),
        ("ci-general-error.html", "application error"),
        ("tab-perkara-not-found.html", "perkara not found"),
        ("js-challenge.html", "js challenge"),
    ],
)
@pytest.mark.parametrize("expect", ["list", "detail", "tab"])
def test_replica_error_pages(fixture, reason, expect):
    assert page_error(read_fixture(f"replica/errors/{fixture}"), expect=expect) == reason


@pytest.mark.parametrize("fixture", ["apache-500.html", "nginx-502.html"])
def test_server_error_bodies_are_not_pages(fixture):
    html = read_fixture(f"replica/errors/{fixture}")
    assert page_error(html, expect="list") == "not a list page"
    assert page_error(html, expect="detail") == "not a detail page"
    assert page_error(html, expect="tab") == "full page instead of tab"


def test_php_notice_before_a_valid_replica_page():
    notice = (
        '<div style="border:1px solid #990000;padding-left:20px;margin:0 0 10px 0;">'
        "<h4>A PHP Error was encountered</h4><p>Severity: Notice</p></div>"
    )
    html = notice + read_fixture("replica/cases/pn-pidana/detail.html")
    assert page_error(html, expect="detail") == "php error"


def test_lama_proses_is_parsed_but_kept_out_of_the_case_part():
    # "N Hari" grows daily for an open case: in the item it would re-ship every open case daily
    row = _row("pn-gugatan-open")
    assert isinstance(row.data["lama_proses"], int)
    data = case_part_data("pn-replika", row, _detail("pn-gugatan-open"))
    assert data["list_row"] is not None
    assert "lama_proses" not in data["list_row"]
    assert data["list_row"]["tanggal_register"] == row.registered
