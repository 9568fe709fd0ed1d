"""The bankruptcy follow-up tab (``setelah_putusan_pernyataan_pailit``) and its ``sub_*`` pages,
as the real views print them (chakoochandra/sipp-web@b498430 / dd53870):

- the tab (perkara_tab/putusan_pernyataan_pailit.php) is a menu: 15 buttons on a stock install
  (the alur-3 Perdamaian / Pembatalan Perdamaian buttons need ``$alur_perkara_id``, which the
  controller never sets) and a script loading ``sub_<x>/<enc>[/...]`` into ``#tabs_from_accor``;
- ``sub_<x>/<enc>[/...]`` goes through ``redirect_page/redir_sub_<x>`` (routes.php:46-62), which
  keeps only ``<enc>`` and redirects to ``/sub_<x>`` (reference/sipp_site/site.py);
- each ``pasca_pailit/sub_<x>.php``: a green ``<b>`` heading row and a ``cssTable`` (header row,
  one row per record or one ``BELUM DITETAPKAN`` / ``BELUM ADA DATA`` row); ``sub_publisitas``,
  ``sub_rapat`` and ``sub_cocokverifikasi`` frame their tables under a title; ``sub_pemeriksa``
  prints two tables; four views print only ``closeLoading()``; ``sub_pemberesan`` is a second
  menu (its ``sub_*_harta_pailit`` pages are not rendered: docs/fidelity.md).

:func:`sub_pages` gives, for a case, each sub page's spec; :func:`sub_page_html` renders one
and :func:`sub_page_truth` is what the item holds for it (``tab:pailit-<route>``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from html import escape
from typing import Any

from .formats import date_id

JSON = dict[str, Any]


def e(value: str | None) -> str:
    return "" if value is None else escape(value, quote=False)


def day(value: str | None) -> str:
    """``convertDayDate``: ``Senin, 03 Jun 2024`` or `` - ``."""
    return date_id(None if value is None else dt.date.fromisoformat(value))


#: the slug prefix of a sub page's part: ``tab:pailit-sub_kurator``
SUB_SLUG_PREFIX = "pailit-"
CLOSE = '<script type="text/javascript">\ncloseLoading();\n</script>'

#: (anchor, button label, route, what the script appends after <enc>), in button order
MENU: tuple[tuple[str, str, str, str], ...] = (
    ("accor0", "Hakim Pemeriksa &amp; PP", "sub_pemeriksa", ""),
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
)
#: the script branches the menu prints for the two buttons a stock install never shows
_DEAD = (
    ("accor8", "sub_perdamaian", "/dUQ4QjVnPT0/Tm5RZ2ZRPT0"),
    ("accor9", "sub_bataldamai", ""),
)
#: every route ``/sub_<x>`` a court serves (the four no-data views included)
SUB_ROUTES = frozenset({r for _a, _l, r, _t in MENU} | {r for _a, r, _t in _DEAD})
#: views that print only closeLoading()
NO_DATA_VIEWS = frozenset(
    {"sub_perdamaian", "sub_bataldamai", "sub_biayapenyelesaian", "sub_pengakhiran"}
)
_BELUM, _BELUM_ADA = "BELUM DITETAPKAN", "BELUM ADA DATA"
_PERKARA = ["No", "Nomor Perkara", "Tanggal Register", "Klasifikasi Perkara", "Status Perkara"]
_TINDAKAN = [
    "No",
    "Jenis Permohonan",
    "Detil Permohonan",
    "Detil Surat / Penetapan Hakim Pengawas",
]
_RAPAT = ["No", "Tanggal Rapat", "Jam", "Agenda/Alasan Ditunda", "Tempat Rapat"]


@dataclass(frozen=True)
class Section:
    """One table of a sub view: its heading, header row, the no-record message and its span,
    and the records (cells as printed, and as the item holds them)."""

    heading: str
    columns: list[str]
    message: str
    span: int
    printed: list[list[str]] = field(default_factory=list)
    held: list[JSON] = field(default_factory=list)


@dataclass(frozen=True)
class SubPage:
    route: str
    title: str | None  # the frame's title (framed views only)
    sections: list[Section]


def _pemberesan_html() -> str:
    """sub_pemberesan.php: a second menu (four buttons loading ``sub_*_harta_pailit`` pages)."""
    buttons = (
        ("beres1", "penjualan", "Penjualan Harta Pailit"),
        ("beres2", "pembagian", "Pembagian Harta Pailit"),
        ("beres3", "keberatan", "Keberatan Atas Daftar Pembagian Harta Pailit"),
        ("beres4", "tindakan_hakim", "Tindakan Hakim Pengawas"),
    )
    links = "".join(
        f'    <a role="button" href="#{h}" class="beresbut btn btn-success btn-sm" '
        f'style="color:white" id="{i}">{label}</a>\n'
        for h, i, label in buttons
    )
    divs = "".join(
        f'<div id="{i}div" class="konten" style="margin:0;padding:0"></div>\n\n'
        for _h, i, _label in buttons
    )
    return (
        '<div id="pageTitle">Pemberesan</div>\n<hr class="thick-line" style="clear:both;">\n'
        f'<div class="btn-group" style="margin-top:-15px">\n{links}</div>\n\n{divs}'
        '<script>\n$(".konten").hide();\ncloseLoading();\n$("#penjualan").click();\n</script>'
    )


def sub_pages(put: JSON | None) -> list[SubPage]:
    """The sub pages the menu of a declared bankruptcy links, in button order. ``put``: the
    case's ``putusan`` truth (the supervisory judge and curator rows of putusan_akhir.php come
    from the same tables as sub_pengawas / sub_kurator)."""
    put = put or {}
    pengawas, kurator = (
        Section(
            "PENUNJUKAN HAKIM PENGAWAS",
            ["Tanggal Penunjukan", "Nomor Penunjukan", "Nama Hakim", "Aktif"],
            _BELUM,
            4,
        ),
        Section(
            "PENUNJUKAN KURATOR",
            ["Tanggal Penunjukan", "Nomor Surat/ Putusan Penunjukan", "Nama Kurator", "Aktif"],
            _BELUM,
            4,
        ),
    )
    when, number = (
        put.get("tanggal_penetapan_hakim_pengawas"),
        put.get("nomor_penetapan_hakim_pengawas"),
    )
    if put.get("hakim_pengawas") and when:
        printed = [day(when), number or "", put["hakim_pengawas"], "Ya"]
        pengawas.printed.append(printed)
        pengawas.held.append(
            dict(zip(pengawas.columns, [when, number, put["hakim_pengawas"], True], strict=True))
        )
    if put.get("kurator") and when:
        kurator.printed.append([day(when), number or "", put["kurator"], "Ya"])
        kurator.held.append(
            dict(zip(kurator.columns, [when, number, put["kurator"], True], strict=True))
        )
    views: dict[str, SubPage] = {
        "sub_pemeriksa": SubPage(
            "sub_pemeriksa",
            None,
            [
                Section(
                    "HAKIM PEMERIKSA",
                    ["Tanggal Penetapan", "Nama Hakim/Majelis Hakim", "Posisi", "Aktif"],
                    _BELUM,
                    4,
                ),
                Section(
                    "PANITERA/PANITERA PENGGANTI",
                    ["Tanggal Penetapan", "Nama Panitera Pengganti", "Aktif"],
                    _BELUM,
                    3,
                ),
            ],
        ),
        "sub_pengawas": SubPage("sub_pengawas", None, [pengawas]),
        "sub_kurator": SubPage("sub_kurator", None, [kurator]),
        # `PUBLISITAS<?php echo $idalurperkara ?>`: the controller sets no $idalurperkara
        "sub_publisitas": SubPage(
            "sub_publisitas",
            "PUBLISITAS",
            [
                Section("PENETAPAN PUBLISITAS", ["No", "Tanggal", "Isi Penetapan"], _BELUM, 3),
                Section("LAPORAN PUBLISITAS", ["No", "Tanggal Publisitas", "Media"], _BELUM, 3),
            ],
        ),
        "sub_rapat": SubPage(
            "sub_rapat",
            "RAPAT KREDITOR",
            [
                Section("JADWAL DAN HASIL RAPAT", _RAPAT, _BELUM, 3),
                Section("TINDAKAN HAKIM PENGAWAS", _TINDAKAN, _BELUM, 3),
            ],
        ),
        "sub_cabutpernyataan": SubPage(
            "sub_cabutpernyataan",
            None,
            [Section("PENCABUTAN PERNYATAAN PAILIT", _PERKARA, _BELUM_ADA, 5)],
        ),
        "sub_cocokverifikasi": SubPage(
            "sub_cocokverifikasi",
            "PENCOCOKAN PIUTANG DAN VERIFIKASI",
            [
                Section("JADWAL DAN HASIL RAPAT", _RAPAT, _BELUM, 3),
                Section(
                    "BANTAHAN TAGIHAN",
                    ["No", "Tanggal Pengajuan Bantahan", "Pemohon", "Hasil Bantahan"],
                    _BELUM,
                    3,
                ),
                Section("RENVOI PROSEDUR", _PERKARA, _BELUM, 3),
                Section(
                    "TINDAKAN HAKIM PENGAWAS",
                    [
                        "No",
                        "Jenis Permohonan",
                        "Detil Permohonan",
                        "Detil Surat / Penetapan Hakim Pengawas",
                    ],
                    _BELUM,
                    3,
                ),
            ],
        ),
        "sub_gugatanlain": SubPage(
            "sub_gugatanlain", None, [Section("GUGATAN LAIN-LAIN", _PERKARA, _BELUM_ADA, 5)]
        ),
        "sub_insolven": SubPage(
            "sub_insolven",
            None,
            [
                Section(
                    "INSOLVENSI",
                    [
                        "No",
                        "Tanggal Rapat",
                        "Jam Rapat",
                        "Agenda / Alasan Ditunda",
                        "Tempat Rapat",
                    ],
                    _BELUM_ADA,
                    5,
                )
            ],
        ),
        "sub_pemberesan": SubPage("sub_pemberesan", None, []),
        "sub_biayapenyelesaian": SubPage("sub_biayapenyelesaian", None, []),
        "sub_pengakhiran": SubPage("sub_pengakhiran", None, []),
        "sub_pengumuman": SubPage(
            "sub_pengumuman",
            None,
            [
                Section(
                    "INFORMASI KEPANITERAAN",
                    ["No", "Tanggal Register", "Nomor Pengumuman", "Perihal"],
                    _BELUM,
                    4,
                )
            ],
        ),
        "sub_laporankurator": SubPage(
            "sub_laporankurator",
            None,
            [
                Section(
                    "LAPORAN KURATOR",
                    ["No", "Nomor Laporan", "Tanggal", "Deskripsi"],
                    _BELUM_ADA,
                    4,
                )
            ],
        ),
        "sub_rehabilitasi": SubPage(
            "sub_rehabilitasi", None, [Section("REHABILITASI", _PERKARA, _BELUM_ADA, 5)]
        ),
    }
    return [views[route] for _a, _l, route, _t in MENU]


def _green(title: str, pad_top: bool = False) -> str:
    top = "padding-top:20px;" if pad_top else ""
    return (
        f"\t\t<tr><td style='{top}padding-left:5px;color: #648C03;font-size: 15px;'>"
        f"<b>{e(title)}</b></td></tr>\n"
    )


def _table(section: Section, width: str = "100%") -> str:
    head = "".join(f"\t\t\t\t\t\t\t\t<td>{e(c)}</td>\n" for c in section.columns)
    if section.printed:
        body = "".join(
            "<tr>" + "".join(f"<td>{e(v)}</td>" for v in row) + "</tr>" for row in section.printed
        )
    else:
        body = f'<tr><td colspan="{section.span}">{section.message}</td></tr>'
    return (
        f"\t\t\t\t<div class=\"cssTable\" style='width:{width}'>\n\t\t\t\t\t<table>\n"
        f"\t\t\t\t\t\t<tbody>\n\t\t\t\t\t\t\t<tr>\n{head}\t\t\t\t\t\t\t</tr>\n"
        f"\t\t\t\t\t\t\t{body}\t\t\t\t\t\t</tbody>\n\t\t\t\t\t</table>\n\t\t\t\t</div>\n"
    )


def sub_page_html(page: SubPage) -> str:
    """``/sub_<x>`` as the view prints it for this case."""
    if page.route == "sub_pemberesan":
        return _pemberesan_html()
    if not page.sections:
        return "\n\n\n" + CLOSE
    if page.title is None:
        rows = "".join(
            _green(s.heading, pad_top=k > 0)
            + "\t\t<tr>\n\t\t\t<td align='center' style='text-align:center;'>\n"
            + _table(s)
            + "\t\t\t</td>\n\t\t</tr>\n"
            for k, s in enumerate(page.sections)
        )
        frame = '<div style="font-size:14px;width:90%;">\n\t<table>\n'
        return f"{frame}{rows}\t\t\n\t</table>\n</div>\n{CLOSE}"
    inner = "".join(
        _green(s.heading)
        + "\t\t\t\t\t<tr>\n\t\t\t\t\t\t<td align='center' style='text-align:center;'>\n"
        + _table(s, "98%")
        + "\t\t\t\t\t\t</td>\n\t\t\t\t\t</tr>\n\n"
        for s in page.sections
    )
    return (
        f'<div style="font-size:14px;width:95%;">\n\t<table>\n\n{_green(page.title)}'
        "\t\t<tr>\n\t\t\t<td align='center' style='text-align:center;'>\n"
        "\t\t\t<div class=\"cssTable\" style='width:100%'>\n"
        '\t\t\t\t<div style="font-size:14px;">\n'
        "\t\t\t\t\t<table id='infoPerkara' style=\"font-size:14px;width:100%;\">\n"
        f"\t\t\t\t\t<tr></tr>\n{inner}\t\t\t\t\t</table>\n\t\t\t\t</div>\n\t\t\t</div>\n"
        f"\t\t\t</td>\n\t\t<tr>\n\t\t\t\n\t\t</tr>\n\n\t</table>\n</div>\n{CLOSE}"
    )


def sub_page_truth(page: SubPage) -> JSON:
    """What the item holds for the page (docs/item-format.md, ``tab:pailit-<route>``)."""
    blocks = []
    for k, s in enumerate(page.sections):
        headings = [page.title, s.heading] if page.title is not None and k == 0 else [s.heading]
        blocks.append(
            {
                "headings": headings,
                "columns": list(s.columns),
                "records": [dict(r) for r in s.held],
                "message": None if s.held else s.message,
            }
        )
    return {"blocks": blocks}


def menu_html(base: str, enc: str) -> str:
    """perkara_tab/putusan_pernyataan_pailit.php for a stock install (15 buttons)."""
    buttons = "".join(
        f'            <a role="button" id= "tabInfos" href="#{a}" class="btn btn-success btn-sm" '
        f'style="color:white">{label}</a>\n'
        for a, label, _r, _t in MENU
    )
    branches = sorted(
        [(a, r, t) for a, _l, r, t in MENU] + list(_DEAD), key=lambda x: int(x[0][5:])
    )
    script = "".join(
        f"\t\t\t{'if' if k == 0 else '}else if'}($(this).attr('href')=='#{a}'){{\n"
        "                openLoadingDialog();\n"
        f"                $('#tabs_from_accor').load('{base}{r}/{enc}{t}');\n"
        for k, (a, r, t) in enumerate(branches)
    )
    return (
        '<table style="width:100%;">\n    <tr>\n'
        '        <td style="width:240px;vertical-align:top">\n'
        f'        <div class="btn-group-vertical">\n{buttons}        </div>\n        </td>\n'
        '        <td style="height:100%;padding-left:10px;vertical-align:top">\n'
        '            <div style="width:95%" id="tabs_from_accor"></div>\n        </td>\n'
        '    </tr>\n</table>\n<div style="margin-bottom:0px"></div>\n'
        '<script type="text/javascript">\n$( document ).ready(function() {\n'
        "\t$('a#tabInfos').click(function(event){\n"
        f"{script}\t\t\t}}\n"
        "            sessionStorage.setItem(\"accor\",$(this).attr('href'));\n\t})\n});\n"
        "closeLoading();\n</script>\n"
    )


def menu_truth() -> JSON:
    """The menu as the item keeps it: the generic parser's one row of button labels (the tab has
    no parser of its own; its data is in the sub pages)."""
    labels = " ".join(label.replace("&amp;", "&") for _a, label, _r, _t in MENU)
    return {"generic": True, "blocks": [{"rows": [[labels, ""]]}]}
