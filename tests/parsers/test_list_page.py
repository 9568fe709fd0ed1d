from __future__ import annotations

import pytest

from harvest.sipp import ListRow, MenuEntry, ParseError, parse_list_page
from harvest.sipp.list_page import listing_url
from harvest.sipp.warnings import ParseWarning, collect_warnings
from tests.support.pages import FIXTURES

GOLDEN = FIXTURES / "golden"

BASE = "https://sipp.pa-metro.go.id/"
TOKEN_1 = (
    "TThOTURDa1pCbWJDUFd3cDBKajI3VUw2ZUVlMVV6bUVsTCtUbUpGYVFVc3ZpcXdVcVpLeHRLMms1RFV3dGZjZHZPNHBt"
    "K1ludjI1YXIvbFZBVXVpckE9PQ=="
)
LIST_ENC = (
    "UW10bElHOEFiOWdHU3Y2MU1wTkRqYW44OFpzRE1PMURDd1F2QXJVdVJ3c0sxMEg1TUcxTUlmcmZObW9vcElMMXBrREkw"
    "UUl1RFhET1Y1blJOZE9GdWc9PQ=="
)


def test_real_page_rows(real_list_html):
    page = parse_list_page(real_list_html, BASE)
    assert page.title == "DATA SELURUH PERKARA"
    assert [r.nomor_perkara for r in page.rows] == [
        "206/Pdt.G/2024/PA.Mt",
        "34/Pdt.P/2024/PA.Mt",
        "31/Pdt.P/2024/PA.Mt",
        "193/Pdt.G/2024/PA.Mt",
        "192/Pdt.G/2024/PA.Mt",
    ]
    assert [r.registered for r in page.rows] == [
        "2024-05-29",
        "2024-05-28",
        "2024-05-17",
        "2024-05-17",
        "2024-05-16",
    ]
    first = page.rows[0]
    assert isinstance(first, ListRow)
    assert first.detail_url == BASE + "show_detil/" + TOKEN_1
    assert first.data["klasifikasi_perkara"] == "Cerai Gugat"
    assert first.data["status_perkara"] == "Sidang pertama"
    assert first.data["lama_proses"] == 21
    assert first.data == {
        "nomor_perkara": "206/Pdt.G/2024/PA.Mt",
        "tanggal_register": "2024-05-29",
        "klasifikasi_perkara": "Cerai Gugat",
        "para_pihak": [
            {"label": "Error, Pihak Not Found!!!", "nama": ["Disamarkan"]},
            {"label": "Error, Pihak Not Found!!!", "nama": ["Disamarkan"]},
        ],
        "status_perkara": "Sidang pertama",
        "lama_proses": 21,
    }
    assert page.rows[3].data["status_perkara"] == "Minutasi"
    assert page.rows[1].data["klasifikasi_perkara"] == "Pengesahan Perkawinan/Istbat Nikah"
    assert not page.no_data


def test_real_page_parties_keep_error_labels_and_split_sides(real_list_html):
    page = parse_list_page(real_list_html, BASE)
    gugatan, permohonan = page.rows[0], page.rows[1]
    assert gugatan.data["para_pihak"] == [
        {"label": "Error, Pihak Not Found!!!", "nama": ["Disamarkan"]},
        {"label": "Error, Pihak Not Found!!!", "nama": ["Disamarkan"]},
    ]
    assert permohonan.data["para_pihak"] == [
        {"label": "Error, Pihak Not Found!!!", "nama": ["Disamarkan"]}
    ]


def test_real_page_totals_paging_and_menu(real_list_html):
    page = parse_list_page(real_list_html, BASE)
    assert page.total_cases == 10788
    assert page.page_url_template == (BASE + "list_perkara/page/{page}/" + LIST_ENC + "/key/col/2")
    assert page.page_url_template.format(page=7).startswith(BASE + "list_perkara/page/7/")
    labels = [m.label for m in page.menu]
    assert labels == [
        "Perdata Gugatan",
        "Perdata Permohonan",
        "Praperadilan Jinayat",
        "Register Perkara Jinayat",
        "Register Perkara Jinayat Anak",
    ]
    assert all(isinstance(m, MenuEntry) for m in page.menu)
    assert all(m.url.startswith(BASE + "list_perkara/type/") for m in page.menu)
    # the top-level "/list_perkara/<enc>" link is rewritten to the /type/ form
    assert page.menu[0].url == (
        BASE + "list_perkara/type/Ym5vbzVYaHE3UXMrdk9rRWRodDJnZEtsUERSRkVXcDN2RmZsYk9BSjFmZUJHT01W"
        "aXJoVFYxK3BncEJWZTQ5cWxTd1Mra1Awb1c3NDFKckE0K0IxZkE9PQ=="
    )


def test_total_falls_back_to_js_row_count(real_list_html):
    html = real_list_html.replace("Total : 10.788 Perkara", "")
    assert parse_list_page(html, BASE).total_cases == 10788


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        (BASE + "list_perkara/type/abc==", BASE + "list_perkara/type/abc=="),
        (BASE + "list_perkara/abc==", BASE + "list_perkara/type/abc=="),
        (BASE + "list_perkara", None),
        (BASE + "list_perkara/", None),
        (BASE + "list_perkara/page/2/abc/key/col/2", None),
        (BASE + "list_perkara/search", None),
        (BASE + "list_jadwal_sidang", None),
        ("#", None),
        (
            "https://pn-sleman.go.id/sipp/list_perkara/xyz",
            "https://pn-sleman.go.id/sipp/list_perkara/type/xyz",
        ),
    ],
)
def test_listing_url(href, expected):
    assert listing_url(href) == expected


