"""The case detail page (``/show_detil/<tok>`` -> ``/detil_perkara``): header, Data Umum, tabs.

The header is the *first* ``table#tableinfo`` (every party table nested in Data Umum repeats that
id); Data Umum is ``#tabs1 table#infoPerkara``; the tabs are the ``#usual2`` anchors, each mapped
to its ``.load('<base>show_<slug>/<tok>')`` URL found in the page script.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from harvest.sipp.cut import CUT_KIND, detail_skeleton, fatal_message, strip_fatal
from harvest.sipp.document import OTHER_KEY
from harvest.sipp.exceptions import ParseError
from harvest.sipp.generic import generic_cell, generic_table
from harvest.sipp.html import (
    STRUCTURE,
    Element,
    absolute_url,
    cells,
    first,
    lines,
    long_text,
    parse_html,
    raw_text,
    rows,
    text,
    xpath_elements,
)
from harvest.sipp.normalise import none_if_empty, parse_date, parse_money
from harvest.sipp.warnings import warn

PAGE = "detail page"
#: The page name parse warnings of this page carry (harvest.sipp.warnings).
WARN_PAGE = "detail"

#: Tabs the stock SIPP code lists but cannot serve, never fetched: ``show_we_kppu`` routes to
#: ``redirect_page/redir_we_kppu``, which does not exist (404). ``show_diversi`` works.
UNAVAILABLE_TAB_SLUGS: frozenset[str] = frozenset({"we_kppu"})
#: The label SIPP prints when its label table has no row for a party role.
PIHAK_NOT_FOUND = "Error, Pihak Not Found!!!"

#: ``#tabsN`` -> slug (docs/sipp.md §3), used only when a page has no ``.load`` line for a
#: listed tab (then the tab is listed as unavailable: there is no URL to fetch).
TAB_DIV_SLUGS: dict[str, str] = {
    "tabs2": "penetapan",
    "tabs33": "perbaikan_gugatan",
    "tabs23": "pen_persiapan",
    "tabs3": "diversi",
    "tabs4": "jadwal_sidang",
    "tabs26": "saksi",
    "tabs6": "mediasi",
    "tabs25": "mediasi_luar",
    "tabs7": "intervensi",
    "tabs22": "rekonvensi",
    "tabs8": "penuntutan",
    "tabs9": "putusan_sela",
    "tabs10": "putusan",
    "tabs5": "verzet",
    "tabs20": "dismissal",
    "tabs21": "penetapan_gugur",
    "tabs19": "keberatan",
    "tabs13": "banding",
    "tabs14": "kasasi",
    "tabs15": "pk",
    "tabs16": "grasi",
    "tabs17": "eksekusi",
    "tabs11": "biaya_perkara",
    "tabs24": "ikrar_talak",
    "tabs18": "barang_bukti",
    "tabs27": "pkpu_sementara",
    "tabs28": "pkpu_tetap",
    "tabs29": "rencana_perdamaian",
    "tabs30": "laporan_pengurus",
    "tabs31": "setelah_putusan_pernyataan_pailit",
    "tabs32": "pembatalan_perdamaian",
    "tabs55": "we_kppu",
    "tabs12": "riwayat_perkara",
}

_LOAD = re.compile(r"""\$\(\s*['"]#(tabs\d+)['"]\s*\)\.load\(\s*['"]([^'"]+)['"]\s*\)""")
_SHOW_DETIL = re.compile(r"/show_detil/")
_SHOW_ROUTE = re.compile(r"/show_([A-Za-z0-9_]+)(?:/|$)")


@dataclass(frozen=True)
class TabRef:
    """A tab the detail page lists: ``slug`` (its ``show_<slug>`` route), the anchor ``label``,
    the absolute ``.load()`` ``url`` (``""`` when the page has none) and whether it can be
    fetched at all (``available`` is false for the stock-broken we_kppu route)."""

    slug: str
    label: str
    url: str
    available: bool


@dataclass(frozen=True)
class DetailPage:
    """A parsed detail page.

    ``nomor_perkara`` is the header's case number exactly as shown (not stripped); ``data`` holds
    ``{"header": ..., "data_umum": ...}`` in the item format (docs/item-format.md); ``tabs`` the
    listed tabs in page order, without Data Umum (it is inline). ``cut`` names where a page the
    app cut short stopped (``"Informasi: Tanggal Kejadian"``, harvest/sipp/cut.py), ``None`` for
    a complete page.
    """

    nomor_perkara: str
    data: dict[str, Any]
    tabs: list[TabRef]
    cut: str | None = None

    @property
    def party_labels(self) -> tuple[str, ...]:
        """The party labels the header shows (not the error text): a tab fragment showing one
        of them as a label comes from a warm session (harvest/sipp/error_pages.py)."""
        header = self.data.get("header", {})
        return tuple(
            side["label"]
            for side in (header.get("pihak_1"), header.get("pihak_2"))
            if isinstance(side, dict) and side.get("label") and side["label"] != PIHAK_NOT_FOUND
        )

    @property
    def party_labels_missing(self) -> bool:
        """True when the court's own label table lacks party labels (full pages show
        ``Error, Pihak Not Found!!!``, as on PA sites): tab fragments of this court then show
        that text legitimately, not because the session was never warmed."""
        header = self.data.get("header", {})
        return any(
            isinstance(side, dict) and side.get("label") == PIHAK_NOT_FOUND
            for side in (header.get("pihak_1"), header.get("pihak_2"))
        )


#: Marks the element a cut page stopped in (set on the parsed tree only).
_CUT_MARK = "data-harvest-cut"


def parse_detail_page(html: str, url: str, *, show_url: str | None = None) -> DetailPage:
    """Parse ``/detil_perkara`` fetched from ``url``; :class:`ParseError` when it is not one.

    A page the app cut short inside Data Umum (harvest/sipp/cut.py) is read for what it shows:
    the header, the tab anchors and the Data Umum rows before the cut; a value cell the cut left
    empty is not a value (its key is left out), and a ``cut`` parse warning names the place.
    Its tab script never came, so each tab's URL is built from ``show_url`` (the
    ``show_detil/<tok>`` URL the page was reached by: the app loads every tab with the same
    token); without it the tabs are listed as unavailable.
    """
    cut = detail_skeleton(html)
    if cut and fatal_message(html) is not None:
        html = strip_fatal(html)
    doc = parse_html(html, PAGE)
    where: str | None = None
    if cut:
        where = _mark_cut(doc)
    header_table = first(doc, "(//table[@id='tableinfo'])[1]")
    if header_table is None:
        raise ParseError(f"{PAGE}: no header table#tableinfo in the page from {url}")
    header = _header(header_table)
    info = first(doc, "//div[@id='tabs1']//table[@id='infoPerkara']")
    if info is None:
        raise ParseError(
            f"{PAGE}: no Data Umum (#tabs1 table#infoPerkara) for {header['nomor_perkara']!r}"
        )
    data_umum = parse_data_umum(info)
    if where is not None:
        warn(WARN_PAGE, where, CUT_KIND)
    return DetailPage(
        nomor_perkara=header["nomor_perkara"],
        data={"header": header, "data_umum": data_umum},
        tabs=_tabs(doc, html, url, show_url=show_url if cut else None),
        cut=where,
    )


def _mark_cut(doc: Element) -> str:
    """Mark the element the output stopped in and name the place: the Data Umum row's label,
    and in a grid the label of the cell before (``Informasi: Tanggal Kejadian``)."""
    last = None
    for element in doc.iter():
        last = element
    if last is None or not isinstance(last.tag, str):
        return "page"
    last.set(_CUT_MARK, "1")
    names: list[str] = []
    node = last
    while node is not None:
        if node.tag == "tr" and _in_data_umum(node):
            tds = cells(node)
            if tds:
                names.append(text(tds[0]))
            break
        if node.tag == "td":
            row = node.getparent()
            if row is None or not _in_data_umum(row):
                before = node.getprevious()
                if before is not None and before.tag == "td" and text(before):
                    names.append(text(before))
        node = node.getparent()
    return ": ".join(reversed(names)) or "Data Umum"


def _in_data_umum(row: Element) -> bool:
    table = row.getparent()
    if table is not None and table.tag == "tbody":
        table = table.getparent()
    return table is not None and table.get("id") == "infoPerkara"


def _is_cut(cell: Element) -> bool:
    """``cell`` is the empty cell a cut page stopped in (its value never came)."""
    return cell.get(_CUT_MARK) is not None and not text(cell)


def _header(table: Element) -> dict[str, Any]:
    trs = [tr for tr in rows(table) if cells(tr)]
    if len(trs) < 2:
        raise ParseError(f"{PAGE}: header table#tableinfo has {len(trs)} rows, needs 2")
    labels, values = cells(trs[0]), cells(trs[1])
    if len(labels) < 4 or len(values) < 4:
        raise ParseError(
            f"{PAGE}: header table#tableinfo rows have {len(labels)}/{len(values)} cells, need 4"
        )
    number = raw_text(values[0])
    if not number.strip():
        raise ParseError(f"{PAGE}: header table#tableinfo shows no Nomor Perkara")
    return {
        "nomor_perkara": number,
        "pihak_1": _header_side(labels[1], values[1]),
        "pihak_2": _header_side(labels[2], values[2]),
        "status_perkara": none_if_empty(text(values[3])),
    }


def _header_side(label: Element, value: Element) -> dict[str, Any] | None:
    """One party column of the header; ``None`` when both cells are empty (the first party of
    a traffic-ticket case, alur 114: detil_perkara.php prints neither label nor names)."""
    names = lines(value)
    if not text(label) and not names:
        return None
    return {"label": text(label), "nama": names}


# Data Umum row label (lower case) -> (key, kind).
_DATA_UMUM: dict[str, tuple[str, str]] = {
    "tanggal pendaftaran": ("tanggal_pendaftaran", "date"),
    "klasifikasi perkara": ("klasifikasi_perkara", "text"),
    "nomor perkara": ("nomor_perkara", "raw"),
    "tanggal surat": ("tanggal_surat", "date"),
    "tanggal surat pelimpahan": ("tanggal_surat", "date"),
    "nomor surat": ("nomor_surat", "text"),
    "nomor surat pelimpahan": ("nomor_surat", "text"),
    "nilai sengketa(rp)": ("nilai_sengketa", "money"),
    "nilai sengketa (rp)": ("nilai_sengketa", "money"),
    "petitum": ("petitum", "long"),
    "dakwaan": ("dakwaan", "long"),
    # forms the replica does not print (alur 9, 119, 124): kept under their own keys
    "gugatan": ("gugatan", "long"),
    "petitum permohonan": ("petitum_permohonan", "long"),
    "pendapat ormil & pappera": ("pendapat_ormil_pappera", "long"),
    "tanggal penindakan": ("tanggal_penindakan", "date"),
    "ditindak oleh": ("ditindak_oleh", "text"),
    "jenis surat tilang": ("jenis_surat_tilang", "text"),
    "nomor seri surat tilang": ("nomor_seri_surat_tilang", "text"),
    "nomor pembayaran": ("nomor_pembayaran", "text"),
    "jenis kendaraan": ("jenis_kendaraan", "text"),
    "tanda nomor kendaraan bermotor": ("tanda_nomor_kendaraan", "text"),
    "bukti": ("bukti", "text"),
    "pihak dipublikasikan": ("pihak_dipublikasikan", "text"),
    "prodeo": ("prodeo", "text"),
    # military courts (jenis pengadilan 2): alur 124 rows, and the Informasi grid of the others
    "berkas dari": ("berkas_dari", "text"),
    "tanggal kejadian": ("tanggal_kejadian", "date"),
    "tempat kejadian": ("tempat_kejadian", "text"),
    "informasi": ("informasi", "informasi"),
}

#: The military Informasi grid (data_umum.php:119-167): label -> (key, kind), read pairwise.
_INFORMASI: dict[str, tuple[str, str]] = {
    "tanggal kejadian": ("tanggal_kejadian", "date"),
    "nomor surat dakwaan": ("nomor_surat_dakwaan", "text"),
    "tempat kejadian": ("tempat_kejadian", "text"),
    "pasal dakwaan": ("pasal_dakwaan", "text"),
    "tanggal skeppera": ("tanggal_skeppera", "date"),
    "penyidik militer": ("penyidik_militer", "text"),
    "nomor skeppera": ("nomor_skeppera", "text"),
    "nomor bap penyidik militer": ("nomor_bap_penyidik_militer", "text"),
    "pejabat skeppera": ("pejabat_skeppera", "text"),
    "tanggal bap penyidik": ("tanggal_bap_penyidik", "date"),
    "tanggal surat dakwaan": ("tanggal_surat_dakwaan", "date"),
}


def parse_data_umum(table: Element) -> dict[str, Any]:
    """Data Umum (``table#infoPerkara`` in ``#tabs1``) in the item format.

    Party rows are recognised by their nested table's columns: ``No | Nama [| Penahanan]`` ->
    ``pihak``, ``No | Nama | Nama Pihak`` -> ``kuasa``. A party row without a nested table is a
    kuasa row when its label says ``Kuasa`` (or, for the error label, when it follows a party
    row, as kuasa rows do on civil cases), else a party row with no names.
    """
    out: dict[str, Any] = {}
    last_party_kind = ""
    for tr in rows(table):
        tds = cells(tr)
        if len(tds) < 2:
            continue
        label = text(tds[0])
        value = tds[1]
        if _is_cut(value):
            continue
        nested = first(value, ".//table")
        key_kind = _DATA_UMUM.get(label.lower())
        if key_kind is None and (
            (nested is not None and _is_names_table(nested))
            or (nested is None and _looks_like_party_row(label))
        ):
            kind = _party_row_kind(label, nested, last_party_kind)
            last_party_kind = kind
            entry: dict[str, Any]
            if kind == "pihak":
                names = _column(nested, "nama") if nested is not None else []
                entry = {"label": label, "nama": names}
                out.setdefault("pihak", []).append(entry)
            else:
                entry = {"label": label, "rows": _kuasa_rows(nested) if nested is not None else []}
                out.setdefault("kuasa", []).append(entry)
            if nested is not None:
                _keep_unknown_columns(entry, label, nested, kind)
            continue
        if key_kind is None:
            warn(WARN_PAGE, label, "row")
            out.setdefault(OTHER_KEY, []).append({"label": label, "value": generic_cell(value)})
            continue
        key, kind = key_kind
        if kind == "informasi":
            out[key] = _informasi(value)
            continue
        out[key] = _value(kind, value, label)
    return out


def _informasi(cell: Element) -> dict[str, Any]:
    """The military Informasi grid: rows of ``label | value | label | value`` cells.

    Every known label gets its key (``null`` when empty); a pair with neither label nor value
    (the grid's last filler pair) is skipped; an unknown label is kept in ``lainnya``.
    """
    out: dict[str, Any] = {}
    grid = first(cell, ".//table")
    if grid is None:
        txt = text(cell)
        if txt:
            warn(WARN_PAGE, "Informasi", "value")
            out[OTHER_KEY] = [{"label": "", "value": txt}]
        return out
    for tr in rows(grid):
        tds = cells(tr)
        for k in range(0, len(tds) - 1, 2):
            label, value = text(tds[k]), tds[k + 1]
            if (not label and not text(value)) or _is_cut(value):
                continue
            key_kind = _INFORMASI.get(label.lower())
            if key_kind is None:
                warn(WARN_PAGE, label, "row")
                other = {"label": label, "value": generic_cell(value)}
                out.setdefault(OTHER_KEY, []).append(other)
                continue
            key, kind = key_kind
            out[key] = _value(kind, value, label)
    return out


_PARTY_WORDS = frozenset(
    {
        "penggugat", "tergugat", "pemohon", "termohon", "terdakwa", "penuntut", "anak",
        "korban", "pelawan", "terlawan", "tersangka", "oditur", "intervensi", "pelanggar",
        "debitur", "kreditur", "kuasa", "pihak", "penasihat", "penasehat", "hukum", "pengacara",
        "advokat", "terperiksa",
    }
)  # fmt: skip
#: Words of a lawyer row's label (``getStatusPihak(.., 7 | 8 | 10)``: ``Kuasa Hukum Penggugat``,
#: ``Penasihat Hukum Terdakwa``), which tell an empty kuasa cell from an empty party cell.
_KUASA_WORDS = frozenset({"kuasa", "penasihat", "penasehat", "hukum", "pengacara", "advokat"})


def _is_names_table(table: Element) -> bool:
    """Party and kuasa tables are headed ``No | Nama ...``."""
    header = [h.lower() for h in _header_texts(table)]
    return len(header) >= 2 and header[0] == "no" and header[1] == "nama"


def _looks_like_party_row(label: str) -> bool:
    if label == PIHAK_NOT_FOUND:
        return True
    return any(word in _PARTY_WORDS for word in re.findall(r"[a-z]+", label.lower()))


def _party_row_kind(label: str, nested: Element | None, last: str) -> str:
    if nested is not None:
        header = [h.lower() for h in _header_texts(nested)]
        return "kuasa" if "nama pihak" in header else "pihak"
    if _KUASA_WORDS.intersection(re.findall(r"[a-z]+", label.lower())):
        return "kuasa"
    if label == PIHAK_NOT_FOUND and last == "pihak":
        return "kuasa"
    return "pihak"


#: The columns data_umum.php prints in a party / lawyer table.
_KNOWN_COLUMNS = {
    "pihak": frozenset({"no", "nama", "penahanan"}),
    "kuasa": frozenset({"no", "nama", "nama pihak"}),
}


def _keep_unknown_columns(entry: dict[str, Any], label: str, table: Element, kind: str) -> None:
    """A party or lawyer table with a column the template does not print: the whole table is
    kept generically in the entry's ``lainnya`` (rows of cells, header first), with a
    ``column`` warning per unknown column."""
    unknown = [h for h in _header_texts(table) if h.lower() not in _KNOWN_COLUMNS[kind]]
    if not unknown:
        return
    for column in unknown:
        warn(WARN_PAGE, f"{label}: {column}", "column")
    entry[OTHER_KEY] = generic_table(table)


def _header_texts(table: Element) -> list[str]:
    trs = rows(table)
    return [text(td) for td in cells(trs[0])] if trs else []


def table_records(table: Element) -> list[dict[str, Element]]:
    """A headed table's data rows as ``{lower-case header text: cell}`` (the header is the
    first row; rows whose cell count differs from it, such as a no-data line, are skipped)."""
    trs = [tr for tr in rows(table) if cells(tr)]
    if not trs:
        return []
    header = [text(td).lower() for td in cells(trs[0])]
    out = []
    for tr in trs[1:]:
        tds = cells(tr)
        if len(tds) != len(header):
            continue
        out.append(dict(zip(header, tds, strict=True)))
    return out


def _column(table: Element, name: str) -> list[str]:
    return [text(rec[name]) for rec in table_records(table) if name in rec]


def _kuasa_rows(table: Element) -> list[dict[str, Any]]:
    return [
        {"nama": text(rec.get("nama")), "nama_pihak": text(rec.get("nama pihak"))}
        for rec in table_records(table)
    ]


def _value(kind: str, cell: Element, label: str) -> Any:
    """A row's value; a date or amount that does not parse is kept as its text, with a
    ``value`` warning, never an error (the page is still the page we asked for)."""
    if kind == "raw":
        return raw_text(cell)
    if kind == "long":
        if first(cell, ".//table") is not None:
            # a table pasted into the text: read one line per row, cells apart (html.long_text)
            warn(WARN_PAGE, f"{label}: table", STRUCTURE)
        return long_text(cell)
    if kind in ("date", "money"):
        shown = text(cell)
        try:
            return parse_date(shown) if kind == "date" else parse_money(shown)
        except ValueError:
            warn(WARN_PAGE, label, "value")
            return shown
    return none_if_empty(text(cell))


def date_value(value: str, where: str) -> str | None:
    """``parse_date`` that raises :class:`ParseError` naming where the bad date was."""
    try:
        return parse_date(value)
    except ValueError as e:
        raise ParseError(f"{where}: {e}") from e


def _tabs(doc: Element, html: str, url: str, *, show_url: str | None = None) -> list[TabRef]:
    loads = {div: absolute_url(url, href) for div, href in _LOAD.findall(html)}
    if not loads and show_url is not None and _SHOW_DETIL.search(show_url):
        # a cut page: its script never came; the app loads every tab with the show_detil token
        for a in xpath_elements(doc, "//div[@id='usual2']//li/a[starts-with(@href, '#tabs')]"):
            div = str(a.get("href", ""))[1:]
            slug = TAB_DIV_SLUGS.get(div)
            if slug is not None:
                loads[div] = _SHOW_DETIL.sub(f"/show_{slug}/", show_url, count=1)
    tabs: list[TabRef] = []
    anchors = xpath_elements(doc, "//div[@id='usual2']//li/a[starts-with(@href, '#tabs')]")
    for a in anchors:
        div = str(a.get("href", ""))[1:]
        if div == "tabs1":
            continue
        label = text(a)
        load = loads.get(div, "")
        m = _SHOW_ROUTE.search(load)
        slug = m.group(1) if m else TAB_DIV_SLUGS.get(div, _slugify(label))
        available = bool(load) and slug not in UNAVAILABLE_TAB_SLUGS
        tabs.append(TabRef(slug=slug, label=label, url=load, available=available))
    return tabs


def _slugify(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_") or "tab"
