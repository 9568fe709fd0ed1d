"""The generic fallback parser, long texts, and the edges of Data Umum and the tabs."""

from __future__ import annotations

import re

import pytest

from harvest.sipp import ParseError, page_error, parse_detail_page, parse_generic, parse_tab
from harvest.sipp.detail_page import parse_data_umum
from harvest.sipp.html import long_text, parse_html
from harvest.sipp.warnings import ParseWarning, collect_warnings
from tests.support.pages import read_fixture

CLOSE = '<script type="text/javascript">closeLoading();</script>'


def test_unknown_tab_goes_to_the_generic_parser_and_keeps_everything():
    html = (
        '<div style="color:green;font-weight:bold">DATA INTERVENSI</div>'
        '<div class="cssTable"><table id="tableinfo">'
        "<tr><td>No</td><td>Nama</td><td>Tanggal</td></tr>"
        "<tr><td>1</td><td>PT. MAJU &amp; JAYA</td><td>Rabu, 29 Mei 2024</td></tr>"
        "<tr><td>2</td><td>BUDI<br/>SANTOSO</td><td><table><tr><td>x</td><td>y</td></tr>"
        "</table>catatan</td></tr></table></div><p>Keterangan akhir</p>" + CLOSE
    )
    data = parse_tab("tab_baru", html)
    assert data == {
        "generic": True,
        "blocks": [
            {"text": "DATA INTERVENSI"},
            {
                "rows": [
                    ["No", "Nama", "Tanggal"],
                    ["1", "PT. MAJU & JAYA", "Rabu, 29 Mei 2024"],
                    ["2", "BUDI SANTOSO", {"text": "catatan", "tables": [[["x", "y"]]]}],
                ]
            },
            {"text": "Keterangan akhir"},
        ],
    }


def test_generic_parser_on_a_known_tab_keeps_every_block():
    # penetapan.php: one outer layout table, a heading row then a row holding the block's table
    html = read_fixture("replica/cases/pn-gugatan/tab-penetapan.html")
    (block,) = parse_generic(html)["blocks"]
    outer = block["rows"]
    assert [row[0] for row in outer[0::2]] == [
        "PENETAPAN HAKIM",
        "PENETAPAN PANITERA PENGGANTI",
        "PENETAPAN JURUSITA PENGGANTI",
        "PENETAPAN SIDANG PERTAMA",
    ]
    hakim = outer[1][0]["tables"][0]
    assert hakim[0] == ["Tanggal Penetapan", "Nama Hakim/Majelis Hakim", "Posisi", "Aktif"]
    assert hakim[1][2] == "Hakim Ketua"
    assert hakim[1][3] == "Ya"


def test_long_text_paragraphs_and_list_items():
    doc = parse_html(
        '<div><div class="wrapword"><p>PRIMAIR:</p><ol><li>\n\t\tMengabulkan   gugatan;\n'
        "</li><li>Menghukum &quot;Tergugat&quot;;</li></ol><p>SUBSIDAIR:</p>"
        "<p>Ex aequo et bono.</p></div></div>",
        "t",
    )
    cell = doc.find("body")[0]
    assert long_text(cell) == (
        'PRIMAIR:\nMengabulkan gugatan;\nMenghukum "Tergugat";\nSUBSIDAIR:\nEx aequo et bono.'
    )


def test_long_text_plain_lines_and_dash():
    doc = parse_html("<div><span>baris satu<br>baris  dua</span></div><div> - </div>", "t")
    first, second = doc.find("body")
    assert long_text(first) == "baris satu\nbaris dua"
    assert long_text(second) is None


def _data_umum(rows_html: str) -> dict:
    doc = parse_html(f"<table id='infoPerkara'>{rows_html}</table>", "t")
    return parse_data_umum(doc.find(".//table"))


def _row(label: str, value: str) -> str:
    return f'<tr><td id="first-child"><font color="white">{label}</font></td><td>{value}</td></tr>'


