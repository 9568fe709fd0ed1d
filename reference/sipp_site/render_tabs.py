# ruff: noqa: E501  (fragments keep the real views' markup, long lines included)
"""The tab fragments other than the verdict and appeal tabs, as the real views print them.

Each function follows its template in ``application/views/perkara_tab/`` (chakoochandra/sipp-web
at b498430; docs/fidelity.md "Other tabs" names file:line per branch): the same tables, ids,
heading rows and broken markup (unclosed ``<tr>`` in the mediator tables, ``<th>..</td>`` totals
in Biaya Perkara, the stray ``<td>`` in Barang Bukti). Data in, HTML out; no randomness.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from html import escape
from typing import Any

from .formats import date_dmy, date_id, thousands

JSON = dict[str, Any]

WRAPWORD_STYLE = """<style type="text/css">
#infoPerkara .wrapword li {
  display: list-item !important;
  clear: both;
  float: none !important;
}
</style>
"""
NOT_FOUND_ROW = "<tr><td colspan='2'>DATA TIDAK DITEMUKAN</td></tr>"
_MEDIATOR_STATUS = {"Hakim", "Non-Hakim", "Pegawai"}


def e(value: str | None) -> str:
    return "" if value is None else escape(value, quote=False)


def _d(value: str | None) -> dt.date | None:
    return None if value is None else dt.date.fromisoformat(value)


def day(value: str | None) -> str:
    """``convertDayDate``: ``Senin, 03 Jun 2024`` or `` - ``."""
    return date_id(_d(value))


def long_html(value: str | None) -> str:
    """A long text as the database holds it: one ``<p>`` per line."""
    if value is None:
        return ""
    return "".join(f"<p>{e(line)}</p>" for line in value.split("\n"))


def label_row(label: str, value: str, *, top: bool = False, wrap: bool = False) -> str:
    style = ' style="vertical-align: top;"' if top else ""
    cls = " class='wrapword'" if wrap else ""
    return (
        f'\t\t\t\t\t\t<tr>\n\t\t\t\t\t\t\t<td id="first-child"{style}><font color="white">{label}</font></td>\n'
        f"\t\t\t\t\t\t\t<td{cls}>{value}</td>\n\t\t\t\t\t\t</tr>\n"
    )


# ----------------------------------------------------------------------- riwayat / jadwal


def riwayat(data: list[JSON]) -> str:
    rows = (
        "".join(
            f"<tr><td>{k}</td><td>{day(r['tanggal'])}</td><td>{e(r['tahapan'])}</td><td>{e(r['proses'])}</td></tr>"
            for k, r in enumerate(data, 1)
        )
        or '<tr><td align="center" colspan="4">DATA TIDAK DITEMUKAN</td></tr>'
    )
    return (
        '<div class="cssTable" style="margin-top:5px;">\n    <table id="tableinfo">\n        <colgroup>\n'
        '            <col width="3%">\n            <col width="20%">\n            <col width="37%">\n'
        '            <col width="30%">\n        </colgroup>\n        <tbody>\n            <tr>\n'
        "                <td><b>No</b></td>\n                <td>Tanggal</td>\n                <td>Tahapan</td>\n"
        "                <td>Proses</td>\n            </tr>\n"
        f"{rows}\n        </tbody>\n    </table>\n</div>\n"
    )


def jadwal(data: list[JSON]) -> str:
    rows = []
    for k, r in enumerate(data, 1):
        suffix = f"<br> {e(r['jenis_sidang'])}" if r["jenis_sidang"] else ""
        room = e(r["ruangan"]) if r["ruangan"] else "Belum Ditentukan"
        rows.append(
            f"<tr><td>{k}</td><td>{day(r['tanggal'])}</td><td>{e(r['jam'])}</td>"
            f"<td>{e(r['agenda'])}{suffix}</td>"
            f'<td style="text-align:center;">{room} <br> ({e(r["dihadiri_oleh"])})</td>'
            f"<td>{e(r['alasan_ditunda'])}</td></tr>"
        )
    return (
        '<div class="cssTable" style="margin:0px;padding:0px;">\n'
        '\t<table id="tableinfo" style="font-size:14px;width:100%;">\n'
        '\t\t<col width="3%" />\n\t\t<col width="13%" />\n\t\t<col width="12%" />\n'
        '\t\t<col width="30%" />\n\t\t<col width="15%" />\n\t\t<col width="27%" />\n\t\t<tbody>\n'
        "\t\t\t<tr>\n\t\t\t\t<td>No</td>\n\t\t\t\t<td>Tanggal Sidang</td>\n\t\t\t\t<td>Jam</td>\n"
        "\t\t\t\t<td>Agenda</td>\n\t\t\t\t<td>Ruangan</td>\n\t\t\t\t<td>Alasan Ditunda</td>\n\t\t\t</tr>\n"
        + "".join(rows)
        + "\t\t</tbody>\n\t</table>\n</div>\n"
    )


# ------------------------------------------------------------------------------ penetapan


def _penetapan_block(
    title: str,
    first: bool,
    cols: Sequence[str],
    head: Sequence[str],
    rows: Sequence[Sequence[str]],
) -> str:
    pad = "" if first else "padding-top:20px;"
    colgroup = "".join(f'<col width="{c}">' for c in cols)
    plain = 3 if len(head) >= 4 else 2  # Aktif (and Jenis Acara) cells are centred
    hrow = "<tr>" + "".join(f"<td>{h}</td>" for h in head) + "</tr>"
    body = (
        "".join(
            "<tr>"
            + "".join(
                f"<td>{c}</td>" if i < plain else f'<td style="text-align:center;">{c}</td>'
                for i, c in enumerate(r)
            )
            + "</tr>"
            for r in rows
        )
        or '<tr><td colspan="3">BELUM DITETAPKAN</td></tr>'
    )
    return (
        f"\t\t<tr><td style='{pad}padding-left:5px;color: #648C03;font-size: 15px;'><b>{title}</b></td></tr>\n"
        "\t\t<tr>\n\t\t\t<td>\n\t\t\t\t<div class=\"cssTable\" style='width:100%'>\n"
        f"\t\t\t\t\t<table>{colgroup}<tbody>{hrow}{body}</tbody></table>\n"
        "\t\t\t\t</div>\n\t\t\t</td>\n\t\t</tr>\n"
    )


def penetapan(data: JSON, ptun: bool = False) -> str:
    hakim_head = ["Tanggal Penetapan", "Nama Hakim/Majelis Hakim", "Posisi"]
    if ptun:
        hakim_head.append("Jenis Acara")
    hakim_head.append("Aktif")
    hakim_rows = [
        [day(r["tanggal_penetapan"]), e(r["nama"]), e(r["posisi"])]
        + ([e(r["jenis_acara"])] if ptun else [])
        + [e(r["aktif"])]
        for r in data["hakim"]
    ]
    parts = [
        _penetapan_block(
            "PENETAPAN HAKIM",
            True,
            ("20%", "25%", "25%", "10%", "10%") if ptun else ("20%", "30%", "30%", "10%"),
            hakim_head,
            hakim_rows,
        ),
        _penetapan_block(
            "PENETAPAN PANITERA PENGGANTI",
            False,
            ("20%", "60%", "10%"),
            ["Tanggal Penetapan", "Nama Panitera Pengganti", "Aktif"],
            [
                [day(r["tanggal_penetapan"]), e(r["nama"]), e(r["aktif"])]
                for r in data["panitera_pengganti"]
            ],
        ),
    ]
    if "jurusita_pengganti" in data:
        parts.append(
            _penetapan_block(
                "PENETAPAN JURUSITA PENGGANTI",
                False,
                ("20%", "60%", "10%"),
                ["Tanggal Penetapan", "Nama Jurusita Pengganti", "Aktif"],
                [
                    [day(r["tanggal_penetapan"]), e(r["nama"]), e(r["aktif"])]
                    for r in data["jurusita_pengganti"]
                ],
            )
        )
    parts.append(
        _penetapan_block(
            "PENETAPAN SIDANG PERTAMA",
            False,
            ("20%", "70%"),
            ["Tanggal Penetapan", "Tanggal Sidang Pertama"],
            [
                [day(r["tanggal_penetapan"]), day(r["tanggal_sidang"])]
                for r in data["sidang_pertama"]
            ],
        )
    )
    return (
        '<div style="font-size:14px;width:90%;">\n\t<table>\n'
        + "".join(parts)
        + "\t</table>\n</div>\n"
    )


# ---------------------------------------------------------------------------- saksi, mediasi


def saksi(names: list[str]) -> str:
    rows = "".join(
        f"<tr><td align='center'>{k}</td><td>{e(n)}</td></tr>" for k, n in enumerate(names, 1)
    )
    return (
        WRAPWORD_STYLE
        + '<div class="cssTable">\n\t<table id="tableinfo" style="margin:0px;padding:0px;">\n'
        '\t\t<col width="5%">\n\t\t<col width="95%">\n\t\t<tbody>\n'
        f"<tr><td>No</td><td>Nama</td></tr>{rows}\t\t</tbody>\n\t</table>\n</div>\n"
    )


def mediator_table(mediators: list[JSON], center_status: bool = False) -> str:
    align = "center" if center_status else "left"
    rows = "".join(
        "<tr>"
        f"<td style='text-align:center; vertical-align:top'>{k}</td>"
        f"<td style='text-align:left; vertical-align:top;'>{e(m['nama'])}<br></td>"
        f"<td style='text-align:{align}; vertical-align:top'>{e(m['status']) if m['status'] else '-'}</td>"
        "<tr>"
        # the view loops over the "<br/>"-split names: with none it still prints one empty row
        for k, m in enumerate(mediators or [{"nama": "", "status": None}], 1)
    )
    return (
        '<div class="cssTable" style="">\n<table id="tableinfo" style="margin:0px;padding:0px;">\n'
        '<col style="width:5%">\n<col style="width:75%">\n<col style="width:20%">\n<tbody>\n'
        "<tr>\n<td>No</td>\n<td>Nama</td>\n<td>Status Mediator</td>\n\n</tr>\n"
        f"{rows}\n</tbody>\n</table>\n"
    )


def _mediasi_rows(r: JSON, keys: tuple[str, str, str]) -> str:
    start, end, result = keys
    return (
        label_row("Tgl. Penetapan Mediator", day(r["tanggal_penetapan_mediator"]))
        + label_row("No. Penetapan Mediator", e(r["nomor_penetapan_mediator"]))
        + '<tr>\n<td id="first-child"><font color="white">Data Mediator</font></td>\n<td colspan="2">\n'
        + mediator_table(r["mediator"])
        + "</td>\n</tr>\n"
        + label_row("Tgl. Mulai Mediasi", day(r[start]))
        + '<tr>\n<td id="first-child" ><font color="white">Tgl. Hasil Mediasi</font></td>\n'
        f"<td class='wrapword'>{day(r[end])}</td>\n</tr>\n"
        + label_row("Hasil Mediasi", e(r[result]))
    )


def mediasi(data: list[JSON]) -> str:
    out = [WRAPWORD_STYLE, '<div style="font-size:14px;">\n']
    for r in data:
        out.append(
            "\t\t\t\t<table id='infoPerkara' style=\"font-size:14px;width:100%;\">\n"
            '\t\t\t\t\t<col width="15%">\n\t\t\t\t\t<col width="85%">\n\t\t\t\t\t<tbody>\n'
            '\t\t\t\t\t\t<tr>\n\t\t\t\t\t\t\t<td colspan="3" class="header">\n\t\t\t\t\t\t\t</td>\n'
            f'\t\t\t            <tr>\n\t\t\t                <td colspan="3" class="divider">Data Penetapan {e(r["jenis"])}</td>\n\t\t\t            </tr>\n'
            + _mediasi_rows(r, ("tanggal_mulai", "tanggal_hasil", "hasil"))
            + "\t\t\t\t\t</tbody>\n\t\t\t\t</table>\n"
        )
    out.append("</div>\n")
    return "".join(out)


def penuntutan(data: list[JSON]) -> str:
    rows = (
        "".join(
            label_row("Tanggal Tuntutan", day(r["tanggal_tuntutan"]))
            + label_row("Isi Tuntutan", long_html(r["isi_tuntutan"]), top=True, wrap=True)
            for r in data
        )
        or NOT_FOUND_ROW
    )
    return (
        WRAPWORD_STYLE
        + '<div style="font-size:14px;">\n\t<table id=\'infoPerkara\' style="font-size:14px;width:100%;">\n'
        f'\t\t<col width="15%">\n\t\t<col width="85%">\n\t\t<tbody>\n{rows}\t\t</tbody>\n\t</table>\n</div>\n'
    )


# ------------------------------------------------------------------------ biaya, barang bukti


def _rp(amount: int) -> str:
    return f"Rp. {thousands(amount)}"


def _total_row(total: JSON, first: bool) -> str:
    border = "border-left: 1px solid white;" if not first else ""
    return (
        "<tr>"
        f'<th align="right" bgcolor="#5FB85C" colspan="3" style="text-align: center;{border}"><font color="#fff">Total</td>'
        f'<th align="right" bgcolor="#5FB85C" style="text-align: right;" ><font color="#fff">{_rp(total["pemasukan"])}</td>'
        f'<th class="info" bgcolor="#5FB85C" style="text-align: right;"><font color="#fff">{_rp(total["pengeluaran"])}</td>'
        f'<th class="info" bgcolor="#5FB85C" style="text-align: right;"><font color="#fff">{_rp(total["sisa"])}</td>'
        '<th class="info" bgcolor="#5FB85C" style="text-align: right;"></td>'
        "</tr>"
    )


def biaya(data: list[JSON]) -> str:
    """``biaya_perkara.php``: one table per stage, ``No`` counting on across stages, the
    previous stage's total printed (with its ``border-left``) before the next heading."""
    out = ['<div class="cssTable">']
    n = 0
    for k, stage in enumerate(data):
        if k:
            out.append(_total_row(data[k - 1]["total"], False) + "</table>")
            out.append("<div style='padding-top:20px;'></div>")
        out.append(
            "\n                   \n                        <div style='padding-left:5px;color: #648C03;font-size: 15px;'>"
            f"<b>{e(stage['tahap'])}</b></div>\n                    "
            '<table id="tableStatusPutusan"><tr>'
            '<td width=\'5%\' class="no" rowspan="2">No</td>'
            '<td width=\'15%\' class="dates" rowspan="2">Tanggal Transaksi</td>'
            '<td width=\'35%\' class="uraian" rowspan="2">Uraian</td>'
            "<td width='45%' colspan=\"3\">nominal</td>"
            '<td width=\'15%\' class="ket" rowspan="2">Keterangan</td></tr><tr>'
            '<td width=\'15%\' bgcolor="#5FB85C" style="text-align: center;border-left: 1px solid white;" class="info"><font color="#fff">Pemasukan</td>'
            '<td width=\'15%\' bgcolor="#5FB85C" style="text-align: center;" class="info"><font color="#fff">Pengeluaran</td>'
            '<td width=\'15%\' bgcolor="#5FB85C" style="text-align: center;" class="info"><font color="#fff">Sisa</td></tr>'
        )
        for r in stage["transaksi"]:
            n += 1
            if r["pemasukan"] is not None:
                money = f'<td style="text-align: right;">{_rp(r["pemasukan"])}</td><td></td>'
            else:
                money = f'<td></td><td style="text-align: right;">{_rp(r["pengeluaran"])}</td>'
            out.append(
                f'<tr><td class="no">{n}</td><td class="dates">{day(r["tanggal"])}</td>'
                f"<td>{e(r['uraian'])}</td>{money}"
                f'<td style="text-align: right;">{_rp(r["sisa"])}</td><td>{e(r["keterangan"])}</td></tr>'
            )
    if data:
        out.append(_total_row(data[-1]["total"], True) + "</table>")
    out.append("</div>")
    return "".join(out) + "\n"


