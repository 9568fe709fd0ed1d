# ruff: noqa: E101, E501, W291, W293  (page templates keep the real pages' layout: long lines, mixed tabs)
"""HTML of the replica: pure functions from generated data (and tokens) to SIPP pages.

The markup follows docs/sipp.md §1-4 and the real saved list page
(``fixtures/real/pa-metro-list-page1.html``): the same ids, classes, menu, ``div.total_perkara``,
``var totalPage`` and pagination template, and the same quirks (duplicate ``id="tableinfo"`` and
``id='tabInfo'``, nested tables, red ``Error, Pihak Not Found!!!`` labels). Tokens are passed in:
a renderer never encrypts anything itself, so its output is a function of its arguments.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from . import render_broken
from . import render_tabs as RT
from .court import LABEL_ERROR, Court, MenuEntry
from .formats import (
    count_id,
    date_en,
    date_id,
    decimal_money,
)
from .model import TAB_DIV, TAB_ORDER, Case

JSON = dict[str, Any]
ROWS_PER_PAGE = 20

#: every ``show_<x>`` the detail page script loads, whichever tabs are shown (§2)
ALL_TAB_ROUTES: tuple[tuple[str, str], ...] = (
    *TAB_ORDER,
    ("perbaikan_gugatan", "tabs33"),
    ("pen_persiapan", "tabs23"),
    ("putusan_sela", "tabs9"),
    ("eksekusi", "tabs17"),
    ("we_kppu", "tabs55"),
)

CLOSE_LOADING = '<script type="text/javascript">closeLoading();</script>'


_SPECIAL = re.compile(r"[&<>\"']")


def e(text: str | None) -> str:
    """HTML-escape text (quotes too); most values need nothing, so look before escaping."""
    if text is None:
        return ""
    return escape(text, quote=True) if _SPECIAL.search(text) else text


def _d(value: str | None) -> dt.date | None:
    return None if value is None else dt.date.fromisoformat(value)


def label_html(label: str) -> str:
    if label == LABEL_ERROR:
        return f'<font color="red">{LABEL_ERROR}</font>'
    return e(label)


def long_text(text: str) -> str:
    """A long text: heading lines (ending in ``:``) as ``<p>``, runs of others as ``<ol><li>``."""
    out = ['<div class="wrapword">']
    items: list[str] = []

    def flush() -> None:
        if items:
            out.append("<ol>" + "".join(f"<li>\n\t\t{e(i)}\n\t</li>" for i in items) + "</ol>")
            items.clear()

    for line in text.split("\n"):
        if line.endswith(":") or len(text.split("\n")) == 1:
            flush()
            out.append(f"<p>{e(line)}</p>")
        else:
            items.append(line)
    flush()
    out.append("</div>")
    return "\n".join(out)


def paragraphs(text: str) -> str:
    """A long text as plain ``<p>`` paragraphs (Dakwaan)."""
    return (
        '<div class="wrapword">' + "".join(f"<p>{e(p)}</p>\n" for p in text.split("\n")) + "</div>"
    )


# --------------------------------------------------------------------------------------------
# page shell


@dataclass(frozen=True)
class Shell:
    """What every full page needs: court, base URL and a token maker for menu links."""

    court: Court
    base: str
    encrypt: Callable[[str], str]

    def flow_enc(self, alur_id: int) -> str:
        return self.encrypt(f"var_id={alur_id};var_tahapan=10;")


def _menu(shell: Shell, entries: Sequence[MenuEntry]) -> str:
    """menu.php's print_child: every entry is ``li.has-sub`` with a (maybe empty) ``<ul>`` (the
    test ``$data->num_rows()>0`` is on the whole menu, so the leaf branch never runs, as the
    saved real page shows); a flow link carries ``/type/<enc>``, except a top-level one
    (``/<enc>``, menu.php:64)."""
    parts = []
    for entry in entries:
        if entry.alur is not None:
            enc = shell.flow_enc(entry.alur)
            sub = "" if entry.top_level_quirk else "type/"
            href = f"{shell.base}list_perkara/{sub}{enc}"
        elif entry.path is not None:
            href = shell.base + entry.path
        else:
            href = "#"
        parts.append(
            f'<li class="has-sub"><a href="{href}">{e(entry.title)}</a>'
            f"<ul>{_menu(shell, entry.children)}</ul></li>"
        )
    return "".join(parts)


def page_head(shell: Shell) -> str:
    b = shell.base
    return f"""<html><head>
	<link rel="shortcut icon" href="{b}resources/img/favicon.ico" type="image/png">
	<title>SIPP</title>
	<link rel="stylesheet" type="text/css" href="{b}resources/css/style.css">
	<link rel="stylesheet" type="text/css" href="{b}resources/css/table.css">
	<link rel="stylesheet" type="text/css" href="{b}resources/css/date-css.css" />
	<link rel="stylesheet" type="text/css" href="{b}resources/css/simplePagination.css">
	<script type="text/javascript" src="{b}resources/js/jquery-1.7.1.min.js"></script>
	<script type="text/javascript" src="{b}resources/js/jquery-sipp.js"></script>
	<script type="text/javascript" src="{b}resources/js/jquery-ui-1.8.18.custom.min.js"></script>
	<script src="{b}resources/js/Modernizr.js"></script>
	<script type="text/javascript" src="{b}resources/js/jquery.idTabs.min.js"></script>

	<link rel="stylesheet" type="text/css" href="{b}resources/css/bootstrap.css">
</head>
<body style="overflow: inherit;"><div id="loading" class="popup_loading" style="display: none;">
	<div style="margin: 0px auto;margin-left: 40%;margin-top: 15%;width:0;">
		<img src="{b}resources/img/loading_ma.gif">
	</div>
</div>

	<script type="text/javascript">
		$("body").css({{overflow: 'hidden'}});
		$('#loading').fadeIn();
	</script>
	<div id="wrapper">
		<div id="atas">		
			<div class="logo">
				<a href="{b}">
				<img src="{b}resources/img/logo.png"></a>
			</div>
			<div class="front">
				<font><b>Sistem Informasi Penelusuran Perkara</b><span><br><strong>{e(shell.court.name)}</strong></br></span></font>
			</div>
			<div class="h_right">
			</div>
			<div class="version_shading">
				<label>520</label>
			</div>
		</div>
		<div class="clear"></div>
	</div>
	<style type="text/css">
	.has-sub i{{
		font-weight: bold;
		color:#defc3b;
		position: absolute;
		top:10px;
		left:7px;
	}}
</style>
<div class="cssmenu"><ul>{_menu(shell, shell.court.menu)}</ul></div>
<script type="text/javascript">
$()
  $(window).bind("scroll", function() {{
  if ($(window).scrollTop() + 50 > 110) {{
    $(".cssmenu").addClass("menufixed");
    $(".cssmenu").removeClass("has-sub");
    
  }} else {{
    $(".cssmenu").removeClass("menufixed");
  }}
  
}});

</script>
	<div id="content"><div id="konten">
"""


PAGE_FOOT = """</div>
	<div id="footer">
		<table width="100%">
			<tbody><tr>
				<td width="90%" align="center" style="font-size: 12px;vertical-align:middle;">Hak Cipta &copy; Mahkamah Agung Republik Indonesia 2024</td>
			    <td width="10%" align="right" style="font-size: 12px;padding-right:30px;vertical-align:middle;padding-right:10px;">SIPP Lokal Versi 5.5.0</td>
			</tr>
		</tbody></table>
	</div>
	</div>