def test_data_umum_empty_party_cells_and_unknown_rows():
    du = _data_umum(
        _row(
            "Penggugat",
            '<table id="tableinfo"><tr><td>No</td><td>Nama</td></tr>'
            "<tr><td>1</td><td>SITI</td></tr></table>",
        )
        + _row("Kuasa Hukum Penggugat", "")
        + _row("Tergugat", "")
        + _row("Tanggal Surat", " - ")
        + _row("Nomor Surat", "-")
        + _row("Nilai Sengketa(Rp)", "241.000.000,00")
        + _row("Sumber Dana", "APBN")
    )
    assert du["pihak"] == [
        {"label": "Penggugat", "nama": ["SITI"]},
        {"label": "Tergugat", "nama": []},
    ]
    assert du["kuasa"] == [{"label": "Kuasa Hukum Penggugat", "rows": []}]
    assert du["tanggal_surat"] is None
    assert du["nomor_surat"] is None
    assert du["nilai_sengketa"] == 241000000
    assert du["lainnya"] == [{"label": "Sumber Dana", "value": "APBN"}]


def test_data_umum_error_labels_alternate_party_and_kuasa_when_cells_are_empty():
    err = '<font color="red">Error, Pihak Not Found!!!</font>'
    du = _data_umum(
        _row(
            err,
            '<table id="tableinfo"><tr><td>No</td><td>Nama</td></tr>'
            "<tr><td>1</td><td>Disamarkan</td></tr></table>",
        )
        + _row(err, "")
    )
    assert du["pihak"] == [{"label": "Error, Pihak Not Found!!!", "nama": ["Disamarkan"]}]
    assert du["kuasa"] == [{"label": "Error, Pihak Not Found!!!", "rows": []}]


def test_data_umum_bad_money_is_kept_as_text_with_a_value_warning():
    with collect_warnings() as warnings:
        du = _data_umum(_row("Nilai Sengketa(Rp)", "sekitar satu juta"))
    assert du["nilai_sengketa"] == "sekitar satu juta"
    assert warnings == [ParseWarning("detail", "Nilai Sengketa(Rp)", "value")]


def test_detail_page_without_header_or_data_umum():
    with pytest.raises(ParseError, match=r"detail page: no header table#tableinfo"):
        parse_detail_page("<html><body><p>Kembali</p></body></html>", "http://x/")
    html = read_fixture("replica/cases/pn-pidana/detail.html").replace("infoPerkara", "other")
    with pytest.raises(ParseError, match=r"no Data Umum"):
        parse_detail_page(html, "http://x/")


def test_list_page_given_as_detail_is_a_parse_error(real_list_html):
    with pytest.raises(ParseError, match="detail page"):
        parse_detail_page(real_list_html, "https://sipp.pa-metro.go.id/detil_perkara")


def test_tab_no_data_messages():
    empty = '<div class="cssTable" align="center"><b>DATA TIDAK DITEMUKAN</b></div>' + CLOSE
    assert parse_tab("riwayat_perkara", empty) == []
    assert parse_tab("jadwal_sidang", empty) == []
    assert parse_tab("saksi", empty) == []
    assert parse_tab("putusan", empty) == {}
    assert parse_tab("banding", empty) == {}
    none_bb = (
        '<div class="cssTable" align="center"><b>Tidak Ada Pencatatan Register Barang Bukti'
        "</b></div>" + CLOSE
    )
    assert parse_tab("barang_bukti", none_bb) == []


def test_tab_without_its_table_is_kept_generically_with_a_warning():
    """A shape the tab's parser does not know is never an error: generic record + warning."""
    with collect_warnings() as found:
        data = parse_tab("riwayat_perkara", "<p>sesuatu yang lain</p>" + CLOSE)
    assert data == {"generic": True, "blocks": [{"text": "sesuatu yang lain"}]}
    assert found == [ParseWarning("tab:riwayat_perkara", "riwayat_perkara", "page")]


def test_penetapan_unknown_block_is_kept_with_a_warning():
    html = "<div>JUDUL LAIN</div><table><tr><td>a</td></tr></table>"
    with collect_warnings() as warnings:
        data = parse_tab("penetapan", html)
    assert data == {"lainnya": [{"label": "JUDUL LAIN", "value": [["a"]]}]}
    assert warnings == [ParseWarning("tab:penetapan", "JUDUL LAIN", "block")]