def barang_bukti(data: list[JSON]) -> str:
    if not data:
        return (
            "\n    <table style='width:100%'>\n        <tr>\n"
            "            <td style='text-align:center;font-size:14px;'>Tidak Ada Pencatatan Register Barang Bukti</td>\n"
            "        </tr>\n    </table>\n"
        )
    out = ["\n"]
    for r in data:
        out.append(
            '        <div class="detil" style="font-size:14px;margin-top:5px;margin: 0 0;border-color: #FFFFFF">\n'
            '                <table id="tableDetilPerkara" style="font-size:14px; width: 100%;">\n'
            '                    <col width="15%">\n                    <col width="85%">\n                    <tbody>\n'
            '                        <tr>\n                            <td><font color="white">Tanggal Penerimaan</font></td>\n'
            f'                            <td style="padding:0px;padding-left:5px;">\n                                {date_dmy(_d(r["tanggal_penerimaan"])).strip(" -")}\n                            </td>\n'
            '                        <tr>\n                            <td valign="top" style="vertical-align:top;"><font color="white">Jenis dan Uraian lengkap Barang Bukti</font></td>\n'
            f"                            <td>{e(r['uraian'])}<td>\n                        </tr>\n"
            f'                        <tr>\n                            <td ><font color="white">Tempat Penyimpanan</font></td>\n                            <td>{e(r["tempat_penyimpanan"])}</td>\n                        </tr>\n'
            f'                        <tr>\n                            <td ><font color="white">Tempat Penyerahan</font></td>\n                            <td>{e(r["tempat_penyerahan"])}</td>\n                        </tr>\n'
            f'                        <tr>\n                            <td ><font color="white">Nama Penerima</font></td>\n                            <td>{e(r["nama_penerima"])}</td>\n                        </tr>\n'
            f'                        <tr>                    \n                            <td><font color="white">Tgl Penyerahan Barang Bukti</font></td>\n                            <td>{date_dmy(_d(r["tanggal_penyerahan"])).strip(" -")}</td>\n                        </tr>\n'
            f'                        <tr>\n                            <td ><font color="white">Catatan<font color="white"></td>\n                            <td>{e(r["catatan"])}</td>\n                        </tr>\n'
            "                </table>\n        </div>\n"
        )
    return "".join(out)


