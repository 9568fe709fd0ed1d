"""The record reader of the label/value tabs (harvest/sipp/record_tabs.py) on shapes the stock
views do not print: kept generically with a warning, never a ParseError, never ``{}``."""

from __future__ import annotations

import pytest

from harvest.sipp import TAB_PARSERS, ParseError, parse_tab
from harvest.sipp.warnings import ParseWarning, collect_warnings

CLOSE = '<script type="text/javascript">closeLoading();</script>'


def _row(label: str, value: str) -> str:
    return f'<tr><td id="first-child"><font color="white">{label}</font></td><td>{value}</td></tr>'


def test_unknown_heading_text_outside_tables_and_unlabelled_row_are_kept():
    html = (
        "<p>Catatan: data dipindahkan dari aplikasi lama</p>"
        "<table id='infoPerkara'><tbody><tr><td><b>DATA EKSEKUSI VERZET</b></td></tr></tbody>"
        "</table>"
        "<table id='infoPerkara'><tbody>"
        + _row("Nomor Perkara", "3/Pdt.G/2024/PN Mlg")
        + "<tr><td></td><td>baris tanpa label</td></tr>"
        + "</tbody></table>" + CLOSE
    )  # fmt: skip
    with collect_warnings() as warnings:
        data = parse_tab("verzet", html)
    assert data == [
        {
            "lainnya": [
                {"label": "DATA EKSEKUSI VERZET", "value": ""},
                {"label": "", "value": "baris tanpa label"},
                {"label": "Catatan: data dipindahkan dari aplikasi lama", "value": ""},
            ],
            "nomor_perkara": "3/Pdt.G/2024/PN Mlg",
        }
    ]
    assert warnings == [
        ParseWarning("tab:verzet", "DATA EKSEKUSI VERZET", "block"),
        ParseWarning("tab:verzet", "baris tanpa label", "row"),
        ParseWarning("tab:verzet", "Catatan: data dipindahkan dari aplikasi lama", "block"),
    ]


def test_date_cell_holding_a_table_keeps_its_text():
    html = (
        "<table id='infoPerkara'><tbody>"
        + _row(
            "Tanggal Penetapan",
            "<table><tr><td>Senin, 03 Jun. 2024</td><td>Hakim</td></tr></table>",
        )
        + _row("Amar Penetapan", "<p>Gugur.</p>")
        + "</tbody></table>" + CLOSE
    )  # fmt: skip
    with collect_warnings() as warnings:
        data = parse_tab("penetapan_gugur", html)
    assert data == [{"tanggal_penetapan": "Senin, 03 Jun. 2024 Hakim", "amar_penetapan": "Gugur."}]
    assert warnings == [ParseWarning("tab:penetapan_gugur", "Tanggal Penetapan", "value")]


def test_one_cell_row_holding_a_data_table_is_kept_as_rows():
    html = (
        "<table id='infoPerkara'><tbody>"
        + _row("Nama Pemohon", "PT. ABC")
        + "<tr><td colspan='2'><table><tr><td>No</td><td>Kuasa</td></tr>"
        "<tr><td>1</td><td>ANDI, S.H.</td></tr></table></td></tr>"
        + "</tbody></table>" + CLOSE
    )  # fmt: skip
    with collect_warnings() as warnings:
        data = parse_tab("intervensi", html)
    assert data == [
        {
            "nama_pemohon": "PT. ABC",
            "lainnya": [{"label": "", "value": [[["No", "Kuasa"], ["1", "ANDI, S.H."]]]}],
        }
    ]
    assert warnings == [ParseWarning("tab:intervensi", "No Kuasa 1 ANDI, S.H.", "block")]


def test_unknown_column_of_a_nested_schedule_and_of_a_table_tab():
    html = (
        "<table id='infoPerkara'><tbody>"
        + _row(
            "Jadwal Panggilan Dismissal",
            "<table><tr><td>No</td><td>Tanggal Panggilan</td><td>Status Kehadiran</td>"
            "<td>Keterangan Jurusita</td></tr><tr><td>1</td><td>Rabu, 08 Jan. 2025</td>"
            "<td>Hadir</td><td>diterima sendiri</td></tr></table>",
        )
        + "</tbody></table>" + CLOSE
    )  # fmt: skip
    with collect_warnings() as warnings:
        data = parse_tab("dismissal", html)
    assert data == [
        {
            "panggilan": [
                {
                    "tanggal": "2025-01-08",
                    "status_kehadiran": "Hadir",
                    "keterangan_jurusita": "diterima sendiri",
                }
            ]
        }
    ]
    assert warnings == [
        ParseWarning("tab:dismissal", "Jadwal Panggilan Dismissal: keterangan jurusita", "column")
    ]
    html = (
        "<table><tr><td>No</td><td>Nomor Laporan</td><td>Tanggal Laporan</td><td>Deskripsi</td>"
        "<td>Lampiran</td></tr><tr><td>1</td><td>01/LAP</td><td>Senin, 30 Sep. 2024</td>"
        "<td>Laporan</td><td>ada</td></tr></table>" + CLOSE
    )
    with collect_warnings() as warnings:
        data = parse_tab("laporan_pengurus", html)
    assert data == [
        {
            "nomor_laporan": "01/LAP",
            "tanggal_laporan": "2024-09-30",
            "deskripsi": "Laporan",
            "lampiran": "ada",
        }
    ]
    assert warnings == [ParseWarning("tab:laporan_pengurus", "lampiran", "column")]


def test_second_row_of_a_tab_starts_a_second_record():
    rows = "".join(
        _row("Tanggal Pendaftaran", d) + _row("Para Pihak", p) + _row("Isi Petitum", "x")
        for d, p in (("Senin, 08 Apr. 2024", "A"), ("Selasa, 09 Apr. 2024", "B"))
    )
    data = parse_tab("rekonvensi", f"<table id='infoPerkara'><tbody>{rows}</tbody></table>")
    assert data == [
        {"tanggal_pendaftaran": "2024-04-08", "para_pihak": ["A"], "petitum": "x"},
        {"tanggal_pendaftaran": "2024-04-09", "para_pihak": ["B"], "petitum": "x"},
    ]


def test_common_tab_with_text_but_no_table_is_not_that_tab():
    for slug in ("penetapan", "biaya_perkara", "barang_bukti", "jadwal_sidang", "saksi"):
        with pytest.raises(ParseError, match=f"tab {slug}: "):
            TAB_PARSERS[slug]("<p>Halaman pemeliharaan</p>" + CLOSE)
        # the dispatch keeps it generically with a warning (never an error, never {})
        with collect_warnings() as found:
            data = parse_tab(slug, "<p>Halaman pemeliharaan</p>" + CLOSE)
        assert data == {"generic": True, "blocks": [{"text": "Halaman pemeliharaan"}]}
        assert found == [ParseWarning(f"tab:{slug}", slug, "page")]