def test_tab_bad_date_keeps_the_text_and_warns():
    html = read_fixture("replica/cases/pn-pidana/tab-riwayat_perkara.html")
    # the first printed date gets a month SIPP never prints
    broken = re.sub(r"(, \d{2} )[A-Z][a-z]{2}\.?( \d{4})", r"\1Mai\2", html, count=1)
    assert broken != html
    with collect_warnings() as warnings:
        data = parse_tab("riwayat_perkara", broken)
    bad = [r["tanggal"] for r in data if not r["tanggal"][:1].isdigit()]
    assert len(bad) == 1
    assert " Mai " in bad[0]
    assert warnings == [ParseWarning("tab:riwayat_perkara", "Tanggal", "value")]


def test_unknown_slug_warns_and_known_parser_finding_nothing_falls_back():
    with collect_warnings() as found:
        parse_tab("sub_kurator", "<table><tr><td>No</td></tr><tr><td>1</td></tr></table>")
    assert found == [ParseWarning("tab:sub_kurator", "sub_kurator", "page")]
    # an appeal page whose tables the parser does not know at all -> kept, never {}
    html = (
        '<table id="infoPerkara"><tr><td colspan="2">DATA PARA PIHAK</td></tr></table>'
        "<table><tr><td>Pihak</td><td>Nama</td></tr><tr><td>Pembanding</td><td>ANI</td></tr>"
        "</table>"
    )
    with collect_warnings() as found:
        data = parse_tab("banding", html)
    assert data == {
        "lainnya": [
            {
                "label": None,
                "rows": [["DATA PARA PIHAK"], ["Pihak", "Nama"], ["Pembanding", "ANI"]],
            }
        ]
    }
    assert found == [ParseWarning("tab:banding", "", "block")]
    # a no-data page and a header-only table are no data: the typed empty value, no warning
    empty = '<div class="cssTable" align="center"><b>DATA TIDAK DITEMUKAN</b></div>' + CLOSE
    header_only = "<table><tr><th>No</th><th>Tanggal</th><th>Tahapan</th></tr></table>"
    laporan = (
        "<table><tr><th>No</th><th>Nomor Laporan</th></tr>"
        '<tr><td colspan="2">BELUM ADA LAPORAN</td></tr></table>'
    )
    with collect_warnings() as found:
        assert parse_tab("banding", empty) == {}
        assert parse_tab("riwayat_perkara", header_only) == []
        assert parse_tab("riwayat_perkara", laporan) == []
    assert found == []


def test_penetapan_with_unassigned_blocks():
    html = (
        '<div style="color:green;font-weight:bold;">PENETAPAN HAKIM</div>'
        '<div class="cssTable"><table><tr><td>Tanggal Penetapan</td>'
        "<td>Nama Hakim/Majelis Hakim</td><td>Posisi</td><td>Aktif</td></tr>"
        "<tr><td>Kamis, 30 Mei 2024</td><td>RATNA DEWI, S.H., M.Hum.</td><td>Hakim Ketua</td>"
        "<td>Aktif</td></tr></table></div>"
        '<div style="color:green;font-weight:bold;">PENETAPAN SIDANG PERTAMA</div>'
        '<div class="cssTable"><table><tr><td>BELUM DITETAPKAN</td></tr></table></div>' + CLOSE
    )
    assert parse_tab("penetapan", html) == {
        "hakim": [
            {
                "tanggal_penetapan": "2024-05-30",
                "nama": "RATNA DEWI, S.H., M.Hum.",
                "posisi": "Hakim Ketua",
                "aktif": "Aktif",
            }
        ],
        "sidang_pertama": [],
    }


def test_penetapan_in_the_real_layout_table():
    html = read_fixture("handwritten/penetapan-real-layout.html")
    assert parse_tab("penetapan", html) == {
        "hakim": [
            {
                "tanggal_penetapan": "2024-06-03",
                "nama": "BAMBANG SETIAWAN, S.H.",
                "posisi": "Hakim Ketua",
                "aktif": "Ya",
            },
            {
                "tanggal_penetapan": "2024-06-03",
                "nama": "RATNA SARI, S.H., M.H.",
                "posisi": "Hakim Anggota",
                "aktif": "Tidak",
            },
        ],
        "panitera_pengganti": [],
        "sidang_pertama": [{"tanggal_penetapan": "2024-06-04", "tanggal_sidang": "2024-06-13"}],
    }