# ------------------------------------------------------------------------- rarer tabs


def diversi(data: list[JSON]) -> str:
    out = [
        WRAPWORD_STYLE,
        '<div style="font-size:14px;">\n\t<table id=\'infoPerkara\' style="font-size:14px;width:100%;">\n\t\t<col width="15%">\n\t\t<col width="85%">\n\t\t<tbody>\n',
    ]
    for r in data:
        names = "".join(
            f"<tr><td align='center'>{k}</td><td>{e(n)}</td></tr>"
            for k, n in enumerate(r["pembimbing_kemasyarakatan"], 1)
        )
        out.append(
            '\t\t\t\t\t\t<tr>\n\t\t\t        \t\t<td id="first-child">Pembimbing Kemasyarakatan</td>\n'
            '\t\t\t        \t\t<td colspan="2">\n<div class="cssTable"><table id="tableinfo" style="margin:0px;padding:0px;">'
            '<col width="5%"><col width="95%"><tbody><tr><td>No</td><td>Nama</td></tr>'
            f"{names}</tbody></table></div>\t\t\t\t\t\t\t\t\n\t\t\t        \t\t</td>\n\t\t\t        \t</tr>\n"
            + label_row(
                "Tanggal Penetapan Musyawarah Diversi", day(r["tanggal_penetapan_musyawarah"])
            )
            + label_row("Tanggal Musyawarah Diversi", day(r["tanggal_musyawarah"]))
            + label_row("Kesepakatan Pelaksanaan Musyawarah Diversi", e(r["kesepakatan"]))
            + label_row("Tanggal Hasil Musyawarah Diversi", day(r["tanggal_hasil_musyawarah"]))
            + label_row("Hasil Diversi", e(r["hasil"]))
            + label_row(
                "Tanggal Laporan Hakim Fasilitator Kepada Ketua Pengadilan Negeri",
                day(r["tanggal_laporan_hakim"]),
            )
            + label_row("Nomor Penetapan Kesepakatan Diversi", e(r["nomor_penetapan_kesepakatan"]))
            + label_row(
                "Tanggal Penetapan Kesepakatan Diversi", day(r["tanggal_penetapan_kesepakatan"])
            )
            + label_row(
                "Tanggal Mulai Pelaksanaan Kesepakatan Diversi",
                day(r["tanggal_mulai_pelaksanaan"]),
            )
            + label_row("Status Pelaksanaan Kesepakatan Diversi", e(r["status_pelaksanaan"]))
            + label_row(
                "Tgl. Laporan Pembimbing Kemasyarakatan Kepada Ketua Pengadilan Negeri",
                day(r["tanggal_laporan_pembimbing"]),
            )
            + label_row(
                "No. Laporan Pembimbing Kemasyarakatan Kepada Ketua Pengadilan Negeri",
                e(r["nomor_laporan_pembimbing"]),
            )
            + "\t\t\t\t\t\t\n\t\t\t\t\t\t<tr>\n\t\t\t\t\t\t\t<td colspan='2'></td>\n\t\t\t\t\t\t</tr>\n"
        )
    if not data:
        out.append(NOT_FOUND_ROW)
    out.append("\t\t</tbody>\n\t</table>\n</div>\n")
    return "".join(out)


