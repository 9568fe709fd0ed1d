"""The bankruptcy follow-up menu (``setelah_putusan_pernyataan_pailit``): the sub pages a reader
can open. The fixture is the stock view (perkara_tab/putusan_pernyataan_pailit.php at
chakoochandra/sipp-web@b498430) as a court serves it at ``http://127.0.0.1:8800/``: every PHP
echo replaced by the URL it prints, the alur-3 block (lines 17-22) printing nothing because the
controller never sets ``$alur_perkara_id``. The expected list is written from the view."""

from __future__ import annotations

from pathlib import Path

from harvest.sipp.pailit import parse_sub_page, sub_page_links

FIXTURE = Path(__file__).parent.parent / "fixtures" / "pailit" / "menu.html"
URL = "http://127.0.0.1:8800/putusan_pernyataan_pailit"
ENC = "cVdYc2xPZk1vWm5xbk9iTDRSZz09"
BASE = "http://127.0.0.1:8800/"

#: (anchor, button label, route, what follows <enc> in the script's URL), in button order
STOCK = [
    ("accor0", "Hakim Pemeriksa & PP", "sub_pemeriksa", ""),
    ("accor1", "Penunjukan Hakim Pengawas", "sub_pengawas", "/1"),
    ("accor2", "Penunjukan Kurator", "sub_kurator", ""),
    ("accor3", "Publisitas", "sub_publisitas", ""),
    ("accor4", "Rapat Kreditor", "sub_rapat", "/Tm5RZ2ZRPT0/Tm5RZ2ZRPT0"),
    ("accor5", "Pencabutan Pernyataan Pailit", "sub_cabutpernyataan", ""),
    ("accor6", "Pencocokan Piutang", "sub_cocokverifikasi", "/SzdwUmZBPT0/Tm5RZ2ZRPT0"),
    ("accor7", "Gugatan Lain-Lain", "sub_gugatanlain", ""),
    ("accor10", "Insolvensi", "sub_insolven", "/cjh5ZEl3PT0/SzdwUmZBPT0"),
    ("accor11", "Pemberesan", "sub_pemberesan", ""),
    ("accor12", "Biaya Penyelesaian Kepailitan", "sub_biayapenyelesaian", ""),
    ("accor13", "Pengakhiran Kepailitan", "sub_pengakhiran", ""),
    ("accor14", "Informasi Kepaniteraan", "sub_pengumuman", ""),
    ("accor15", "Laporan Berkala Kurator", "sub_laporankurator", ""),
    ("accor16", "Rehabilitasi", "sub_rehabilitasi", ""),
]


def test_the_stock_menu_links_fifteen_sub_pages() -> None:
    links = sub_page_links(FIXTURE.read_text(encoding="utf-8"), URL)
    got = [(link.anchor, link.label, link.route, link.url) for link in links]
    assert got == [(a, label, r, f"{BASE}{r}/{ENC}{tail}") for a, label, r, tail in STOCK]


def test_the_alur_3_buttons_are_taken_when_a_page_shows_them() -> None:
    """Lines 18-19 as they would print if ``$alur_perkara_id`` were 3: both buttons, between
    Gugatan Lain-Lain and Insolvensi, loading sub_perdamaian and sub_bataldamai."""
    html = FIXTURE.read_text(encoding="utf-8")
    buttons = (
        '<a role="button" id= "tabInfos" href="#accor8" class="btn btn-success btn-sm" '
        'style="color:white">Perdamaian</a>\n'
        '<a role="button" id= "tabInfos" href="#accor9" class="btn btn-success btn-sm" '
        'style="color:white">Pembatalan Perdamaian</a>'
    )
    marker = 'style="color:white">Gugatan Lain-Lain</a>'
    assert html.count(marker) == 1
    html = html.replace(marker, marker + "\n" + buttons)
    links = sub_page_links(html, URL)
    assert [link.route for link in links][7:10] == [
        "sub_gugatanlain",
        "sub_perdamaian",
        "sub_bataldamai",
    ]
    assert links[8].url == f"{BASE}sub_perdamaian/{ENC}/dUQ4QjVnPT0/Tm5RZ2ZRPT0"
    assert links[9].url == f"{BASE}sub_bataldamai/{ENC}"
    assert len(links) == 17


def test_a_page_without_the_menu_links_nothing() -> None:
    assert sub_page_links("<div>DATA TIDAK DITEMUKAN</div>", URL) == []


# ---------------------------------------------------------------------------- the sub pages
# Golden fixtures written by hand from pasca_pailit/sub_*.php at chakoochandra/sipp-web@b498430
# (each echo replaced by what it prints; convertDayDate as "Senin, 03 Jun 2024"):
#   sub_kurator.html         sub_kurator.php, two curator rows (the first replaced: aktif N)
#   sub_pengawas_belum.html  sub_pengawas.php, num_rows 0: the one BELUM DITETAPKAN row
#   sub_bataldamai.html      sub_bataldamai.php: the view prints only closeLoading()

PAILIT = FIXTURE.parent


def _sub(name: str) -> str:
    return (PAILIT / f"{name}.html").read_text(encoding="utf-8")


def test_a_table_sub_page_gives_its_heading_columns_and_typed_records() -> None:
    assert parse_sub_page("sub_kurator", _sub("sub_kurator")) == {
        "blocks": [
            {
                "headings": ["PENUNJUKAN KURATOR"],
                "columns": [
                    "Tanggal Penunjukan",
                    "Nomor Surat/ Putusan Penunjukan",
                    "Nama Kurator",
                    "Aktif",
                ],
                "records": [
                    {
                        "Tanggal Penunjukan": "2024-06-03",
                        "Nomor Surat/ Putusan Penunjukan": "12/Pdt.Sus-Pailit/2024/PN Rpl",
                        "Nama Kurator": "Sri Wahyuni, S.H.",
                        "Aktif": False,
                    },
                    {
                        "Tanggal Penunjukan": "2024-08-15",
                        "Nomor Surat/ Putusan Penunjukan": "12/Pdt.Sus-Pailit/2024/PN Rpl",
                        "Nama Kurator": "Dewi Lestari, S.H., M.H.",
                        "Aktif": True,
                    },
                ],
                "message": None,
            }
        ]
    }


def test_a_belum_row_is_the_message_not_a_record() -> None:
    assert parse_sub_page("sub_pengawas", _sub("sub_pengawas_belum")) == {
        "blocks": [
            {
                "headings": ["PENUNJUKAN HAKIM PENGAWAS"],
                "columns": ["Tanggal Penunjukan", "Nomor Penunjukan", "Nama Hakim", "Aktif"],
                "records": [],
                "message": "BELUM DITETAPKAN",
            }
        ]
    }


def test_a_view_that_prints_no_data_gives_an_empty_sub_page() -> None:
    assert parse_sub_page("sub_bataldamai", _sub("sub_bataldamai")) == {"blocks": []}
