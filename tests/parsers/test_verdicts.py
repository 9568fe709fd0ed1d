"""Verdict and appeal parsers on shapes the golden fixtures do not show: unknown rows,
sections and values are kept (``lainnya``) and warned, never an error and never ``{}``."""

from __future__ import annotations

import dataclasses

import pytest

from harvest.sipp import TAB_PARSERS, ParseError, parse_tab
from harvest.sipp.warnings import collect_warnings


def _row(label: str, value: str) -> str:
    return f'<tr><td id="first-child"><font color="white">{label}</font></td><td>{value}</td></tr>'


def _putusan(*rows: str) -> str:
    return "<div><table id='infoPerkara'><tbody>" + "".join(rows) + "</tbody></table></div>"


def _warnings(slug: str, html: str) -> tuple[object, list[dict[str, str]]]:
    with collect_warnings() as found:
        got = parse_tab(slug, html)
    return got, [dataclasses.asdict(w) for w in found]


def test_unknown_putusan_row_is_kept_and_warned():
    got, warned = _warnings(
        "putusan",
        _putusan(
            _row("Tanggal Putusan", "Senin, 03 Juni 2024"),
            _row("Tanggal BHT", "Senin, 17 Juni 2024"),
        ),
    )
    assert got == {
        "tanggal_label": "Tanggal Putusan",
        "tanggal_putusan": "2024-06-03",
        "lainnya": [{"label": "Tanggal BHT", "value": "Senin, 17 Juni 2024"}],
    }
    assert warned == [{"page": "tab:putusan", "label": "Tanggal BHT", "kind": "row"}]


def test_a_date_cell_holding_text_is_kept_not_raised():
    got, warned = _warnings(
        "putusan",
        _putusan(
            _row("Tanggal Putusan", "Senin, 03 Juni 2024"),
            _row("Tanggal Minutasi", "menunggu tanda tangan"),
        ),
    )
    assert got["tanggal_minutasi"] is None
    assert got["lainnya"] == [{"label": "Tanggal Minutasi", "value": "menunggu tanda tangan"}]
    assert warned == [{"page": "tab:putusan", "label": "Tanggal Minutasi", "kind": "value"}]


def test_kirim_salinan_as_a_plain_date_is_kept_and_warned():
    """Earlier SIPP versions (and the old replica) printed one date where the 2025 view
    prints per-party tables: kept as text, never a ParseError."""
    got, warned = _warnings(
        "putusan",
        _putusan(
            _row("Tanggal Putusan", "Senin, 03 Juni 2024"),
            _row("Kirim Salinan Putusan", "Rabu, 05 Juni 2024"),
        ),
    )
    assert got["kirim_salinan_putusan"] == []
    assert got["lainnya"] == [{"label": "Kirim Salinan Putusan", "value": "Rabu, 05 Juni 2024"}]
    assert warned == [{"page": "tab:putusan", "label": "Kirim Salinan Putusan", "kind": "value"}]


def test_criminal_verdict_without_defendant_rows_has_an_empty_list():
    got, warned = _warnings(
        "putusan",
        _putusan(
            _row("Tanggal Putusan", "Senin, 03 Juni 2024"),
            _row("Status Putusan", "\n\t\t\t\t"),
            _row("Kirim Salinan Putusan Kepada Penyidik", ""),
        ),
    )
    assert got["status_putusan_terdakwa"] == []
    assert "status_putusan" not in got
    assert warned == []


def _heading(title: str) -> str:
    return f"<table id='infoPerkara'><tbody><tr><td><b>{title}</b></td></tr></tbody></table>"


def test_unknown_appeal_section_is_kept_with_its_rows():
    html = (
        "<div id='detilbanding'>"
        + _heading("DATA PARA PIHAK")
        + '<table id="tableinfo"><tr><td>No</td><td>Status</td><td>Nama</td></tr>'
        + "<tr><td>1</td><td>Pembanding</td><td>Budi</td></tr></table>"
        + _heading("PENCABUTAN BANDING")
        + "<table id='infoPerkara'>"
        + _row("Tanggal Pencabutan", "Senin, 03 Juni 2024")
        + "</table></div>"
    )
    got, warned = _warnings("banding", html)
    assert got == {
        "para_pihak": [{"status": "Pembanding", "nama": "Budi"}],
        "lainnya": [
            {
                "label": "PENCABUTAN BANDING",
                "rows": [["Tanggal Pencabutan", "Senin, 03 Juni 2024"]],
            }
        ],
    }
    assert warned == [{"page": "tab:banding", "label": "PENCABUTAN BANDING", "kind": "block"}]


def test_unknown_party_column_is_kept_per_row():
    html = (
        _heading("TANGGAL PEMBERITAHUAN PUTUSAN KASASI")
        + '<table id="tableinfo"><tr><td>No</td><td>Status</td><td>Nama</td><td>Tanggal</td>'
        + "<td>Jurusita</td></tr><tr><td>1</td><td>Termohon Kasasi</td><td>Ani</td>"
        + "<td>Senin, 03 Juni 2024</td><td>Joko</td></tr></table>"
    )
    got, warned = _warnings("kasasi", html)
    assert got == {
        "pemberitahuan_putusan": [
            {
                "status": "Termohon Kasasi",
                "nama": "Ani",
                "tanggal": "2024-06-03",
                "lainnya": [{"label": "Jurusita", "value": "Joko"}],
            }
        ]
    }
    assert warned == [{"page": "tab:kasasi", "label": "Jurusita", "kind": "column"}]


@pytest.mark.parametrize("slug", ["putusan", "banding", "kasasi", "pk", "putusan_sela", "grasi"])
def test_no_data_message_is_empty_and_a_page_without_tables_is_an_error(slug: str):
    assert parse_tab(slug, "<div><b>DATA TIDAK DITEMUKAN</b></div>") == {}
    page = "<div>Maaf, halaman sedang dalam perbaikan</div>"
    with pytest.raises(ParseError, match=slug):
        TAB_PARSERS[slug](page)
    # the dispatch never raises on it: the page is kept generically, with a warning
    got, warned = _warnings(slug, page)
    assert got == {"generic": True, "blocks": [{"text": "Maaf, halaman sedang dalam perbaikan"}]}
    assert warned == [{"page": f"tab:{slug}", "label": slug, "kind": "page"}]


def test_single_judge_and_lines_without_a_title():
    html = (
        _heading("PUTUSAN BANDING")
        + "<table id='infoPerkara'>"
        + _row("Majelis Hakim Banding", "Hakim Tunggal: Dr. Sri Mulyani, S.H.")
        + _row("Majelis Hakim Banding", "")
        + "</table>"
    )
    got, warned = _warnings("banding", html)
    # a repeated label printed empty keeps the filled value
    assert got == {
        "majelis_hakim": [{"jabatan": "Hakim Tunggal", "nama": "Dr. Sri Mulyani, S.H."}]
    }
    assert warned == []