def _heading_table(title: str) -> str:
    return (
        "<table id='infoPerkara' style=\"font-size:14px;width:100%;\"><tbody><tr>"
        f"<td style='padding-left:5px;color: #648C03;font-size: 15px;'><b>{title}</b></td></tr></tbody></table>\n"
    )


def _span_row(label: str, value: str) -> str:
    return (
        f'\t<tr>\n\t\t<td id="first-child"><font color="white">{label}</font></td>\n'
        f"\t    <td><span>{value}</span></td>\n\t</tr>\n"
    )


_OPEN = '<table id="infoPerkara" style="font-size:14px;width:100%;">\n\t<col width="15%">\n    <col width="85%">\n    <tbody>\n'
_CLOSE = "    </tbody>\n</table>\n"
_SEP = "\t<tr><td colspan=\"2\" style='background:white;'></td></tr>\n"


def _green_row(title: str) -> str:
    return (
        "\t\t\t\t<tr>\n\t\t\t\t\t<td colspan='2' style=\"background-color:#A3DBA8;padding:5px;\">"
        f"{title}</td>\n\t\t\t\t</tr>\n"
    )


def _plain_row(label: str, value: str, top: bool = False) -> str:
    style = ' style="vertical-align:top;"' if top else ""
    return (
        f'\t\t\t\t<tr>\n\t\t\t\t\t<td id="first-child"{style}>{label}</td>\n'
        f"\t\t\t\t\t<td>{value}</td>\n\t\t\t\t</tr>\n"
    )