def _only_header(html: str, body_rows: str) -> str:
    start = html.index("<tr><td>1</td>")
    end = html.index("</tbody>", start)
    return html[:start] + body_rows + html[end:]


def test_past_the_last_page_is_no_data(real_list_html):
    html = _only_header(
        real_list_html, '<tr><td colspan="8" align="center">Data Tidak diTemukan</td></tr>'
    )
    page = parse_list_page(html, BASE)
    assert page.no_data
    assert page.rows == []
    assert page.total_cases == 10788


TILANG_TABLE = """
<html><body><div id="pageTitle"><b>DAFTAR PERKARA LALU LINTAS</b></div>
<div class="cssTable"><table id="tablePerkaraAll"><tbody>
<tr><td>No</td><td onclick="sorting(1)">Nomor Perkara</td>
<td>Nomor Seri Tilang / No Pembayaran</td><td>Tanda Nomor Kendaraan Bermotor</td>
<td>Pelanggar</td><td>Tanggal Sidang<br/>Ruang Sidang</td><td>Putusan</td><td>Link</td></tr>
<tr><td>1</td><td>1234/Pid.S-LL/2024/PN Mtr</td><td>C 1234567 / 0123456789012</td>
<td>DR 1234 AB</td><td>BUDI</td><td>12 Jun 2024<br/>Ruang Sidang Tilang</td>
<td>Denda Rp. 50.000</td><td>[<a href="/show_detil/QUJD">detil</a>]</td></tr>
</tbody></table></div></body></html>
"""


def test_tilang_columns():
    page = parse_list_page(TILANG_TABLE, "http://127.0.0.1:8800/list_perkara/type/x")
    assert page.title == "DAFTAR PERKARA LALU LINTAS"
    (row,) = page.rows
    assert row.nomor_perkara == "1234/Pid.S-LL/2024/PN Mtr"
    assert row.detail_url == "http://127.0.0.1:8800/show_detil/QUJD"
    assert row.registered is None
    assert row.data["nomor_seri_tilang"] == "C 1234567"
    assert row.data["nomor_pembayaran"] == "0123456789012"
    assert row.data["tanda_nomor_kendaraan"] == "DR 1234 AB"
    assert row.data["pelanggar"] == "BUDI"
    assert row.data["tanggal_sidang"] == "2024-06-12"
    assert row.data["ruang_sidang"] == "Ruang Sidang Tilang"
    assert row.data["putusan"] == "Denda Rp. 50.000"
    assert page.total_cases is None
    assert page.page_url_template is None
    assert page.menu == []


def test_page_without_case_table_is_a_parse_error():
    with pytest.raises(ParseError, match="list page: no table#tablePerkaraAll"):
        parse_list_page("<html><body><p>hello</p></body></html>", BASE)


def test_unknown_column_is_kept_generically_with_a_warning(real_list_html):
    html = real_list_html.replace(">Status Perkara</td>", ">Status Terakhir</td>")
    with collect_warnings() as warnings:
        page = parse_list_page(html, BASE)
    assert warnings == [ParseWarning("list", "Status Terakhir", "column")]
    first = page.rows[0].data
    assert "status_perkara" not in first
    assert first["lainnya"] == [{"label": "Status Terakhir", "value": "Sidang pertama"}]
    assert len(page.rows) == len(parse_list_page(real_list_html, BASE).rows)


def test_empty_body_is_a_parse_error():
    with pytest.raises(ParseError, match="empty body"):
        parse_list_page("  ", BASE)


def test_http_links_on_an_https_page_are_upgraded(real_list_html):
    # behind a TLS proxy base_url() says http:// on an https site
    html = real_list_html.replace("https://sipp.pa-metro.go.id/", "http://sipp.pa-metro.go.id/")
    page = parse_list_page(html, BASE)
    assert page.rows[0].detail_url == BASE + "show_detil/" + TOKEN_1
    assert page.page_url_template is not None
    assert page.page_url_template.startswith(BASE + "list_perkara/page/{page}/")
    assert all(m.url.startswith(BASE) for m in page.menu)
    # an http page keeps its http links; links to other hosts are never rewritten
    plain = parse_list_page(html, "http://sipp.pa-metro.go.id/")
    assert plain.rows[0].detail_url.startswith("http://sipp.pa-metro.go.id/show_detil/")
    other = html.replace(
        "http://sipp.pa-metro.go.id/show_detil/", "http://mirror.example/show_detil/"
    )
    assert parse_list_page(other, BASE).rows[0].detail_url.startswith("http://mirror.example/")


def test_unknown_column_reaches_the_case_part(real_list_html):
    from harvest.sipp import case_part_data
    from harvest.sipp.detail_page import DetailPage

    html = real_list_html.replace(">Status Perkara</td>", ">Status Terakhir</td>")
    row = parse_list_page(html, BASE).rows[0]
    detail = DetailPage(row.nomor_perkara, {"header": {}, "data_umum": {}}, [])
    part = case_part_data("pa-metro", row, detail)
    assert part["list_row"]["lainnya"] == [{"label": "Status Terakhir", "value": "Sidang pertama"}]
    assert "status_perkara" not in part["list_row"]
    assert "lama_proses" not in part["list_row"]


def test_the_sync_date_of_the_total_line():
    html = (GOLDEN / "list-pn-all-cases" / "page.html").read_text(encoding="utf-8")
    page = parse_list_page(html, "http://sipp.pn-contoh.go.id/list_perkara")
    assert page.pembaharuan_data == "Rabu, 19 Juni 2024 17:05:12 WIB"
    failed = (GOLDEN / "list-pn-search-sync-failed" / "page.html").read_text(encoding="utf-8")
    assert parse_list_page(failed, "http://sipp.pn-contoh.go.id/").pembaharuan_data is None
