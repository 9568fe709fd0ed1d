"""Pages the real SIPP app breaks, rendered on request (``--broken-pages``; off by default).

Off, nothing here runs and the replica serves byte for byte what it served before. On, some
cases get the pages the stock templates break deterministically (docs/fidelity.md, "Pages the
app breaks"), and their ground truth is what those pages show:

- **cut** (military courts, every flow but 124, a third of the cases): the case has a Tanggal
  Kejadian, so ``perkara_tab/data_umum.php:130`` reaches ``$$this->tanggalhelper->
  convertDayDate()``, a PHP fatal error: the output stops right after the value cell's
  ``<td>`` in the Informasi grid. Header, tab anchors and the Data Umum rows before it are
  shown; the rest of Data Umum, the page script (tab ``.load`` URLs) and the footer never come.
  With ``display_errors`` off the status is 500 (even case indices), else 200 with no message
  (CodeIgniter's production ``error_reporting(0)``). The truth's ``data_umum`` keeps the rows
  before the cut and ``informasi: {}``; the tabs work and are in the truth as always.

- **pasted petitum** (civil gugatan, alur 1, with a Petitum, a quarter of the cases): the clerk
  pasted a table of land titles from a word processor into the Petitum (printed raw at
  data_umum.php:486), and the paste carried a stray ``</td></tr></table>``: the view's table
  ends inside the Petitum, the closing paragraph and the Pihak Dipublikasikan / Prodeo rows come
  after its end. The truth's petitum has the table one line per row, cells ``" | "`` apart,
  then the paragraph, in page order; every other row as always.

- **verzet joined** (every case with a verzet; a database join, not an error: the same bytes
  on every request): ``models/perkara/verzet_m.php:6`` selects ``*`` from ``verzetweb LEFT
  JOIN dataumumweb LEFT JOIN mediasiweb``, so ``verzet.php`` prints the one verzet record once
  per mediation row of the case (every stage; the model's first-instance ``mediasi`` rows,
  then the verzet's own mediation), and ``tglPendaftaran`` is ``dataumumweb``'s (the later
  table's column of the same name wins): Tanggal Pendaftaran Verzet shows the main case's
  registration day. The truth is one record: the main case's day, the first join row's
  mediation, the further rows in ``mediasi_lain`` (docs/item-format.md ``verzet``).

The choice of cases is a hash of the seed and the case index, so it never disturbs the model's
random streams (the same court is the same court, switch on or off, apart from these pages).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .model import Case

#: data_umum.php:119-131: the Informasi grid's first value cell, where line 130's fatal stops
#: the output (the ``<td>`` is literal HTML before the ``<?php echo``)
_CUT_AT = (
    "<td style='text-align:left;color:white;'>Tanggal Kejadian</td>"
    "<td style='text-align:left;background:white;color:black;'>"
)
#: The Data Umum rows data_umum.php prints before the Informasi grid (alur != 114, 124)
_BEFORE_INFORMASI = (
    "tanggal_pendaftaran",
    "klasifikasi_perkara",
    "nomor_perkara",
    "tanggal_surat",
    "nomor_surat",
)
#: Share of the eligible cases that get a cut page
_CUT_SHARE = 1 / 3
#: Share of the alur 1 cases with a Petitum that get a pasted one
_PASTE_SHARE = 1 / 4
#: The land titles a pasted Petitum lists (number, title, area)
_TITLES = (
    ("HGU 12/Kerinci", "4,2 Ha"),
    ("SHM 301/Sungai Penuh", "0,8 Ha"),
    ("SHGB 77/Siulak", "1.250 m2"),
    ("SHM 1045/Hamparan Rawang", "2,1 Ha"),
)
_CLOSING = "Menghukum Tergugat untuk tunduk dan patuh pada putusan ini;"
#: The end of the Petitum's cell as render.data_umum prints it (long_text's closing div)
_PETITUM_END = "</div></td>\n\t\t\t</tr>\n"


#: The verzet record's mediation fields (from the joined mediasiweb row) and the mediasi tab
#: field each is in a mediasi record
_VERZET_MEDIASI = {
    "tanggal_penetapan_mediator": "tanggal_penetapan_mediator",
    "nomor_penetapan_mediator": "nomor_penetapan_mediator",
    "mediator": "mediator",
    "tanggal_mulai_mediasi": "tanggal_mulai",
    "tanggal_hasil_mediasi": "tanggal_hasil",
    "hasil_mediasi": "hasil",
}


def _draw(seed: int, index: int, what: str) -> float:
    digest = hashlib.sha256(f"broken:{what}:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def apply(case: Case, *, seed: int, jenis_pengadilan: int) -> Case:
    """Give ``case`` the broken pages it has on a court with ``--broken-pages`` (in place)."""
    if (
        jenis_pengadilan == 2
        and case.alur.id != 124
        and _draw(seed, case.index, "cut") < _CUT_SHARE
    ):
        du: dict[str, Any] = case.case_data["data_umum"]
        case.extra["cut"] = {
            "data_umum": du,  # what the view was given: rendered up to the cut
            "status": 500 if case.index % 2 == 0 else 200,
        }
        shown = {k: du[k] for k in _BEFORE_INFORMASI if k in du}
        shown["informasi"] = {}
        case.case_data = {**case.case_data, "data_umum": shown}
    du = case.case_data["data_umum"]
    if (
        jenis_pengadilan == 1
        and case.alur.id == 1
        and du.get("petitum")
        and _draw(seed, case.index, "paste") < _PASTE_SHARE
    ):
        k = int(_draw(seed, case.index, "titles") * 3) + 2
        titles = [_TITLES[(case.index + j) % len(_TITLES)] for j in range(k)]
        case.extra["pasted"] = titles
        lines = [f"{n} | {title} | {area}" for n, (title, area) in enumerate(titles, 1)]
        shown = {**du, "petitum": "\n".join([du["petitum"], *lines, _CLOSING])}
        case.case_data = {**case.case_data, "data_umum": shown}
    if case.tabs.get("verzet"):
        _join_verzet(case)
    return case


def _join_verzet(case: Case) -> None:
    """The verzet tab as verzet_m.php's join prints it (``extra["verzet_rows"]``, rendered)
    and the one record a reader stores (the truth)."""
    (rec,) = case.tabs["verzet"]
    own = {k: rec[k] for k in _VERZET_MEDIASI}
    first_instance = [
        {k: m[src] for k, src in _VERZET_MEDIASI.items()} for m in case.tabs.get("mediasi", [])
    ]
    joined = [*first_instance, own]
    base = {**rec, "tanggal_pendaftaran": case.case_data["data_umum"]["tanggal_pendaftaran"]}
    rows = [{**base, **m} for m in joined]
    case.extra["verzet_rows"] = rows
    truth = dict(rows[0])
    if len(rows) > 1:
        truth["mediasi_lain"] = joined[1:]
    case.tabs = {**case.tabs, "verzet": [truth]}


def verzet_rows(case: Case) -> list[Any] | None:
    """The verzet tab's join rows when the case has them (``--broken-pages``), else ``None``."""
    rows: list[Any] | None = case.extra.get("verzet_rows")
    return rows