def _dismissal_notices(rows: list[JSON], sides: list[int]) -> str:
    """dismissal.php:116-189: the pihakke 1 table whenever any notice exists, ``<br>``, the
    pihakke 2 table when that side has one, else ``Belum diBeritahukan``."""
    if not rows:
        return "\n\t\t\t\t\t\tBelum diBeritahukan\t\t\t\t\t"

    def table(side: int) -> str:
        body = "".join(
            f"<tr><td>{e(r['status'])}</td><td>{e(r['nama'])}</td><td>{day(r['tanggal']) if r['tanggal'] else ''}</td></tr>"
            for r, s in zip(rows, sides, strict=True)
            if s == side
        )
        return (
            '\n\t\t\t\t\t\t<div class="cssTable">\n\t\t\t\t\t\t\t<table id="tableinfo" style="margin:0px;padding:0px;">\n'
            '\t\t\t\t\t\t\t\t<col width="20%">\n\t\t\t\t\t\t\t\t<col width="55%">\n\t\t\t\t\t\t\t\t<col width="25%">\n'
            "\t\t\t\t\t\t\t\t<tbody>\n\t\t\t\t\t\t\t\t\t<tr>\n\t\t\t\t\t\t\t\t\t\t<td>Status</td>\n"
            "\t\t\t\t\t\t\t\t\t\t<td>Nama</td>\n\t\t\t\t\t\t\t\t\t\t<td>Tanggal Pemberitahuan Putusan</td>\n"
            f"\t\t\t\t\t\t\t\t\t</tr>\n\t\t\t\t\t\t\t\t{body}\t\t\t\t\t\t\t\t</tbody>\n"
            "\t\t\t\t\t\t\t</table>\n\t\t\t\t\t\t</div>\n"
        )

    out = table(1) + "<br>"
    if 2 in sides:
        out += table(2)
    return out + "\t\t\t\t\t"


#: dismissal.php:82 of the 2021 views: hasil 1 Diterima, else Ditolak (2025: Lolos / Tidak Lolos)
_DISMISSAL_2021_WORDS = {"Lolos": "Diterima", "Tidak Lolos": "Ditolak"}


def dismissal(data: list[JSON], ptun: bool, sides: list[int], views: str = "2025") -> str:
    """``dismissal.php``: PTUN (alur 9) with its summons block, the Lolos / Tidak Lolos row
    and, when Tidak Lolos, the notification block; alur 8 with the per-side notice tables.
    ``views="2021"``: that version's words (backup_sip dismissal.php:79-92): PTUN prints
    Diterima / Ditolak and no amar row, alur 8 heads its amar row "Amar Penetapan"."""
    old = views == "2021"
    out = [
        WRAPWORD_STYLE,
        (
            '<div style="font-size:14px;">\n\t<table id=\'infoPerkara\' style="font-size:14px;width:100%;">\n'
            '\t\t<col width="15%">\n\t\t<col width="85%">\n\t\t<tbody>\n'
        ),
    ]
    hasil = ""
    if ptun:
        summons = [x for r in data for x in r.get("panggilan", [])]
        cell = ""
        if summons:
            cell = (
                '\n\t\t\t\t\t\t<div class="cssTable" style="margin:0px;padding:0px;width:75%">\n'
                '\t\t\t\t\t\t\t<table id="tableinfo" style="margin:0px;padding:0px;width:100%">\n'
                '\t\t\t\t\t\t\t\t<col width="3%">\n\t\t\t\t\t\t\t\t<col width="15%">\n\t\t\t\t\t\t\t\t<col width="20%">\n'
                "\t\t\t\t\t\t\t\t<tbody>\n\t\t\t\t\t\t\t\t\t<tr>\n\t\t\t\t\t\t\t\t\t\t<td>No</td>\n"
                "\t\t\t\t\t\t\t\t\t\t<td>Tanggal Panggilan</td>\n\t\t\t\t\t\t\t\t\t\t<td>Status Kehadiran</td>\n"
                "\t\t\t\t\t\t\t\t\t</tr>\n\t\t\t\t\t\t\t\t"
                + "".join(
                    f"<tr><td>{k}</td><td>{day(x['tanggal']) if x['tanggal'] else ''}</td>"
                    f"<td>{e(x['status_kehadiran'])}</td></tr>"
                    for k, x in enumerate(summons, 1)
                )
                + "\t\t\t\t\t\t\t\t</tbody>\n\t\t\t\t\t\t\t</table>\n\t\t\t\t\t\t</div>\n\t\t\t\t\t\t"
            )
        out.append(_green_row("Data Panggilan Dismissal"))
        out.append(_plain_row("Jadwal Panggilan Dismissal", cell, top=True))
    out.append(_green_row("Data Penetapan Dismissal"))
    for r in data:
        out.append(_plain_row("Tanggal Penetapan", day(r["tanggal_penetapan"])))
        if ptun:
            hasil = r["hasil"]
            shown = _DISMISSAL_2021_WORDS.get(hasil, hasil) if old else hasil
            out.append(_plain_row("Penetapan Dismissal", e(shown)))
        if not (old and ptun):
            label = "Amar Penetapan" if old else "Pertimbangan Hukum dan Amar"
            out.append(
                '\t\t\t\t<tr>\n\t\t\t\t\t<td id="first-child" style="vertical-align: top;">'
                f"{label}</td>\n"
                f"\t\t\t\t\t<td class='wrapword'>{long_html(r['amar'])}</td>\n\t\t\t\t</tr>\n"
            )
        out.append("\t\t\t\t<tr>\n\t\t\t\t\t<td colspan='2'></td>\n\t\t\t\t</tr>\n")
    if not data:
        out.append(NOT_FOUND_ROW)
    if not ptun:
        notices = [n for r in data for n in r["pemberitahuan_putusan"]]
        out.append(
            _plain_row("Pemberitahuan Putusan", _dismissal_notices(notices, sides), top=True)
        )
    elif hasil == "Tidak Lolos":
        out.append(_green_row("Data Pemberitahuan Penetapan Dismissal"))
        r = data[-1]
        out.append(
            _plain_row(
                "Pemberitahuan Kepada Penggugat",
                day(r["tanggal_pemberitahuan_penggugat"]),
                top=True,
            )
        )
        out.append(
            _plain_row(
                "Pemberitahuan Kepada Tergugat", day(r["tanggal_pemberitahuan_tergugat"]), top=True
            )
        )
    out.append("\t\t</tbody>\n\t</table>\n</div>\n")
    return "".join(out)


