# ruff: noqa: E101, E501, W291, W293  (page templates keep the real pages' layout: long lines, mixed tabs)
"""HTML of the replica: pure functions from generated data (and tokens) to SIPP pages.

The markup follows docs/sipp-site.md §1-4 and the real saved list page
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

from . import render_tabs as RT
from .court import LABEL_ERROR, TODAY, Court, MenuEntry
from .formats import (
    count_id,
    date_en,
    date_id,
    decimal_money,
)
from .model import TAB_DIV, TAB_LABELS, TAB_ORDER, Case

JSON = dict[str, Any]
ROWS_PER_PAGE = 20

#: every ``show_<x>`` the detail page script loads, whichever tabs are shown (§2)
ALL_TAB_ROUTES: tuple[tuple[str, str], ...] = (
    *TAB_ORDER,
    ("perbaikan_gugatan", "tabs33"),
    ("pen_persiapan", "tabs23"),
    ("putusan_sela", "tabs9"),
    ("pk", "tabs15"),
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
				<font><b>Sistem Informasi Penelusuran Perkara</b><span><br><strong>{e(shell.court.name)}</strong><br /></span></font>
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
    return "<br/><br/>".join(
        f"{label_html(g['label'])}:<br />" + "<br />".join(e(n) for n in g["nama"]) for g in groups
    )


def row_cells(case: Case, tilang: bool = False) -> str:
    """The cells of a case's list row between ``No`` and ``Link`` (they never change)."""
    if tilang:
        t = case.extra["tilang"]
        sidang: dt.date = t["sidang"]
        when = date_en(sidang) + "<br/>" + e(t["ruang"]) if sidang <= TODAY else "-"
        return (
            f"<td>{e(case.nomor_perkara_raw)}</td>"
            f"<td>{e(t['seri'])} / {e(t['bayar'])}</td><td>{e(t['plate'])}</td>"
            f"<td>{e(t['offender'])}</td><td>{when}</td><td>{e(t.get('putusan', '-'))}</td>"
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
				<td>Nomor Seri Tilang / No Pembayaran</td>
				<td>Tanda Nomor Kendaraan Bermotor</td>
				<td>Pelanggar</td>
				<td onclick="sorting(2)">Tanggal Sidang<br/>Ruang Sidang</td>
				<td>Putusan</td>
				<td>Link</td>
			</tr>
"""
NOT_FOUND_ROW = '<tr><td colspan="8" align="center">Data Tidak diTemukan</td></tr>'


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
            window.open('{b}{page.pager_path}'+pageNumber+'/{enc}/key/col/2','_self')
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
	<form action="{b}list_perkara/search" method="post" accept-charset="utf-8">
		<input name="search_keyword" value="" id="search-box" size="50" placeholder="  Ketik kata kunci  " type="text">
		<input name="enc" value="{enc}" type="hidden">
		<span></span>
		<input name="" value="Cari" id="search-btn1" type="submit">
	</form>
</div>
<div id="left">
<input type="submit" onClick="popup_form('{b}search/{enc}');" value="Pencarian Detil" id="search-btn1">
</div>
<div id="pages">
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
		window.open('{b}list_perkara/sort/'+col+'/{enc}/key','_self')
	}}
		function searchDetilShow(){{
		popup_form('{b}search/{enc}');
	}}
	$('#cetak_perkara_list').click(function(){{
		window.open('{b}perkara_list_cetak/cetak/1/{enc}/key','_self')
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
    head = "<tr><td>No</td><td>Nama</td>" + ("<td>Penahanan</td>" if penahanan else "") + "</tr>"
    rows = []
    for k, name in enumerate(names):
        cell = ""
        if penahanan:
            tok_id, tok_name = penahanan[k]
            cell = (
                f'<td><a href="javascript:void(0)" onclick="detilPenahanan(\'{tok_id}\','
                f"'{tok_name}')\">Penahanan</a></td>"
            )
        rows.append(f"<tr><td>{k + 1}</td><td>{e(name)}</td>{cell}</tr>")
    return (
        '<table id="tableinfo" class="tableinfo" width="100%">' + head + "".join(rows) + "</table>"
    )


def _kuasa_table(rows: Sequence[JSON]) -> str:
    body = "".join(
        f"<tr><td>{k + 1}</td><td>{e(r['nama'])}</td><td>{e(r['nama_pihak'])}</td></tr>"
        for k, r in enumerate(rows)
    )
    return (
        '<table id="tableinfo" class="tableinfo" width="100%">'
        "<tr><td>No</td><td>Nama</td><td>Nama Pihak</td></tr>" + body + "</table>"
    )


def _info_row(label: str, value: str) -> str:
    return (
        f'<tr><td id="first-child"><font color="white">{label}</font></td><td>{value}</td></tr>\n'
    )


def _text_or_dash(value: str | None) -> str:
    return " - " if value is None else e(value)


def data_umum(case: Case, penahanan_tokens: Sequence[tuple[str, str]]) -> str:
    du = case.case_data["data_umum"]
    criminal = case.alur.criminal
    rows = [
        _info_row("Tanggal Pendaftaran", date_id(_d(du["tanggal_pendaftaran"]))),
        _info_row("Klasifikasi Perkara", e(du["klasifikasi_perkara"])),
        _info_row("Nomor Perkara", e(du["nomor_perkara"])),
    ]
    if "tanggal_surat" in du:
        suffix = " Pelimpahan" if criminal else ""
        rows.append(_info_row("Tanggal Surat" + suffix, date_id(_d(du["tanggal_surat"]))))
        rows.append(_info_row("Nomor Surat" + suffix, _text_or_dash(du["nomor_surat"])))
    kuasa = list(du.get("kuasa", []))
    for k, p in enumerate(du["pihak"]):
        tokens = penahanan_tokens if (k == 1 and case.extra.get("penahanan")) else None
        rows.append(_info_row(label_html(p["label"]), _names_table(p["nama"], tokens)))
        if k < len(kuasa):
            q = kuasa[k]
            rows.append(_info_row(label_html(q["label"]), _kuasa_table(q["rows"])))
    if "nilai_sengketa" in du:
        rows.append(_info_row("Nilai Sengketa(Rp)", decimal_money(du["nilai_sengketa"])))
    if "petitum" in du:
        rows.append(_info_row("Petitum", long_text(du["petitum"])))
    if "dakwaan" in du:
        rows.append(_info_row("Dakwaan", paragraphs(du["dakwaan"])))
    if "tanggal_penindakan" in du:
        rows += [
            _info_row("Tanggal Penindakan", date_id(_d(du["tanggal_penindakan"]))),
            _info_row("Ditindak Oleh", e(du["ditindak_oleh"])),
            _info_row("Jenis Surat Tilang", e(du["jenis_surat_tilang"])),
            _info_row("Nomor Seri Surat Tilang", e(du["nomor_seri_surat_tilang"])),
            _info_row("Nomor Pembayaran", e(du["nomor_pembayaran"])),
            _info_row("Jenis Kendaraan", e(du["jenis_kendaraan"])),
            _info_row("Tanda Nomor Kendaraan Bermotor", e(du["tanda_nomor_kendaraan"])),
            _info_row("Bukti", e(du["bukti"])),
        ]
    rows.append(_info_row("Pihak Dipublikasikan", e(du["pihak_dipublikasikan"])))
    if "prodeo" in du:
        rows.append(_info_row("Prodeo", e(du["prodeo"])))
    return "<table id='infoPerkara' width=\"100%\">\n" + "".join(rows) + "</table>"


def detail_page(
    shell: Shell,
    case: Case,
    token: str,
    penahanan_tokens: Sequence[tuple[str, str]] = (),
) -> str:
    """``/detil_perkara``: header, tab anchors, inline Data Umum, one ``.load`` per tab route."""
    b = shell.base
    h = case.case_data["header"]

    def names(p: JSON) -> str:
        return "<br />".join(e(n) for n in p["nama"])

    header = (
        '<table id="tableinfo" class="tableinfo" width="100%">'
        f"<tr><td>Nomor Perkara</td><td>{label_html(h['pihak_1']['label'])}</td>"
        f"<td>{label_html(h['pihak_2']['label'])}</td><td>Status Perkara</td></tr>"
        f"<tr><td>{e(h['nomor_perkara'])}</td><td>{names(h['pihak_1'])}</td>"
        f"<td>{names(h['pihak_2'])}</td><td>{e(h['status_perkara'])}</td></tr></table>"
    )
    lis = ["<li class='tab'><a href=\"#tabs1\" id='tabInfo' class=\"selected\">Data Umum</a></li>"]
    divs = []
    for tab in case.tab_list:
        div = TAB_DIV[tab["slug"]]
        lis.append(f"<li class='tab'><a href=\"#{div}\" id='tabInfo'>{e(tab['label'])}</a></li>")
        divs.append(f'<div id="{div}"></div>')
    loads = "\n".join(
        f"\t$('#{div}').load('{b}show_{slug}/{token}');" for slug, div in ALL_TAB_ROUTES
    )
    return (
        page_head(shell)
        + f"""	<div id="pageTitle">
		<b>INFORMASI DETAIL PERKARA</b>
	</div>
	<div id="right"><a href="{b}list_perkara" class="kembali">Kembali</a></div>
	<hr class="thick-line" style="clear:both;">
{header}
<div id="usual2" class="usual"><ul>
{chr(10).join(lis)}
</ul>
<div id="tabs1">
{data_umum(case, penahanan_tokens)}
</div>
{chr(10).join(divs)}
</div>
<script type="text/javascript">
	$("#usual2 ul").idTabs();
{loads}
	function detilPenahanan(a, b){{
		popup_form('{b}penahanan/'+a+'/'+b);
	}}
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


def _party_label(label: str, warm: bool) -> str:
    return label_html(label if warm else LABEL_ERROR)


def frag_putusan(data: JSON, warm: bool) -> str:
    rows = [_info_row(e(data["tanggal_label"]), date_id(_d(data["tanggal_putusan"])))]
    if "putusan_verstek" in data:
        rows.append(_info_row("Putusan Verstek", e(data["putusan_verstek"])))
    if "status_putusan" in data:
        rows.append(_info_row("Status Putusan", e(data["status_putusan"])))
    else:
        rows.append(
            _info_row(
                "Status Putusan",
                _table(
                    "tableinfo",
                    ["No", "Nama", "Tanggal Putusan", "Putusan"],
                    [
                        [e(r["nama"]), date_id(_d(r["tanggal_putusan"])), e(r["putusan"])]
                        for r in data["status_putusan_terdakwa"]
                    ],
                ),
            )
        )
    amar = data["amar_putusan"]
    rows.append(_info_row("Amar Putusan", long_text(amar)))
    rows.append(
        _info_row(
            "Pemberitahuan Putusan",
            _table(
                "tableinfo",
                ["No", "Status", "Nama", "Tanggal Pemberitahuan Putusan"],
                [
                    [_party_label(r["status"], warm), e(r["nama"]), date_id(_d(r["tanggal"]))]
                    for r in data["pemberitahuan_putusan"]
                ],
            ),
        )
    )
    rows.append(_info_row("Kirim Salinan Putusan", date_id(_d(data["kirim_salinan_putusan"]))))
    rows.append(_info_row("Tanggal Minutasi", date_id(_d(data["tanggal_minutasi"]))))
    rows.append(_info_row("Keterangan", _text_or_dash(data["keterangan"])))
    return "<table id='infoPerkara' width=\"100%\">\n" + "".join(rows) + "</table>"


def frag_appeal(data: JSON, level: str, warm: bool) -> str:
    pemohon = _table(
        "tableinfo",
        ["No", "Nama", "Status"],
        [[e(p["nama"]), _party_label(p["status"], warm)] for p in data["pemohon"]],
    )
    rows = [
        _info_row(f"Pemohon {level}", pemohon),
        _info_row(f"Tanggal Permohonan {level}", date_id(_d(data["tanggal_permohonan"]))),
        _info_row(
            f"Tanggal Pengiriman Berkas {level}", date_id(_d(data["tanggal_pengiriman_berkas"]))
        ),
        _info_row(
            f"Nomor Surat Pengiriman Berkas {level}",
            _text_or_dash(data["nomor_surat_pengiriman_berkas"]),
        ),
        _info_row(
            f"Majelis Hakim {level}",
            "<br />".join(e(n) for n in data["majelis_hakim"]) or " - ",
        ),
        _info_row(f"Panitera Pengganti {level}", _text_or_dash(data["panitera_pengganti"])),
        _info_row(f"Tanggal Putusan {level}", date_id(_d(data["tanggal_putusan"]))),
        _info_row(f"Nomor Putusan {level}", _text_or_dash(data["nomor_putusan"])),
        _info_row(f"Amar Putusan {level}", _text_or_dash(data["amar_putusan"])),
        _info_row(
            f"Tanggal Penerimaan Kembali Berkas {level}",
            date_id(_d(data["tanggal_penerimaan_kembali_berkas"])),
        ),
        _info_row(f"Tanggal Pengarsipan {level}", date_id(_d(data["tanggal_pengarsipan"]))),
    ]
    return "<table id='infoPerkara' width=\"100%\">\n" + "".join(rows) + "</table>"


def fragment(case: Case, slug: str, warm: bool) -> str:
    """The HTML fragment ``/<slug>`` serves for ``case`` (``warm``: session saw a full page)."""
    data: Any = case.tabs.get(slug)
    if slug in OTHER_TABS:
        return OTHER_TABS[slug](case, data) + CLOSE_LOADING
    if slug not in case.tabs:
        body = _empty("DATA TIDAK DITEMUKAN")
    elif slug == "putusan":
        body = frag_putusan(data, warm)
    elif slug in ("banding", "kasasi"):
        body = frag_appeal(data, TAB_LABELS[slug], warm)
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
    "verzet": lambda c, d: RT.verzet(d or []),
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


def jadwal_page(shell: Shell, day: dt.date, rows: Sequence[tuple[Case, JSON, str, int]]) -> str:
    """``/list_jadwal_sidang``: the hearings of one day (§1.5)."""
    body = (
        "".join(
            f"<tr><td>{n}</td><td>{date_id(day)}<br>{e(row['jam'])}</td>"
            f"<td>{e(case.nomor_perkara_raw)}</td><td>TIDAK</td><td>{e(row['ruangan'])}</td>"
            f"<td>{e(row['agenda'])}</td>"
            f'<td align="center"><a href="javascript:void(0)" onClick="detilSidang(\'{token}\')">Detil</a></td></tr>'
            for case, row, token, n in rows
        )
        or '<tr><td colspan="7" align="center">Data Tidak diTemukan</td></tr>'
    )
    b = shell.base
    return (
        page_head(shell)
        + f"""	<div id="pageTitle">
		<b>JADWAL SIDANG - {date_id(day)}</b>
	</div>
<div class="cssTable">
	<table id="tablePerkaraAll"><tbody>
		<tr><td>No</td><td>Tanggal Sidang</td><td>Nomor Perkara</td><td>Sidang Keliling</td><td>Ruangan</td><td>Agenda</td><td>Detil</td></tr>
		{body}
	</tbody></table>
</div>
<script type="text/javascript">
	function detilSidang(a){{
		popup_form('{b}detil_jadwal_sidang/'+a);
	}}
</script>
"""
        + PAGE_FOOT
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