def test_biaya_perkara_two_row_header_and_th_totals():
    html = read_fixture("handwritten/biaya-perkara-real-layout.html")
    first, banding = parse_tab("biaya_perkara", html)
    assert first == {
        "tahap": "BIAYA TINGKAT PERTAMA",
        "transaksi": [
            {
                "tanggal": "2024-05-29",
                "uraian": "Panjar Biaya Perkara",
                "pemasukan": 1500000,
                "pengeluaran": None,
                "sisa": 1500000,
                "keterangan": None,
            },
            {
                "tanggal": "2024-05-29",
                "uraian": "Biaya Pendaftaran",
                "pemasukan": None,
                "pengeluaran": 30000,
                "sisa": 1470000,
                "keterangan": "PNBP",
            },
        ],
        "total": {"pemasukan": 1500000, "pengeluaran": 30000, "sisa": 1470000},
    }
    assert banding["tahap"] == "BIAYA TINGKAT BANDING"
    assert banding["transaksi"][0]["tanggal"] == "2024-08-02"
    assert banding["total"] == {"pemasukan": 3000000, "pengeluaran": 0, "sisa": 3000000}


def test_riwayat_with_the_no_data_row_inside_the_table():
    html = read_fixture("handwritten/riwayat-empty-real-layout.html")
    assert parse_tab("riwayat_perkara", html) == []


def test_jadwal_sidang_verzet_and_attendance_lines():
    html = read_fixture("handwritten/jadwal-sidang-real-layout.html")
    assert parse_tab("jadwal_sidang", html) == [
        {
            "tanggal": "2024-06-13",
            "jam": "09:00:00 s/d Selesai",
            "agenda": "Sidang Pertama",
            "jenis_sidang": "Sidang Verzet",
            "ruangan": "Ruang Sidang Cakra",
            "dihadiri_oleh": "Majelis Hakim",
            "alasan_ditunda": "Tergugat tidak hadir",
        },
        {
            "tanggal": "2024-06-20",
            "jam": "10:30:00 s/d 12:00:00",
            "agenda": "Mediasi",
            "jenis_sidang": None,
            "ruangan": "Belum Ditentukan",
            "dihadiri_oleh": None,
            "alasan_ditunda": None,
        },
    ]


@pytest.mark.parametrize(
    "name",
    [
        "penetapan-real-layout.html",
        "biaya-perkara-real-layout.html",
        "riwayat-empty-real-layout.html",
        "jadwal-sidang-real-layout.html",
    ],
)
def test_real_layout_fragments_are_good_fragments(name):
    assert page_error(read_fixture(f"handwritten/{name}"), expect="tab") is None


def test_data_umum_information_table_is_kept_not_taken_for_a_party():
    du = _data_umum(
        _row(
            "Informasi",
            '<div class="cssTable"><table><tr><td>Tanggal Kejadian</td><td>1 Mei 2024</td>'
            "<td>Nomor Surat Dakwaan</td><td>DAK/12/V/2024</td></tr></table></div>",
        )
        + _row("Gugatan", "<p>Membatalkan keputusan;</p><p>Menghukum Tergugat.</p>")
    )
    assert "pihak" not in du
    assert "kuasa" not in du
    assert "lainnya" not in du
    assert du["informasi"] == {
        "tanggal_kejadian": "2024-05-01",
        "nomor_surat_dakwaan": "DAK/12/V/2024",
    }
    assert du["gugatan"] == "Membatalkan keputusan;\nMenghukum Tergugat."


def test_party_table_with_an_unknown_column_keeps_it():
    with collect_warnings() as warnings:
        du = _data_umum(
            _row(
                "Tergugat",
                '<table id="tableinfo"><tr><td>No</td><td>Nama</td><td>Alamat</td></tr>'
                "<tr><td>1</td><td>SUTINAH</td><td>Jl. Mawar 3</td></tr></table>",
            )
        )
    assert du["pihak"] == [
        {
            "label": "Tergugat",
            "nama": ["SUTINAH"],
            "lainnya": [["No", "Nama", "Alamat"], ["1", "SUTINAH", "Jl. Mawar 3"]],
        }
    ]
    assert warnings == [ParseWarning("detail", "Tergugat: Alamat", "column")]