def pasted_petitum(case: Case) -> bool:
    """The case's Petitum carries a pasted table (and the truth has it already)."""
    return "pasted" in case.extra


def original_data_umum(case: Case) -> dict[str, Any]:
    """Data Umum with the Petitum the model wrote (the pasted part is added by paste_petitum)."""
    du: dict[str, Any] = case.case_data["data_umum"]
    lines = du["petitum"].split("\n")
    return {**du, "petitum": "\n".join(lines[: -len(case.extra["pasted"]) - 1])}


def paste_petitum(case: Case, html: str) -> str:
    """The detail page with the pasted table, its stray end tags and the closing paragraph
    at the end of the Petitum (markup of a word processor's paste)."""
    rows = "".join(
        '<tr><td width="30" valign="top"><p class="MsoNormal">'
        f"{n}</p></td>"
        f'<td width="200" valign="top"><p class="MsoNormal">{title}</p></td>'
        f'<td width="80" valign="top"><p class="MsoNormal">{area}</p></td></tr>'
        for n, (title, area) in enumerate(case.extra["pasted"], 1)
    )
    pasted = (
        '<table class="MsoTableGrid" border="1" cellspacing="0" cellpadding="0">'
        + rows
        + "</table></td></tr></table>"
        + f'<p class="MsoNormal">{_CLOSING}</p>'
    )
    at = html.index(_PETITUM_END, html.index('<font color="white">Petitum</font>'))
    return html[:at] + pasted + html[at:]


def cut_status(case: Case) -> int | None:
    """The status of a case's cut detail page, ``None`` when its page is whole."""
    cut = case.extra.get("cut")
    return None if cut is None else int(cut["status"])


def full_data_umum(case: Case) -> dict[str, Any]:
    """The Data Umum the view was given (before the cut)."""
    du: dict[str, Any] = case.extra["cut"]["data_umum"]
    return du


def cut_page(html: str) -> str:
    """A whole rendered detail page cut where data_umum.php:130's fatal error stops it."""
    at = html.index(_CUT_AT) + len(_CUT_AT)
    return html[:at]