<script type="text/javascript">
$( document ).ready(function() {
    $("body").css({ overflow: 'inherit' })
	$('#loading').fadeOut();
 function openLoadingDialog(){
$("body").css({overflow: 'hidden'});
$('#loading').fadeIn(); }
 </script>
 </body>
</html>"""


# --------------------------------------------------------------------------------------------
# list pages


@dataclass(frozen=True)
class ListPage:
    """One page of a case list: which flow, which page, its rows and the list's total."""

    title: str
    enc: str
    page: int
    total: int
    rows: Sequence[tuple[str, str]]  # (row_cells of the case, its show_detil token)
    offset: int
    tilang: bool = False
    sync: str | None = None
    #: the paging route: ``list_perkara/page/`` or ``list_perkara/search_detail/page/``
    pager_path: str = "list_perkara/page/"
    #: a keyword search (list_perkara.php search): the keyword as typed, shown in the box, and
    #: its token, which the paging/sort/print URLs carry instead of ``key``
    keyword: str = ""
    keyword_enc: str = "key"
    #: the column the list is ordered by (body.php:39 prints it into the paging URL)
    col: int = 2


def _pagination(page: int, pages: int, element_id: str) -> str:
    """The DOM simplePagination builds (as saved in the real page): prev, 1..3, …, last 2, next."""
    pages = max(pages, 1)
    items = []
    if page <= 1:
        items.append('<li class="active"><span class="current prev">Prev</span></li>')
    else:
        items.append(f'<li><a href="#page-{page - 1}" class="page-link prev">Prev</a></li>')
    shown: list[int] = []
    for n in (1, 2, 3, page - 1, page, page + 1, pages - 1, pages):
        if 1 <= n <= pages and n not in shown:
            shown.append(n)
    shown.sort()
    last = 0
    for n in shown:
        if n > last + 1:
            items.append('<li class="disabled"><span class="ellipse">…</span></li>')
        if n == page:
            items.append(f'<li class="active"><span class="current">{n}</span></li>')
        else:
            items.append(f'<li><a href="#page-{n}" class="page-link">{n}</a></li>')
        last = n
    if page >= pages:
        items.append('<li class="active"><span class="current next">Next</span></li>')
    else:
        items.append(f'<li><a href="#page-{page + 1}" class="page-link next">Next</a></li>')
    return (
        f'<div id="{element_id}" class="light-theme simple-pagination"><ul>'
        + "".join(items)
        + "</ul></div>"
    )


def _para_pihak(groups: Sequence[JSON]) -> str:
    """perkara_list.php:124-132: ``label:</br>names``, the groups joined by ``<br/><br/>``."""
    return "<br/><br/>".join(
        f"{label_html(g['label'])}:</br>" + "<br />".join(e(n) for n in g["nama"]) for g in groups
    )


def row_cells(case: Case, tilang: bool = False) -> str:
    """The cells of a case's list row between ``No`` and ``Link`` (they never change)."""
    if tilang:
        t = case.extra["tilang"]
        sidang: dt.date = t["sidang"]
        # perkara_list.php:57/67: the first hearing's date (set when it is scheduled, so also
        # an upcoming one) and the room
        when = date_en(sidang) + "<br/>" + e(t["ruang"])
        # perkara_list.php:58-68: seri and plate without spaces, ``seri<br/>bayar``
        return (
            f"<td>{e(case.nomor_perkara_raw)}</td>"
            f'<td align="center">{e(t["seri"].replace(" ", ""))}<br/>{e(t["bayar"])}</td>'
            f'<td align="center">{e(t["plate"].replace(" ", ""))}</td>'
            f"<td>{e(t['offender'])}</td>"
            f'<td align="center">{when}</td><td>{e(t.get("putusan", ""))}</td>'
        )
    r = case.case_data["list_row"]
    return (
        f"<td>{e(r['nomor_perkara'])}</td>"
        f'<td align="center">{date_en(dt.date.fromisoformat(r["tanggal_register"]))}</td>'
        f"<td>{e(r['klasifikasi_perkara'])}</td><td>{_para_pihak(r['para_pihak'])}</td>"
        f"<td>{e(r['status_perkara'])}</td>"
        f'<td style = "text-align:right;">{case.extra["lama_proses"]} Hari</td>'
    )


def _row(no: int, cells: str, token: str, base: str) -> str:
    return (
        f"<tr><td>{no}</td>{cells}"
        f'<td align="center">[<a href="{base}show_detil/{token}">detil</a>]</td></tr>'
    )


LIST_HEADER = """			<tr>
				<td>No</td>
				<td onclick="sorting(1)">Nomor Perkara</td>
				<td onclick="sorting(2)">Tanggal Register</td>
				<td onclick="sorting(3)">Klasifikasi Perkara</td>
				<td onclick="sorting(4)">Para Pihak</td>
				<td onclick="sorting(6)">Status Perkara</td>
				<td onclick="sorting(7)">Lama Proses</td>
				<td>Link</td>
			</tr>
"""
TILANG_HEADER = """			<tr>
				<td>No</td>
				<td onclick="sorting(1)">Nomor Perkara</td>
				<td onclick="sorting(3)">Nomor Seri Tilang / No Pembayaran</td>
				<td onclick="sorting(4)">Tanda Nomor Kendaraan Bermotor</td>
				<td onclick="sorting(6)">Pelanggar</td>
				<td onclick="sorting(7)">Tanggal Sidang<br/>Ruang Sidang</td>
				<td>Putusan</td>
				<td>Link</td>
			</tr>
"""
TILANG_BUTTON = """<div id="left">
<input type="submit" onClick="popup_informasi();" value="Informasi" class="del_btn""></input>
</div>
"""
NOT_FOUND_ROW = "<tr><td colspan='8' align='center'>Data Tidak diTemukan</td></tr>"


def list_page(shell: Shell, page: ListPage) -> str:
    b = shell.base
    enc = page.enc
    pages = math.ceil(page.total / ROWS_PER_PAGE)
    sync = f"{page.sync}" if page.sync else '<font color = "red"> tanggal gagal dimuat </font>'
    rows = "".join(_row(page.offset + k + 1, c, t, b) for k, (c, t) in enumerate(page.rows))
    if not page.rows:
        rows = NOT_FOUND_ROW
    pager = _pagination(page.page, pages, "selector")
    pager_bottom = _pagination(page.page, pages, "selector_bottom")
    js_pager = "".join(
        f"""
    $('#{sel}').pagination({{
        items: totalPage,
        itemsOnPage: 20,
        displayedPages: 3,
        cssStyle: 'light-theme',
        currentPage:page,
        onPageClick: function(pageNumber){{
            window.open('{b}{page.pager_path}'+pageNumber+'/{enc}/{page.keyword_enc}/col/{page.col}','_self')
        	}}
        }});"""
        for sel in ("selector", "selector_bottom")
    )
    return (
        page_head(shell)
        + f"""	<div id="pageTitle">
		<b>{e(page.title)}</b>
	</div>
	<div id="right">
    	<div class="total_perkara">
        	Pembaharuan Data : {sync} 
            , Total : {count_id(page.total)} Perkara
    	</div>
	</div>
    <br>
<link rel="stylesheet" type="text/css" href="{b}resources/css/simplePagination.css">
<hr class="thick-line" style="clear:both;">
<div id="left">
	<form action="{b}{page.pager_path.removesuffix("page/")}search" method="post" accept-charset="utf-8">
		<input name="search_keyword" value="{e(page.keyword)}" id="search-box" size="50" placeholder="  Ketik kata kunci  " type="text">
		<input name="enc" value="{enc}" type="hidden">
		<span></span>
		<input name="" value="Cari" id="search-btn1" type="submit">
	</form>
</div>
<div id="left">
<input type="submit" onClick="popup_form('{b}search/{enc}');" value="Pencarian Detil" id="search-btn1"></input>
</div>
{TILANG_BUTTON if page.tilang else ""}<div id="pages">
    {pager}
</div>

<div class="cssTable">
	<table id="tablePerkaraAll">
		<colgroup><col  width="3%" />
        <col  width="15%" />
        <col  width="7%" />
        <col  width="15%" />
        <col  width="23%" />
        <col  width="18%" />
        <col  width="5%" />
        <col  width="4%" />
		</colgroup><tbody>
{TILANG_HEADER if page.tilang else LIST_HEADER}			{rows}		</tbody>
	</table>
</div>
<div id="pages_bottom" style="width:100%;padding-left:5px;padding-top:5px;">
    {pager_bottom}
</div>
<script type="text/javascript">
	function sorting(col){{
		window.open('{b}list_perkara/sort/'+col+'/{enc}/{page.keyword_enc}','_self')
	}}
		function searchDetilShow(){{
		popup_form('{b}search/{enc}');
	}}
	$('#cetak_perkara_list').click(function(){{
		window.open('{b}perkara_list_cetak/cetak/1/{enc}/{page.keyword_enc}','_self')
	}});
	function popup_informasi(){{	
		popup_form('{b}detil_perkara/informasi');
	}}
</script>
 
<script type="text/javascript" src="{b}resources/js/jquery.simplePagination.js"></script>


<script type="text/javascript">
$(function() {{
    var totalPage = '{page.total}';
    var page = '{page.page}';{js_pager}
    }});
</script>
"""
        + PAGE_FOOT
    )


# --------------------------------------------------------------------------------------------
# detail page


def _names_table(names: Sequence[str], penahanan: Sequence[tuple[str, str]] | None = None) -> str:
    """A party table (data_umum.php:178-199, 249-283): ``No | Nama [| Penahanan]``; the
    Penahanan rows close their ``<tr>`` twice, as the template does (line 275/277)."""
    with_link = penahanan is not None
    cols = (
        '<col width="5%"><col width="65%"><col width="30%">'
        if with_link
        else '<col width="5%"><col width="95%">'
    )
    head = "<tr><td>No</td><td>Nama</td>" + ("<td>Penahanan</td>" if with_link else "") + "</tr>"
    rows = []
    for k, name in enumerate(names):
        if penahanan is not None:
            tok_id, tok_name = penahanan[k]
            rows.append(
                f"<tr><td align='center'>{k + 1}</td><td>{e(name)}</td>"
                f'<td align="center">[<a href="#" onClick="detilPenahanan(\'{tok_id}\' , '
                f"'{tok_name}')\" >Penahanan</a>]</td></tr></tr>"
            )
        else:
            rows.append(f"<tr><td align='center'>{k + 1}</td><td>{e(name)}</td></tr>")
    return (
        '<div class="cssTable"><table id="tableinfo" style="margin:0px;padding:0px;">'
        + cols
        + "<tbody>"
        + head
        + "".join(rows)
        + "</tbody></table></div>"
    )


def _kuasa_table(rows: Sequence[JSON]) -> str:
    body = "".join(
        f"<tr><td align='center'>{k + 1}</td><td>{e(r['nama'])}</td><td>{e(r['nama_pihak'])}</td></tr>"
        for k, r in enumerate(rows)
    )
    return (
        '<div class="cssTable"><table id="tableinfo" style="margin:0px;padding:0px;">'
        '<col width="5%"><col width="55%"><col width="45%"><tbody>'
        "<tr><td>No</td><td>Nama</td><td>Nama Pihak</td></tr>" + body + "</tbody></table></div>"
    )


def _info_row(label: str, value: str) -> str:
    return (
        f'<tr><td id="first-child"><font color="white">{label}</font></td><td>{value}</td></tr>\n'
    )


def _du_row(label: str, value: str, top: bool = False, cls: str = "") -> str:
    """A Data Umum row as data_umum.php prints it."""
    style = ' style="vertical-align: top;"' if top else ""
    td = f"<td class='{cls}'>" if cls else "<td>"
    return (
        f'\t\t\t<tr>\n\t\t\t\t<td id="first-child"{style}><font color="white">{label}</font></td>'
        f"\n\t\t\t\t{td}{value}</td>\n\t\t\t</tr>\n"
    )


def _text_or_dash(value: str | None) -> str:
    return " - " if value is None else e(value)


#: data_umum.php:246 (the Penahanan column) and 440 (the Anak Korban row)
_PENAHANAN_ALUR = frozenset({111, 112, 113, 115, 116, 117, 118})
#: data_umum.php:119-167: the military Informasi grid, label pairs per row
_INFORMASI_GRID = (
    ("Tanggal Kejadian", "tanggal_kejadian", "Nomor Surat Dakwaan", "nomor_surat_dakwaan"),
    ("Tempat Kejadian", "tempat_kejadian", "Pasal Dakwaan", "pasal_dakwaan"),
    ("Tanggal Skeppera", "tanggal_skeppera", "Penyidik Militer", "penyidik_militer"),
    (
        "Nomor Skeppera",
        "nomor_skeppera",
        "Nomor BAP Penyidik Militer",
        "nomor_bap_penyidik_militer",
    ),
    ("Pejabat Skeppera", "pejabat_skeppera", "Tanggal BAP Penyidik", "tanggal_bap_penyidik"),
    ("Tanggal Surat Dakwaan", "tanggal_surat_dakwaan", "", ""),
)


def _informasi(info: JSON) -> str:
    def value(key: str) -> str:
        v = info.get(key)
        if v is None:
            return ""
        return date_id(_d(v)) if key.startswith("tanggal_") else e(v)

    rows = []
    for k, (l1, k1, l2, k2) in enumerate(_INFORMASI_GRID):
        bg = "" if k == 0 else "background:#5FB85C;"
        color2 = "black" if not l2 else "white"
        rows.append(
            "<tr>"
            f"<td style='text-align:left;{bg}color:white;'>{l1}</td>"
            f"<td style='text-align:left;background:white;color:black;'>{value(k1)}</td>"
            f"<td style='text-align:left;{bg}color:{color2};'>{l2}</td>"
            f"<td style='text-align:left;background:white;color:black;'>{value(k2) if k2 else ''}</td>"
            "</tr>"
        )
    return (
        '<div class="cssTable"><table><col width="18%"><col width="32%"><col width="18%">'
        '<col width="32%">' + "".join(rows) + "</table></div>"
    )


def data_umum(
    case: Case, penahanan_tokens: Sequence[tuple[str, str]], jenis_pengadilan: int = 1
) -> str:
    """Data Umum (perkara_tab/data_umum.php) for every flow: the rows, their order and their
    markup follow the template's branches on the flow (alur) and the court type."""
    du = case.case_data["data_umum"]
    alur = case.alur.id
    pelimpahan = "" if alur < 100 or alur == 119 else "Pelimpahan"
    rows = [
        _du_row("Tanggal Pendaftaran", date_id(_d(du["tanggal_pendaftaran"]))),
        _du_row("Klasifikasi Perkara", e(du["klasifikasi_perkara"])),
        _du_row("Nomor Perkara", e(du["nomor_perkara"])),
        _du_row(f"Tanggal Surat {pelimpahan}", date_id(_d(du.get("tanggal_surat")))),
    ]
    if alur != 114:
        rows.append(_du_row(f"Nomor Surat {pelimpahan}", e(du.get("nomor_surat"))))
    if alur == 114:
        rows += [
            _du_row("Tanggal Penindakan", e(du["tanggal_penindakan"])),
            _du_row("Ditindak Oleh", e(du["ditindak_oleh"])),
            _du_row("Jenis Surat Tilang", e(du["jenis_surat_tilang"])),
            _du_row("Nomor Seri Surat Tilang", e(du["nomor_seri_surat_tilang"])),
            _du_row("Nomor Pembayaran", e(du["nomor_pembayaran"])),
            _du_row("Jenis Kendaraan", e(du["jenis_kendaraan"])),
            _du_row("Tanda Nomor Kendaraan Bermotor", e(du["tanda_nomor_kendaraan"])),
            _du_row("Bukti", e(du["bukti"])),
        ]
    if jenis_pengadilan == 2:
        if alur == 124:
            rows += [
                _du_row("Berkas Dari", e(du["berkas_dari"])),
                _du_row("Tanggal Kejadian", e(du["tanggal_kejadian"])),
                _du_row("Tempat Kejadian", e(du["tempat_kejadian"])),
            ]
        else:
            rows.append(
                "\t\t\t<tr>\n\t\t\t\t<td id=\"first-child\" style='vertical-align:top;'>"
                '<font color="white">Informasi</font></td>\n\t\t\t\t<td>'
                + _informasi(du.get("informasi", {}))
                + "</td>\n\t\t\t</tr>\n"
            )
    second_party = True
    for kind, label, values in case.extra.get("party_rows", ()):
        cell = ""
        if kind == "pihak" and label == "Anak Korban":
            cell = _names_table(values) if values else ""
        elif kind == "pihak" and label == case.alur.pihak_4 and alur == 1:
            cell = _names_table(values) if values else "-"
        elif kind == "pihak":
            tokens = None
            if second_party and label == case.alur.pihak_2 and alur in _PENAHANAN_ALUR:
                tokens = list(penahanan_tokens)
            if label == case.alur.pihak_2:
                second_party = False
            cell = _names_table(values, tokens) if values else ""
        elif label == case.alur.kuasa_4 and alur == 1:
            cell = _kuasa_table(values) if values else "-"
        else:
            cell = _kuasa_table(values) if values else ""
        rows.append(_du_row(label_html(label), cell or "\n\t\t\t\t\t\t\n\t\t\t\t", top=True))
    if alur in (1, 7, 8):
        money = du.get("nilai_sengketa")
        rows.append(
            _du_row("Nilai Sengketa(Rp)", decimal_money(money or 0), top=True, cls="wrapword")
        )
    for key, label, render in (
        ("petitum", "Petitum", long_text),
        ("gugatan", "Gugatan", long_text),
        ("petitum_permohonan", "Petitum Permohonan", long_text),
        ("pendapat_ormil_pappera", "Pendapat Ormil &amp; Pappera", paragraphs),
        ("dakwaan", "Dakwaan", paragraphs),
    ):
        if key in du:
            text = du[key]
            rows.append(_du_row(label, render(text) if text else "", top=True, cls="wrapword"))
    rows.append(_du_row("Pihak Dipublikasikan", e(du["pihak_dipublikasikan"]), top=True))
    if alur < 100:
        rows.append(_du_row("Prodeo", e(du["prodeo"]), top=True))
    return (
        '<style type="text/css">\n#infoPerkara .wrapword li {\n  display: list-item !important;\n'
        "  clear: both;\n  float: none !important;\n}\n</style>\n"
        '<div style="font-size:14px;">\n'
        "\t<table id='infoPerkara' style=\"font-size:14px;width:100%;\">\n"
        '\t\t<col width="15%">\n\t\t<col width="85%">\n\t\t<tbody>\n'
        + "".join(rows)
        + "\t\t</tbody>\n\t</table>\n</div>\n"
    )


#: detil_perkara.php:248-372: the empty ``div#tabsN`` the page prints, in its order, by rule
_DIV_ORDER = (
    "tabs25", "tabs2", "tabs20", "tabs5", "tabs3", "tabs23", "tabs4", "tabs26", "tabs27",
    "tabs28", "tabs29", "tabs30", "tabs31", "tabs32", "tabs33", "tabs6", "tabs7", "tabs22",
    "tabs8", "tabs18", "tabs9", "tabs10", "tabs13", "tabs19", "tabs14", "tabs15", "tabs16",
    "tabs17", "tabs24", "tabs11", "tabs55",
)  # fmt: skip
#: detil_perkara.php:378-510: the click handler's branches, in order; those without
#: ``openLoadingDialog()`` are the two the template forgot it in
_SCRIPT_ROUTES = (
    ("tabs2", "penetapan"), ("tabs33", "perbaikan_gugatan"), ("tabs3", "diversi"),
    ("tabs4", "jadwal_sidang"), ("tabs5", "verzet"), ("tabs6", "mediasi"),
    ("tabs7", "intervensi"), ("tabs8", "penuntutan"), ("tabs9", "putusan_sela"),
    ("tabs10", "putusan"), ("tabs19", "keberatan"), ("tabs11", "biaya_perkara"),
    ("tabs12", "riwayat_perkara"), ("tabs13", "banding"), ("tabs14", "kasasi"), ("tabs15", "pk"),
    ("tabs16", "grasi"), ("tabs17", "eksekusi"), ("tabs18", "barang_bukti"),
    ("tabs20", "dismissal"), ("tabs21", "penetapan_gugur"), ("tabs22", "rekonvensi"),
    ("tabs23", "pen_persiapan"), ("tabs24", "ikrar_talak"), ("tabs25", "mediasi_luar"),
    ("tabs26", "saksi"), ("tabs27", "pkpu_sementara"), ("tabs28", "pkpu_tetap"),
    ("tabs29", "rencana_perdamaian"), ("tabs30", "laporan_pengurus"),
    ("tabs31", "setelah_putusan_pernyataan_pailit"), ("tabs32", "pembatalan_perdamaian"),
    ("tabs55", "we_kppu"),
)  # fmt: skip


def _tab_script(b: str, token: str) -> str:
    out = []
    for k, (div, slug) in enumerate(_SCRIPT_ROUTES):
        opener = "if" if k == 0 else "}else if"
        loading = "" if div in ("tabs5", "tabs17") else "\t\t\t\topenLoadingDialog();\n"
        # line 465: the rekonvensi branch marks #tabs21 as loaded (a copy-paste slip)
        marked = "tabs21" if div == "tabs22" else div
        out.append(
            f"\t\t\t{opener}($(this).attr('href')=='#{div}'){{\n{loading}"
            f"\t\t\t\t$('#{div}').load('{b}show_{slug}/{token}');\n"
            f"\t\t\t\t$('a[href=#{marked}]').addClass('loaded');\n"
        )
    return "".join(out) + "\t\t    }\n"


def _divs(case: Case, listed: set[str]) -> str:
    """The empty tab divs; detil_perkara.php prints some by a looser rule than the anchor
    (``tabs2`` whenever IDProses >= 20, ``tabs18`` for every alur >= 111, ``tabs20`` twice):
    the replica prints those of the listed tabs plus ``tabs18`` for criminal flows."""
    alur = case.alur.id
    out = []
    for div in _DIV_ORDER:
        if div in listed or (div == "tabs18" and alur >= 111):
            out.append(f'<div id="{div}"></div>')
            if div == "tabs20":
                out.append('<div id="tabs20"></div>')
    return "".join(out)


def detail_page(
    shell: Shell,
    case: Case,
    token: str,
    penahanan_tokens: Sequence[tuple[str, str]] = (),
    back: str | None = None,
) -> str:
    """``/detil_perkara`` (body_new.php + detil_perkara.php): header, tab anchors, inline Data
    Umum, the click handler with every ``.load`` route."""
    b = shell.base
    back = back if back is not None else b + "list_perkara"
    h = case.case_data["header"]

    def side(p: JSON | None) -> tuple[str, str]:
        if p is None:
            return "", ""
        return label_html(p["label"]), "<br />".join(e(n) for n in p["nama"])

    (l1, n1), (l2, n2) = side(h["pihak_1"]), side(h["pihak_2"])
    lis = [
        "<li class='tab'><a href=\"#tabs1\" id= 'tabInfo' class=\"selected\">Data Umum</a></li>"
    ]
    listed: set[str] = set()
    for tab in case.tab_list:
        div = TAB_DIV[tab["slug"]]
        listed.add(div)
        label = tab["label"] + (" " if tab["slug"] == "mediasi" else "")
        lis.append(f"<li class='tab'><a href=\"#{div}\" id= 'tabInfo'>{e(label)}</a></li>")
    return (
        page_head(shell)
        + f"""	<div id="pageTitle">
		INFORMASI DETAIL PERKARA	</div>
    <br>
<hr class="thick-line" style="clear:both;">
<style type="text/css">
	#submenus td{{ padding-left: 5px; font-size:13px;}}
	#submenus a {{font-size:13px;color:#3598db;text-decoration: none;}}
	#submenus a:visited {{color:#3598db;text-decoration: none;}}  /* visited link */
	#submenus a:hover {{font-size:13px;color:#3598db;text-decoration: none;}}  /* mouse over link */
	#submenus a:active {{color:#3598db;text-decoration: none;}}
</style>
<table width="100%" id="submenus" style="font-size:13px;" >
	<tr>
		<td id="backlist"><a href="{back}">Kembali</a></td>
	</tr>
</table>
<hr class="thick-line" style="clear:both;">
<div class="cssTable" style="margin-top:5px;">
	<table id="tableinfo">
		<col  width="20%"/>
        <col  width="30%"/>
        <col  width="30%"/>
        <col  width="20%"/>
		<tbody>
			<tr>
				<td>Nomor Perkara</td>
				<td>{l1}</td>
				<td>{l2}</td>
				<td>Status Perkara</td>
			</tr>
			<tr>
				<td>{e(h["nomor_perkara"])}</td>
				<td>{n1}</td>
				<td>{n2}</td>
				<td>{e(h["status_perkara"])}</td>
			</tr>
		</tbody>
	</table>
</div>
<input type="hidden" id="ref_dataumum" value="0">
<div id='content' style="margin: 5px;margin-top:10px;">
	<div id="usual2" class="usual"> 
		<ul>
			{chr(10).join(lis)}
		</ul>
		<input type="hidden" id="refresh_dest" value="{back}">
		<div id="tabs1">
		{data_umum(case, penahanan_tokens, shell.court.jenis)}<script type="text/javascript">
	function detilPenahanan(IDPerkara,namaTerdakwa){{	
		popup_form('{b}penahanan/'+IDPerkara+'/'+namaTerdakwa)
	}}
</script>
		</div>
		{_divs(case, listed)}		<div id="tabs12"></div>
	</div>
</div>
<script type="text/javascript"> 
$("#usual2 ul").idTabs("tabs2");
$( document ).ready(function() {{
	$('a#tabInfo').click(function(event){{
		if (!$(this).hasClass('loaded')){{
{_tab_script(b, token)}		}}
	}});	
}});

$('#backlist').click(function(){{
    window.open("{back}","_self");
}});
</script>
"""
        + PAGE_FOOT
    )


# --------------------------------------------------------------------------------------------
# tab fragments


def _table(table_id: str, head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    out = [f'<table id="{table_id}" class="tableinfo" width="100%">']
    out.append("<tr>" + "".join(f"<td>{h}</td>" for h in head) + "</tr>")
    for k, row in enumerate(rows):
        out.append(f"<tr><td>{k + 1}</td>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _empty(text: str) -> str:
    return f'<div class="cssTable" align="center"><b>{text}</b></div>'


_COLS_NOTICE = (
    '<col width="20%">\n\t\t\t\t\t\t\t\t\t<col width="55%">\n\t\t\t\t\t\t\t\t\t<col width="25%">'
)


def _party_label(label: str, warm: bool) -> str:
    return label_html(label if warm else LABEL_ERROR)


def _notice_table(rows: Sequence[tuple[str, str, str | None]]) -> str:
    """One per-party table of putusan_akhir.php (``Status | Nama | Tanggal Pemberitahuan
    Putusan``); rows are (status html, name, ISO date or None)."""
    body = "".join(
        f"<tr><td>{status}</td><td>{e(name)}</td><td>{date_id(_d(day)) if day else ''}</td></tr>"
        for status, name, day in rows
    )
    return (
        '<div class="cssTable">\n\t\t\t\t\t\t\t\t<table id="tableinfo" style="margin:0px;padding:0px;">\n'
        f"\t\t\t\t\t\t\t\t\t{_COLS_NOTICE}\n\t\t\t\t\t\t\t\t\t<tbody>\n"
        "\t\t\t\t\t\t\t\t\t\t<tr>\n\t\t\t\t\t\t\t\t\t\t\t<td>Status</td>\n"
        "\t\t\t\t\t\t\t\t\t\t\t<td>Nama</td>\n"
        "\t\t\t\t\t\t\t\t\t\t\t<td>Tanggal Pemberitahuan Putusan</td>\n\t\t\t\t\t\t\t\t\t\t</tr>\n"
        f"\t\t\t\t\t\t\t\t\t{body}\t\t\t\t\t\t\t\t\t</tbody>\n\t\t\t\t\t\t\t\t</table>\n"
        "\t\t\t\t\t\t\t</div>\n"
    )


def _notice_cell(
    rows: Sequence[JSON], sides: Sequence[JSON], label_of: Callable[[JSON, JSON], str],
    max_side: int, tilang: bool,
) -> str:  # fmt: skip
    """A Pemberitahuan / Menerima / Kirim Salinan cell: the pihakke 1 table whenever any
    notice exists (never on tilang), then ``<br>`` + the table of each further side that has
    rows (putusan_akhir.php lines 203-344)."""
    out = ["\n\t\t\t\t\t"]
    by_side: dict[int, list[tuple[str, str, str | None]]] = {}
    for row, side in zip(rows, sides, strict=True):
        by_side.setdefault(side["pihakke"], []).append(
            (label_of(row, side), row["nama"], row["tanggal"])
        )
    if sides and not tilang:
        out.append(_notice_table(by_side.get(1, [])))
    for pihakke in range(2, max_side + 1):
        out.append("\t\t\t\t\t\t<br>\n")
        if pihakke in by_side:
            out.append(_notice_table(by_side[pihakke]))
    out.append("\t\t\t\t")
    return "".join(out)


def frag_putusan(case: Case, warm: bool) -> str:
    """``perkara_tab/putusan_akhir.php`` for the case's verdict (rows shown = keys present)."""
    data: JSON = case.tabs["putusan"]
    alur = case.alur.id
    tilang = alur == 114
    meta: list[JSON] = case.extra.get("putusan_notices", [])

    def label_of(row: JSON, side: JSON) -> str:
        if warm:
            return e(row["status"])
        return f'<font color="red">{LABEL_ERROR}</font> {side["urutan"]}'

    def sides_of(rows: Sequence[JSON], limit: int) -> list[JSON]:
        shown = [m for m in meta if m["pihakke"] <= limit and not (tilang and m["pihakke"] == 1)]
        assert len(shown) == len(rows), "notice rows and their sides disagree"
        return shown

    rows = [_info_row(e(data["tanggal_label"]), date_id(_d(data["tanggal_putusan"])))]
    if "putusan_verstek" in data:
        rows.append(_info_row("Putusan Verstek", e(data["putusan_verstek"])))
    if "sumber_hukum" in data:
        rows.append(
            _info_row("Sumber Hukum", "<br>".join(f"- {e(x)}" for x in data["sumber_hukum"]))
        )
    if "status_putusan" in data:
        rows.append(_info_row("Status Putusan", f"\n\t\t\t\t{e(data['status_putusan'])}\t\t\t\t"))
    elif "status_putusan_terdakwa" in data:
        body = "".join(
            f"<tr><td>{k + 1}</td><td>{e(r['nama'])}</td>"
            f"<td>{date_id(_d(r['tanggal_putusan']))}</td>"
            f"<td>{''.join(e(line) + '<br>' for line in (r['putusan'] or '').split(chr(10)))}</td></tr>"
            for k, r in enumerate(data["status_putusan_terdakwa"])
        )
        table = (
            '<div class="cssTable">\n<table id="tableinfo" style="margin:0px;padding:0px;">\n'
            '<col width="3%">\n<col width="37%">\n<col width="15%">\n<col width="45%">\n<tbody>\n'
            "<tr>\n<td>No</td>\n<td>Nama</td>\n<td>Tanggal Putusan</td>\n<td>Putusan</td>\n</tr>\n"
            f"{body}</tbody>\n</table>\n</div>\n"
        )
        rows.append(_info_row("Status Putusan", table if body else ""))
    if "nilai_ganti_kerugian" in data:
        ganti = data["nilai_ganti_kerugian"]
        rows.append(
            _info_row("Nilai Ganti Kerugian (Rp.)", "" if ganti is None else f"{ganti}.00")
        )
    amar = data["amar_putusan"]
    rows.append(
        '<tr><td id="first-child"><font color="white">'
        f"{e(data['amar_label'])}</font></td>"
        f"<td class='wrapword'>{long_text(amar) if amar else ''}</td></tr>\n"
    )
    if "hakim_pengawas" in data:  # putusan_akhir.php:167-198 (alur 3)

        def pad(label: str, value: str) -> str:
            return (
                f'\t\t\t\t<tr>\n\t\t\t\t\t<td id="first-child"><font color="white">{label}</font></td>\n'
                f'\t\t\t\t\t<td style="padding:0px;padding-left:5px;">{value}</td>\n\t\t\t\t</tr>\n'
            )

        def when(key: str) -> str:
            return date_id(_d(data[key])) if data[key] else ""

        rows += [
            pad("Tanggal Penetapan Hakim Pengawas", when("tanggal_penetapan_hakim_pengawas")),
            pad("Nomor Penetapan Hakim Pengawas", e(data["nomor_penetapan_hakim_pengawas"] or "")),
            pad("Hakim Pengawas", e(data["hakim_pengawas"] or "")),
            pad("Kurator", e(data["kurator"] or "")),
            pad("Tanggal pengumuman dalam Berita Negara RI", when("tanggal_berita_negara")),
            pad("Tanggal dimuat dalam Surat Kabar", when("tanggal_surat_kabar")),
            pad("Nama Surat Kabar", e(data["nama_surat_kabar"] or "")),
        ]
    kata = data["tanggal_label"].removeprefix("Tanggal ")
    notices = data["pemberitahuan_putusan"]
    rows.append(
        _info_row(
            f"Pemberitahuan {kata}",
            _notice_cell(notices, sides_of(notices, 4), label_of, 4, tilang),
        )
    )
    if "menerima_putusan" in data:
        got = data["menerima_putusan"]
        rows.append(
            _info_row("Menerima Putusan", _notice_cell(got, sides_of(got, 2), label_of, 2, tilang))
        )
    if "kirim_salinan_putusan" in data:
        sent = data["kirim_salinan_putusan"]
        rows.append(
            _info_row(
                f"Kirim Salinan {kata}", _notice_cell(sent, sides_of(sent, 2), label_of, 2, tilang)
            )
        )
    if "kirim_salinan_putusan_penyidik" in data:
        day = data["kirim_salinan_putusan_penyidik"]
        rows.append(
            _info_row(f"Kirim Salinan {kata} Kepada Penyidik", date_id(_d(day)) if day else "")
        )
    minutasi = data["tanggal_minutasi"]
    rows.append(_info_row("Tanggal Minutasi", date_id(_d(minutasi)) if minutasi else ""))
    rows.append(_info_row("Keterangan", e(data["keterangan"]) if data["keterangan"] else ""))
    return (
        '<div style="font-size:14px;">\n'
        "\t<table id='infoPerkara' style=\"font-size:14px; width: 100%;\">\n"
        '\t\t<col width="15%">\n\t\t<col width="85%">\n\t\t<tbody>\n'
        + "".join(rows)
        + "\t\t</tbody>\n\t</table>\n</div>"
    )


def frag_putusan_sela(case: Case, warm: bool) -> str:
    """``perkara_tab/putusan_sela.php`` outside alur 3..6: date, amar, and the three notice
    rows labelled with the session's first-party label (red error text when not warm)."""
    data: JSON = case.tabs["putusan_sela"]

    def row(label: str, value: str, top: bool = False) -> str:
        style = ' style="vertical-align: top;"' if top else ""
        return (
            f'\t\t\t<tr>\n\t\t\t\t<td id="first-child"{style}><font color="white">{label}</font></td>\n'
            f"\t\t\t\t<td>{value}</td>\n\t\t\t</tr>\n"
        )

    rows = [row("Tanggal Putusan Sela", date_id(_d(data["tanggal_putusan_sela"])))]
    rows.append(
        '\t\t\t<tr>\n\t\t\t\t<td id="first-child" style="vertical-align: top;"><font color="white">'
        "Amar Putusan Sela</font></td>\n"
        f"\t\t\t\t<td class='wrapword'>{long_text(data['amar_putusan_sela'])}</td>\n\t\t\t</tr>\n"
    )
    label = case.alur.pihak_1 if warm else LABEL_ERROR
    for k, notice in enumerate(data["pemberitahuan"]):
        kepada = f"Pihak {label}" if k == 2 else label
        day = notice["tanggal"]
        rows.append(
            row(f"Pemberitahuan Putusan Sela Kepada {e(kepada)}", date_id(_d(day)) if day else "")
        )
    return (
        '<style type="text/css">\n#infoPerkara .wrapword li {\n  display: list-item !important;\n'
        "  clear: both;\n  float: none !important;\n}\n</style>\n"
        '<div style="font-size:14px;">\n\t<table id=\'infoPerkara\' style="font-size:14px;width:100%;">\n'
        '\t\t<col width="15%">\n\t\t<col width="85%">\n\t\t<tbody>\n'
        + "".join(rows)
        + "\t\t\t<tr>\n\t\t\t\t<td colspan='2'></td>\n\t\t\t</tr>\n\t\t</tbody>\n\t</table>\n</div>"
    )


def _appeal_heading(title: str) -> str:
    return (
        '\t<div style="padding:5px;"></div>\n'
        "\t<table id='infoPerkara' style=\"font-size:14px;width:100%;\"><tbody><tr><td "
        f"style='padding-left:5px;color: #648C03;font-size: 15px;'><b>{title}</b></td></tr>"
        "</tbody></table>\n"
    )


def _appeal_table(head: Sequence[str], widths: Sequence[int], body: str) -> str:
    cols = "".join(f'\t\t\t<col width="{w}%" />\n' for w in widths)
    heads = "".join(f"\t\t\t\t\t<td>{h}</td>\n" for h in head)
    return (
        '\t<div style="padding:1px;"></div>\n'
        '\t<div class="cssTable" style="margin:0px;padding:0px;">\n'
        '\t\t<table id="tableinfo" style="font-size:14px;width:100%;">\n'
        f"{cols}\t\t\t<tbody>\n\t\t\t\t<tr>\n{heads}\t\t\t\t</tr>\n"
        f"\t\t\t\t{body}\t\t\t</tbody>\n\t\t</table>\n\t</div>\n"
    )


def _appeal_dates(rows: Sequence[JSON]) -> str:
    return _appeal_table(
        ["No", "Status", "Nama", "Tanggal"],
        [3, 20, 47, 30],
        "".join(
            f'<tr><td align="center">{k + 1}</td><td>{e(r["status"])}</td><td>{e(r["nama"])}'
            f'</td><td align="center">{date_id(_d(r["tanggal"]))}</td></tr>'
            for k, r in enumerate(rows)
        ),
    )


def _appeal_info(rows: Sequence[tuple[str, str]]) -> str:
    body = "".join(
        f'\t\t\t<tr>\n\t\t\t\t<td id="first-child"><font color="white">{label}</font></td>\n'
        f"\t\t\t\t<td>{value}</td>\n\t\t\t</tr>\n"
        for label, value in rows
    )
    return (
        "\t<table id='infoPerkara' style=\"font-size:14px;width:100%;\">\n"
        '\t\t<col width="23%">\n\t\t<col width="78%">\n\t\t<tbody>\n'
        '\t\t\t<tr>\n\t\t\t\t<td style="padding:1px;"></td>\n\t\t\t</tr>\n'
        f'{body}\t\t\t<tr>\n\t\t\t\t<td colspan="2"></td>\n\t\t\t</tr>\n\t\t</tbody>\n\t</table>\n'
    )


def _mediator_table(mediators: Sequence[JSON]) -> str:
    """detil_banding.php:131-178 / detil_kasasi.php:127-174: ``-`` without a mediator, else a
    ``No | Nama | Status Mediator`` table whose rows each end with a second ``<tr>``."""
    if not mediators:
        return "-"
    rows = "".join(
        "<tr><td style='text-align:center; vertical-align:top'>"
        f"{k + 1}</td><td style='text-align:left; vertical-align:top;'>{e(m['nama'])}<br></td>"
        f"<td style='text-align:left; vertical-align:top'>{e(m['status'])}</td><tr>"
        for k, m in enumerate(mediators)
    )
    return (
        '\n\t\t\t\t                <div class="cssTable" style="">\n'
        '                    <table id="tableinfo" style="margin:0px;padding:0px;">\n'
        '                        <col style="width:5%">\n                        <col style="width:75%">\n'
        '                        <col style="width:20%">\n                        <tbody>\n'
        "                            <tr>\n                                <td>No</td>\n"
        "                                <td>Nama</td>\n"
        "                                <td>Status Mediator</td>\n"
        "                                \n                            </tr>\n"
        f"\t                            {rows}                        </tbody>\n"
        "                    </table>\n                                "
    )


def frag_appeal(data: JSON, slug: str) -> str:
    """``perkara_tab/detil_banding.php`` / ``detil_kasasi.php`` / ``detil_pk.php``: a heading
    table per section; party statuses come from the database (no session label here)."""
    pk = slug == "pk"
    up = {"banding": "BANDING", "kasasi": "KASASI", "pk": "PK"}[slug]
    lv = {"banding": "Banding", "kasasi": "kasasi", "pk": "PK"}[slug]
    title = {"banding": "Banding", "kasasi": "Kasasi", "pk": "PK"}[slug]
    out = [f'<div style="font-size:14px;padding-top:0px;padding-left:5px;" id="detil{slug}">\n']
    out.append(
        _appeal_heading("DATA PARA PIHAK").replace('\t<div style="padding:5px;"></div>\n', "")
    )
    if pk:
        out.append(
            _appeal_table(
                ["No", "Status", "Nama"],
                [5, 25, 70],
                "".join(
                    f"<tr><td>{k + 1}</td><td>{e(p['status'])}</td><td>{e(p['nama'])}</td></tr>"
                    for k, p in enumerate(data["para_pihak"])
                ),
            )
        )
    else:
        out.append(
            _appeal_table(
                ["No", "Status", "Nama", "Diwakili", "Diwakili Oleh"],
                [3, 20, 35, 8, 35],
                "".join(
                    f"<tr><td>{k + 1}</td><td>{e(p['status'])}</td><td>{e(p['nama'])}</td>"
                    f'<td align="center">{p["diwakili"]}</td><td>{e(p["diwakili_oleh"])}</td></tr>'
                    for k, p in enumerate(data["para_pihak"])
                ),
            )
        )
    out.append(_appeal_heading(f"DATA PERMOHONAN {up}" if pk else f"DATA PEMOHON {up}"))
    out.append(
        _appeal_table(
            ["Tanggal Permohonan", f"Pemohon {lv}", "Keterangan"],
            [15, 45, 40],
            "".join(
                f"<tr><td>{date_id(_d(p['tanggal_permohonan']))}</td><td>{e(p['nama'])}</td>"
                f"<td>{e(p['keterangan'])}</td></tr>"
                for p in data["pemohon"]
            ),
        )
    )
    if "mediasi" in data:
        m = data["mediasi"]
        to = "ke Tingkat Banding" if slug == "banding" else "ke MA"
        out.append(_appeal_heading("DATA MEDIASI"))
        out.append(
            _appeal_info(
                [
                    (
                        "Tanggal Kesepakatan Perdamaian",
                        date_id(_d(m["tanggal_kesepakatan"])).strip(),
                    ),
                    (
                        "Tanggal Pengajuan Kesepakatan Perdamaian",
                        date_id(_d(m["tanggal_pengajuan_kesepakatan"])).strip(),
                    ),
                    ("Data Mediator", _mediator_table(m["mediator"])),
                    (
                        f"Tanggal Pengiriman Hasil Kesepakatan {to}",
                        date_id(_d(m["tanggal_pengiriman_kesepakatan"])).strip(),
                    ),
                ]
            )
        )
    for key, heading in (
        ("pemberitahuan_permohonan", f"TANGGAL PEMBERITAHUAN PERMOHONAN {up}"),
        ("penerimaan_memori", f"TANGGAL PENERIMAAN MEMORI {up}"),
        ("penyerahan_memori", f"TANGGAL PENYERAHAN MEMORI {up}"),
        ("penerimaan_kontra_memori", f"TANGGAL PENERIMAAN KONTRA MEMORI {up}"),
        ("penyerahan_kontra_memori", f"TANGGAL PENYERAHAN KONTRA MEMORI {up}"),
        ("pemberitahuan_inzage", "TANGGAL PEMBERITAHUAN INZAGE"),
    ):
        if key in data:
            out.append(_appeal_heading(heading) + _appeal_dates(data[key]))

    def day(key: str) -> str:
        return date_id(_d(data[key])) if data[key] else ""

    out.append(_appeal_heading(f"TANGGAL PENGIRIMAN BERKAS {up}"))
    out.append(
        _appeal_info(
            [
                (f"Tanggal Pengiriman Berkas {lv}", day("tanggal_pengiriman_berkas")),
                (
                    f"Nomor Surat Pengiriman Berkas {lv}",
                    e(data["nomor_surat_pengiriman_berkas"]),
                ),
            ]
        )
    )
    majelis = data["majelis_hakim"]
    if pk:
        hakim = "<br>".join(e(m["nama"]) for m in majelis)
    else:
        hakim = "</br>".join(f"{m['jabatan']}: {e(m['nama'])}" for m in majelis)
    decided = [
        (f"Tanggal Putusan {title}", day("tanggal_putusan")),
        (f"Nomor Putusan {title}", e(data["nomor_putusan"])),
        (f"Amar Putusan {title}", e(data["amar_putusan"])),
        (f"Majelis Hakim {title}", hakim),
        (f"Panitera Pengganti {title}", e(data["panitera_pengganti"])),
    ]
    if "tanggal_penerimaan_kembali_berkas" in data:
        decided.append(
            (
                f"Tanggal Penerimaan Kembali Berkas {title}",
                day("tanggal_penerimaan_kembali_berkas"),
            )
        )
    decided.append((f"Tanggal Pengarsipan {title}", day("tanggal_pengarsipan")))
    out.append(_appeal_heading(f"PUTUSAN {up}") + _appeal_info(decided))
    out.append(_appeal_heading(f"TANGGAL PEMBERITAHUAN PUTUSAN {up}"))
    out.append('\t<input type="hidden" id=\'close_form\' value="Kembali" class="btn">\n')
    out.append(_appeal_dates(data["pemberitahuan_putusan"]))
    out.append("</div>")
    return "".join(out)


def fragment(case: Case, slug: str, warm: bool) -> str:
    """The HTML fragment ``/<slug>`` serves for ``case`` (``warm``: session saw a full page)."""
    data: Any = case.tabs.get(slug)
    if slug in OTHER_TABS:
        return OTHER_TABS[slug](case, data) + CLOSE_LOADING
    if slug not in case.tabs:
        body = _empty("DATA TIDAK DITEMUKAN")
    elif slug == "putusan":
        body = frag_putusan(case, warm)
    elif slug == "putusan_sela":
        body = frag_putusan_sela(case, warm)
    elif slug in ("banding", "kasasi", "pk"):
        body = frag_appeal(data, slug)
    else:  # pragma: no cover - every generated slug is handled above
        raise KeyError(slug)
    return body + "\n" + CLOSE_LOADING


#: slug -> renderer of the tabs in reference/sipp_site/render_tabs.py (a case without the
#: tab's data gets what the view prints for no rows).
OTHER_TABS: dict[str, Callable[[Case, Any], str]] = {
    "riwayat_perkara": lambda c, d: RT.riwayat(d or []),
    "jadwal_sidang": lambda c, d: RT.jadwal(d or []),
    "penetapan": lambda c, d: RT.penetapan(
        d or {"hakim": [], "panitera_pengganti": [], "sidang_pertama": []}, c.alur.id == 9
    ),
    "saksi": lambda c, d: RT.saksi(d or []),
    "mediasi": lambda c, d: RT.mediasi(d or []),
    "penuntutan": lambda c, d: RT.penuntutan(d or []),
    "biaya_perkara": lambda c, d: RT.biaya(d or []),
    "barang_bukti": lambda c, d: RT.barang_bukti(d or []),
    "diversi": lambda c, d: RT.diversi(d or []),
    # --broken-pages: the rows of verzet_m.php's join (render_broken._join_verzet)
    "verzet": lambda c, d: RT.verzet(render_broken.verzet_rows(c) or d or [], c.alur.id == 9),
    "grasi": lambda c, d: RT.grasi(d),
    "penetapan_gugur": lambda c, d: RT.penetapan_gugur(d or [], c.extra.get("gugur_sides", [])),
    "dismissal": lambda c, d: RT.dismissal(
        d or [], c.alur.id == 9, c.extra.get("dismissal_sides", []), c.extra.get("views", "2025")
    ),
    "ikrar_talak": lambda c, d: RT.ikrar_talak(d or []),
    "intervensi": lambda c, d: RT.intervensi(d or [], c.alur.id == 9),
    "rekonvensi": lambda c, d: RT.rekonvensi(d or []),
}


def penahanan_popup(case: Case, name: str, periods: Sequence[JSON]) -> str:
    """The detention popup (``/detil_penahanan``): case, name, one row per detention period."""
    rows = "".join(
        f"<tr><td>{k + 1}</td><td>{e(p['ditahan_oleh'])}</td><td>{e(p['jenis_tahanan'])}</td>"
        f"<td>{e(p['nomor_surat'])}</td><td>{date_id(p['tanggal_surat'])}</td>"
        f"<td>{date_id(p['mulai'])}</td><td>{date_id(p['sampai'])}</td><td>{e(p['status'])}</td></tr>"
        for k, p in enumerate(periods)
    )
    return (
        '<div class="popup_content"><table id="infoPerkara" width="100%">\n'
        + _info_row("Nomor Perkara", e(case.nomor_perkara_raw))
        + _info_row("Nama", e(name))
        + "</table>\n"
        '<table id="tableinfo" class="tableinfo" width="100%"><tr><td>No</td><td>Ditahan Oleh</td>'
        "<td>Jenis Tahanan</td><td>Nomor Surat</td><td>Tanggal Surat</td><td>Mulai</td>"
        f"<td>Sampai</td><td>Status Penahanan</td></tr>{rows}</table></div>"
    )


def jadwal_popup(case: Case, row: JSON) -> str:
    """``/detil_jadwal_sidang``: one hearing of one case."""
    h = case.case_data["header"]
    parties = "<br />".join(
        f"{label_html(p['label'])}: " + ", ".join(e(n) for n in p["nama"])
        for p in (h["pihak_1"], h["pihak_2"])
        if p["nama"]
    )
    return (
        "<table id='infoPerkara' width=\"100%\">\n"
        + _info_row("Nomor Perkara", e(case.nomor_perkara_raw))
        + _info_row("Jenis Perkara", e(case.case_data["data_umum"]["klasifikasi_perkara"]))
        + _info_row("Terdakwa/Pihak", parties)
        + _info_row("Hari dan Tanggal Sidang", date_id(_d(row["tanggal"])))
        + _info_row("Jam Sidang", e(row["jam"]))
        + _info_row("Agenda", e(row["agenda"]))
        + _info_row("Sidang Keliling", "TIDAK")
        + _info_row("Ruang Sidang", e(row["ruangan"]))
        + "</table>"
    )


def fragment_not_found() -> str:
    """An undecodable token on a tab route (§3): the message, an empty table, closeLoading."""
    return (
        "ERROR PERKARA NOT FOUND!<br>\n"
        '<table id="tableinfo" class="tableinfo" width="100%"><tr><td>No</td></tr></table>\n'
        + CLOSE_LOADING
    )


# --------------------------------------------------------------------------------------------
# error pages (CodeIgniter, Apache, nginx)

CI_404 = """<!DOCTYPE html>
<html lang="en">
<head>
<title>404 Page Not Found</title>
<style type="text/css">
body { background-color: #fff; margin: 40px; font: 13px/20px normal Helvetica, Arial, sans-serif; color: #4F5155; }
#container { margin: 10px; border: 1px solid #D0D0D0; box-shadow: 0 0 8px #D0D0D0; }
</style>
</head>
<body>
	<div id="container">
		<h1>404 Page Not Found</h1>
		<p>The page you requested was not found.</p>	</div>
</body>
</html>"""

CI_DB_ERROR = """<!DOCTYPE html>
<html lang="en">
<head>
<title>Database Error</title>
</head>
<body>
	<div id="container">
		<h1>A Database Error Occurred</h1>
		<p>Error Number: 2006</p><p>MySQL server has gone away</p><p>SELECT * FROM perkara_web WHERE IDPerkara = '1'</p><p>Filename: models/perkara/perkara_m.php</p><p>Line Number: 212</p>	</div>
</body>
</html>"""

CI_DB_SYNTAX = """<!DOCTYPE html>
<html lang="en">
<head>
<title>Database Error</title>
</head>
<body>
	<div id="container">
		<h1>A Database Error Occurred</h1>
		<p>Error Number: 1064</p><p>You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'AND  ORDER BY tglPendaftaran DESC' at line 3</p><p>Filename: models/perkara/perkara_m.php</p><p>Line Number: 388</p>	</div>
</body>
</html>"""

SEARCH_FORM_FIELDS = (
    ("tgl_pendaftaran_select", "1"), ("from_tgl_pendaftaran", ""), ("to_tgl_pendaftaran", ""),
    ("klasifikasi_perkara", "-1"), ("no_perkara_select", "8"), ("no_perkara", ""),
    ("para_pihak", ""), ("pihak1", ""), ("pihak2", ""), ("pihak3", ""), ("hakim", "-1"),
    ("panitera", "-1"), ("mediator", "-1"), ("putusan_select", "1"), ("from_tgl_putusan", ""),
    ("to_tgl_putusan", ""), ("minutasi_select", "1"), ("from_tgl_minutasi", ""),
    ("to_tgl_minutasi", ""), ("sidang_keliling", "-1"), ("proses_select", "1"), ("id_proses", "-1"),
)  # fmt: skip


def search_form(shell: Shell, enc: str, flows: Sequence[tuple[int, str]]) -> str:
    """The "Pencarian Detil" popup (``/search/<enc>``): the detailed-search form."""
    options = '<option value="-1">-- Semua --</option>' + "".join(
        f'<option value="{a}">{e(t)}</option>' for a, t in flows
    )
    fields = "".join(
        f'<tr><td>{name}</td><td><input type="text" name="{name}" value="{value}"></td></tr>'
        for name, value in SEARCH_FORM_FIELDS
    )
    return (
        '<div id="popup_search"><b>Pencarian Detil</b>'
        f'<form action="{shell.base}list_perkara/search_detail" method="post" accept-charset="utf-8">'
        f'<table><tr><td>Jenis Perkara</td><td><select name="id_alur_perkara">{options}</select></td></tr>'
        f'{fields}</table><input type="hidden" name="enc" value="{enc}">'
        '<input type="submit" value="Cari"></form></div>'
    )


CI_GENERAL_ERROR = """<!DOCTYPE html>
<html lang="en">
<head>
<title>Error</title>
</head>
<body>
	<div id="container">
		<h1>An Error Was Encountered</h1>
		<p>Unable to connect to your database server using the provided settings.</p><p>Filename: core/Loader.php</p><p>Line Number: 346</p>	</div>
</body>
</html>"""

PHP_NOTICE = """<div style="border:1px solid #990000;padding-left:20px;margin:0 0 10px 0;">

<h4>A PHP Error was encountered</h4>

<p>Severity: Notice</p>
<p>Message:  Undefined index: var_10</p>
<p>Filename: views/header.php</p>
<p>Line Number: 41</p>

</div>"""

APACHE_500 = """<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">
<html><head>
<title>500 Internal Server Error</title>
</head><body>
<h1>Internal Server Error</h1>
<p>The server encountered an internal error or
misconfiguration and was unable to complete
your request.</p>
</body></html>"""

NGINX_PAGE = """<html>
<head><title>{code} {reason}</title></head>
<body>
<center><h1>{code} {reason}</h1></center>
<hr><center>nginx</center>
</body>
</html>"""


def challenge_page(script: str) -> str:
    """The JavaScript gate: a page that sets a clearance cookie from script and reloads."""
    return f"""<!DOCTYPE html>
<html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8">
<meta name="robots" content="noindex,nofollow">
<noscript><meta http-equiv="refresh" content="30"></noscript>
</head><body>
<div class="main-wrapper" role="main"><div class="main-content">
<h1>Checking your browser before accessing the SIPP site.</h1>
<p>This process is automatic. Your browser will redirect to your requested content shortly.</p>
<p>Please enable JavaScript and Cookies to continue.</p>
</div></div>
<script type="text/javascript">{script}</script>
</body></html>"""