#: detil_grasi.php:57-219: label, truth key, kind ("date", "text", "yn", "never", "dash")
_GRASI_ROWS: tuple[tuple[str, str, str], ...] = (
    ("Nomor Perkara PN", "nomor_perkara_pn", "text"),
    ("Putusan PN", "tanggal_putusan_pn", "date"),
    ("Nomor Perkara Banding", "nomor_perkara_banding", "text"),
    ("Putusan Banding", "tanggal_putusan_banding", "date"),
    ("Nomor Perkara Kasasi", "nomor_perkara_kasasi", "text"),
    ("Putusan Kasasi", "tanggal_putusan_kasasi", "date"),
    ("Nomor Perkara PK", "nomor_perkara_pk", "text"),
    ("Putusan PK", "tanggal_putusan_pk", "date"),
    ("Permohonan Grasi", "tanggal_permohonan_grasi", "date"),
    ("Permohonan Penundaan Pidana", "tanggal_permohonan_penundaan_pidana", "date"),
    ("Nama Terdakwa", "nama_terdakwa", "text"),
    ("Nama Pemohon", "nama_pemohon", "text"),
    ("Pekerjaan Pemohon", "pekerjaan_pemohon", "text"),
    ("Alamat Pemohon", "alamat_pemohon", "text"),
    ("Pemberitahuan Putusan Tetap", "tanggal_pemberitahuan_putusan_tetap", "date"),
    ("Menjalani Pidana Pengganti", "menjalani_pidana_pengganti", "yn"),
    ("Terpidana Dalam Tahanan", "terpidana_dalam_tahanan", "yn"),
    ("Denda Dibayar", "denda_dibayar", "yn"),
    ("Barang Rampasan", "barang_rampasan", "yn"),
    ("Tanggal Pertimbangan Mahkamah Agung", "tanggal_pertimbangan_ma", "date"),
    ("Isi Pertimbangan Mahkamah Agung", "isi_pertimbangan_ma", "text"),
    ("Pengiriman Berkas Grasi ke Kejaksaan negeri", "tanggal_pengiriman_berkas_kejaksaan", "date"),
    ("Nomor Surat Pengiriman Berkas Grasi ke Kejaksaan Negeri",
     "nomor_surat_pengiriman_berkas_kejaksaan", "text"),
    ("Pengiriman Berkas Grasi ke MA", "tanggal_pengiriman_berkas_ma", "date"),
    ("Nomor Surat Pengiriman Berkas Grasi ke MA", "nomor_surat_pengiriman_berkas_ma", "never"),
    ("Pengiriman Pertimbangan Hakim Grasi", "tanggal_pengiriman_pertimbangan_hakim", "date"),
    ("Tanggal Putusan Presiden", "tanggal_putusan_presiden", "date"),
    ("Nomor Putusan Presiden", "nomor_putusan_presiden", "text"),
    ("Isi Keputusan Presiden", "isi_keputusan_presiden", "text"),
    ("Tanggal Penerimaan Kembali Berkas Grasi", "tanggal_penerimaan_kembali_berkas", "date"),
    ("Pemberitahuan Putusan Grasi Kepada Pemohon dan Jaksa", "tanggal_pemberitahuan_putusan",
     "date"),
    ("Penerimaan Tembusan Berita Acara Pelaksanaan Putusan Dari Penuntut Umum",
     "tanggal_penerimaan_tembusan_ba_pelaksanaan", "date"),
    ("Keterangan", "keterangan", "dash"),
)  # fmt: skip


def grasi(data: JSON | None) -> str:
    """``perkara_tab/detil_grasi.php``: one ``table#tableDetilPerkara`` of label rows."""
    r = data or {}
    rows = []
    for label, key, kind in _GRASI_ROWS:
        value = r.get(key)
        if kind == "date":
            cell = day(value)
        elif kind == "yn":
            cell = f"\n\t\t\t\t\t\t{'YA' if value == 'YA' else 'Tidak'}\t\t\t\t\t\t"
        elif kind == "never":
            cell = ""
        elif kind == "dash":
            cell = day(None)
        else:
            cell = e(value)
        tr = '<tr id="tr_terdakwa">' if key == "nama_terdakwa" else "<tr>"
        rows.append(
            f'\t\t\t\t\t{tr}\n\t\t\t\t\t\t<td style="color:white;">{label}</td>\n'
            f'\t\t\t\t\t\t<td style="padding:0px;padding-left:5px;">{cell}</td>\n\t\t\t\t\t</tr>\n'
        )
    return (
        '<style type="text/css">\ntd{\n\tborder:1px solid #eee;\n}\n</style>\n'
        ' <hr class="thick-line" style="clear:both;">\n'
        '\t<div class="detil" style="background-color:white;border-color: white;font-size:14px;'
        'margin-top:25px;width: 95%;margin: 0 auto;padding:5px;border:1px solid #5fb85c;">\n'
        '\t\t<table id="tableDetilPerkara">\n\t\t\t<col width="30%">\n\t\t\t<col width="70%">\n'
        "\t\t\t\t<tbody>\n" + "".join(rows) + "\t\t\t\t</tbody>\n\t\t</table>\n\t</div>\n</div>\n"
    )


