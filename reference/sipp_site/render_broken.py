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
    return case


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