def penetapan_gugur(data: list[JSON], sides: list[int]) -> str:
    """``penetapan_gugur.php``: date and Amar Penetapan per row, then the per-side
    Pemberitahuan Putusan tables (as dismissal.php's alur 8 branch)."""
    out = [
        WRAPWORD_STYLE,
        (
            '<div style="font-size:14px;">\n\t<table id=\'infoPerkara\' style="font-size:14px;width:100%;">\n'
            '\t\t<col width="15%">\n\t\t<col width="85%">\n\t\t<tbody>\n'
        ),
    ]
    for r in data:
        out.append(_plain_row("Tanggal Penetapan", day(r["tanggal_penetapan"])))
        out.append(
            '\t\t\t\t<tr>\n\t\t\t\t\t<td id="first-child" style="vertical-align: top;">'
            "Amar Penetapan</td>\n"
            f"\t\t\t\t\t<td class='wrapword'>{long_html(r['amar_penetapan'])}</td>\n\t\t\t\t</tr>\n"
            "\t\t\t\t<tr>\n\t\t\t\t\t<td colspan='2'></td>\n\t\t\t\t</tr>\n"
        )
    if not data:
        out.append(NOT_FOUND_ROW)
    notices = [n for r in data for n in r["pemberitahuan_putusan"]]
    out.append(_plain_row("Pemberitahuan Putusan", _dismissal_notices(notices, sides), top=True))
    out.append("\t\t</tbody>\n\t</table>\n</div>\n")
    return "".join(out)


def verzet(data: list[JSON], ptun: bool = False) -> str:
    """``verzet.php`` for civil courts (``Verzet``); PTUN (alur 9) prints ``Perlawanan``, the
    /PLW/ number and no Putusan Verstek row (lines 10-14, 32-34, 182-198)."""
    status = "Perlawanan" if ptun else "Verzet"
    out = [WRAPWORD_STYLE]
    for r in data:
        out.append('<div style="font-size:14px;margin:0px;border:0px;">\n')
        out.append(_heading_table("DATA PERMOHONAN"))
        out.append(
            _OPEN
            + _span_row("Nomor Perkara", e(r["nomor_perkara"]))
            + _span_row(f"Nomor Perkara {status}", e(r["nomor_perkara_verzet"]))
            + _span_row(f"Tanggal Pendaftaran {status}", day(r["tanggal_pendaftaran"]))
            + _CLOSE
        )
        out.append('\n<div style="padding:3px;"></div>\n' + _heading_table("DATA PENETAPAN"))
        out.append(
            _OPEN
            + _span_row("Tanggal Penetapan Majelis", day(r["tanggal_penetapan_majelis"]))
            + _span_row("Majelis Hakim", "<br>".join(e(n) for n in r["majelis_hakim"]))
            + _SEP
            + _span_row(
                "Tanggal Penetapan Panitera Pengganti",
                day(r["tanggal_penetapan_panitera_pengganti"]),
            )
            + _span_row("Panitera Pengganti", e(r["panitera_pengganti"]))
            + _SEP
            + _span_row("Tanggal Penetapan Jurusita", day(r["tanggal_penetapan_jurusita"]))
            + _span_row("Jurusita", e(r["jurusita"]))
            + _SEP
            + _span_row("Tanggal Penetapan Sidang Verzet", day(r["tanggal_penetapan_sidang"]))
            + _span_row("Tanggal Sidang Pertama Verzet", day(r["tanggal_sidang_pertama"]))
            + _CLOSE
        )
        out.append('\n<div style="padding:3px;"></div>\n' + _heading_table("DATA MEDIASI"))
        out.append(
            '<table id=\'infoPerkara\' style="font-size:14px;width:100%;">\n\t<col width="15%">\n\t<col width="85%">\n\t<tbody>\n'
            + _mediasi_rows(r, ("tanggal_mulai_mediasi", "tanggal_hasil_mediasi", "hasil_mediasi"))
            + "\t</tbody>\n</table>\n"
        )
        verstek = "" if r["tanggal_putusan"] is None else "Ya"
        verstek_row = (
            ""
            if ptun
            else f'    <tr>\n        <td id="first-child"><font color="white">Putusan Verstek</font></td>\n        <td>\n        \t{verstek}\t  \t</td>\n    </tr>\n'
        )
        out.append('\n<div style="padding:3px;"></div>\n' + _heading_table("DATA PUTUSAN"))
        out.append(
            _OPEN
            + _span_row(f"Putusan {status}", day(r["tanggal_putusan"]))
            + verstek_row
            + f'\t<tr>\n\t    <td id="first-child"><font color="white">Sumber Hukum</font></td>\n\t    <td>{e(r["sumber_hukum"])}</td>\n\t</tr>\n'
            + _span_row(f"Status Putusan {status}", e(r["status_putusan"]))
            + f'\t<tr>\n\t\t<td id="first-child"><font color="white">Amar Putusan {status}</font></td>\n'
            f'    \t<td style="background:white;" class="wrapword"><span>{long_html(r["amar_putusan"])}</span></td>\n\t</tr>\n'
            + _CLOSE
        )
        out.append('\n<div style="padding:3px;"></div>\n' + _heading_table("DATA PEMBERITAHUAN"))
        out.append(
            _OPEN
            + _span_row("Pemberitahuan Putusan", day(r["tanggal_pemberitahuan_putusan"]))
            + _span_row(
                f"Tanggal Pemberitahuan Putusan {status} Kepada Penggugat",
                day(r["tanggal_pemberitahuan_penggugat"]),
            )
            + _span_row(
                f"Tanggal Pemberitahuan Putusan {status} Kepada Tergugat",
                day(r["tanggal_pemberitahuan_tergugat"]),
            )
            + "   \t</tbody>\n</table>  \n</div>\n"
        )
    return "".join(out)


def _green(title: str) -> str:
    return (
        "                <table id='infoPerkara' style=\"font-size:14px;width:100%;\">\n"
        '                    <col width="15%">\n                    <col width="85%">\n                    <tbody>\n'
        f'                        <tr>\n                            <td style="background-color:#A3DBA8;padding:5px;" colspan="2">{title}</td>\n'
        "                        </tr>\n                    </tbody>\n                </table>\n"
    )


def _ikrar_row(label: str, value: str) -> str:
    return (
        f'                        <tr>\n                            <td id="first-child">{label}</td>\n'
        f"                            <td>\n                                <span>{value}</span>\n                            </td>\n                        </tr>\n"
    )


_IKRAR_OPEN = '            \t<table id="infoPerkara" style="font-size:14px;width:100%;">\n                \t<col width="20%">\n                    <col width="80%">\n                    <tbody>\n'
_IKRAR_CLOSE = "                    </tbody>\n                </table>\n"
_IKRAR_SEP = "                        <tr><td colspan=\"2\" style='background:white;'></td></tr>\n"


def ikrar_talak(data: list[JSON]) -> str:
    out = [WRAPWORD_STYLE]
    for r in data:
        out.append('            <div style="font-size:14px;margin:0px;border:0px;">\n')
        out.append(_green("Data Permohonan Verzet"))
        out.append(
            _IKRAR_OPEN
            + _ikrar_row("Tanggal Putusan Tingkat Pertama", day(r["tanggal_putusan"]))
            + _ikrar_row("Tanggal Berkekuatan Hukum Tetap", day(r["tanggal_bht"]))
            + _IKRAR_CLOSE
            + '                <div style="padding:3px;"></div>\n'
        )
        out.append(_green("Data Penetapan"))
        out.append(
            _IKRAR_OPEN
            + _ikrar_row("Tanggal Penetapan Majelis", day(r["tanggal_penetapan_majelis"]))
            + _ikrar_row("Majelis Hakim", "<br>".join(e(n) for n in r["majelis_hakim"]))
            + _IKRAR_SEP
            + _ikrar_row(
                "Tanggal Penetapan Panitera Pengganti",
                day(r["tanggal_penetapan_panitera_pengganti"]),
            )
            + _ikrar_row("Panitera Pengganti", e(r["panitera_pengganti"]))
            + _IKRAR_SEP
            + _ikrar_row("Tanggal Penetapan Jurusita", day(r["tanggal_penetapan_jurusita"]))
            + _ikrar_row("Jurusita", e(r["jurusita"]))
            + _IKRAR_SEP
            + _ikrar_row(
                "Tanggal Penetapan Sidang Ikrar Talak", day(r["tanggal_penetapan_sidang"])
            )
            + _ikrar_row("Tanggal Sidang Pertama Ikrar Talak", day(r["tanggal_sidang_pertama"]))
            + _IKRAR_CLOSE
            + '                <div style="padding:3px;"></div>\n'
        )
        out.append(_green("Data Penetapan"))
        out.append(
            _IKRAR_OPEN
            + _ikrar_row("Tanggal Ikrar", day(r["tanggal_ikrar"]))
            + _ikrar_row("Status Penetapan Ikrar", e(r["status_penetapan"]))
            + '                        <tr>\n                        \t<td id="first-child">Amar Penetapan Ikrar Talak</td>\n'
            f'                            <td style="background:white;" class="wrapword">\n            \t\t\t\t\t<span>{long_html(r["amar_penetapan"])}</span>\n            \t\t\t\t</td>\n                        </tr>\n'
            + _IKRAR_CLOSE
        )
    return "".join(out)


def _info_table(rows: str) -> str:
    return (
        WRAPWORD_STYLE
        + '<div style="font-size:14px;">\n\t<table id=\'infoPerkara\' style="font-size:14px;width:100%;">\n'
        f'\t\t<col width="15%">\n\t\t<col width="85%">\n\t\t<tbody>\n{rows or NOT_FOUND_ROW}\t\t</tbody>\n\t</table>\n</div>\n'
    )


def intervensi(data: list[JSON], ptun: bool = False) -> str:
    """``intervensi.php``: per party a nested ``PIHAK INTERVENSI n`` heading table in a row;
    PTUN (alur 9) prints no Jenis Intervensi row."""
    rows = ""
    for r in data:
        rows += (
            "\t\t\t\t\t\t<tr>\n\t\t\t\t\t\t\t<td colspan='2'><table id='infoPerkara' style=\"font-size:14px;width:100%;\"><tbody><tr>"
            f"<td style='padding-left:5px;color: #648C03;font-size: 15px;'><b>PIHAK INTERVENSI {r['urutan']}</b></td></tr></tbody></table></td>\n\t\t\t\t\t\t</tr>\n"
            + label_row("Nama Pemohon", e(r["nama_pemohon"]))
            + ("" if ptun else label_row("Jenis Intervensi", e(r["jenis_intervensi"])))
            + label_row("Tergabung Ke Pihak", e(r["tergabung_ke_pihak"]))
            + label_row("Tanggal Intervensi", day(r["tanggal_intervensi"]))
            + label_row("Isi Petitum", long_html(r["petitum"]), top=True, wrap=True)
            + "\t\t\t\t\t\t<tr><td colspan='2'></td></tr>\n"
        )
    return _info_table(rows)


def rekonvensi(data: list[JSON]) -> str:
    """``rekonvensi.php``: label cells without ``<font>``."""
    rows = ""
    for r in data:
        rows += (
            f'\t\t\t\t\t\t<tr>\n\t\t\t\t\t\t\t<td id="first-child">Tanggal Pendaftaran</td>\n\t\t\t\t\t\t\t<td>{day(r["tanggal_pendaftaran"])}</td>\n\t\t\t\t\t\t</tr>\n'
            f'\t\t\t\t\t\t<tr>\n\t\t\t\t\t\t\t<td id="first-child">Para Pihak</td>\n\t\t\t\t\t\t\t<td>{"<br>".join(e(x) for x in r["para_pihak"])}</td>\n\t\t\t\t\t\t</tr>\n'
            '\t\t\t\t\t\t<tr>\n\t\t\t\t\t\t\t<td id="first-child" style="vertical-align: top;">Isi Petitum</td>\n'
            f"\t\t\t\t\t\t\t<td class='wrapword'>{long_html(r['petitum'])}</td>\n\t\t\t\t\t\t</tr>\n"
            "\t\t\t\t\t\t<tr>\n\t\t\t\t\t\t\t<td colspan='2'></td>\n\t\t\t\t\t\t</tr>\n"
        )
    return _info_table(rows)
