"""Lose nothing: every visible text of a page ends up in the data parsed from it.

For each page, its visible texts minus the texts found in its parsed data (dates, amounts and
day counts in their normalised forms) must be only known boilerplate: the labels, headings,
column names, no-data messages and page chrome of the allow-list in
:mod:`tests.support.text_coverage` (the one place it lives). Run over every golden fixture
(tests/fixtures/golden) and over every page of a 500-case crawl of each replica variant.

An input that drops text today, because the parser fix it needs is in another branch, is marked
``xfail(strict=True)`` below with what it drops; the mark comes off with the fix.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from reference.sipp_site import court as replica_court
from reference.sipp_site.testing import running_replica
from tests.support.pages import FIXTURES
from tests.support.replica_pages import Page, crawl_pages, parsed_object
from tests.support.text_coverage import dropped_texts, visible_texts

GOLDEN = FIXTURES / "golden"
GOLDEN_NAMES = sorted(p.name for p in GOLDEN.iterdir() if (p / "fixture.json").is_file())
#: Replica variants (``--variant``): every court type the replica renders.
VARIANTS: tuple[str, ...] = tuple(getattr(replica_court, "VARIANTS", ("pn", "pa")))
CASES = 500

#: Golden fixture -> why it drops text today (strict: the mark must come off when fixed).
GOLDEN_XFAIL: dict[str, str] = {}
#: Replica variant -> why its crawl drops text today.
REPLICA_XFAIL: dict[str, str] = {}


def _params(names: list[str] | tuple[str, ...], xfail: dict[str, str]) -> list[Any]:
    return [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=xfail[n])) if n in xfail else n
        for n in names
    ]


# ---------------------------------------------------------------------- the check itself

PUTUSAN = """<html><head><title>Putusan</title><script>var x = "Skrip";</script>
<style>.a{}</style></head><body>
<table id="infoPerkara">
 <tr><td id="first-child">Tanggal Putusan</td><td>Rabu, 29 Mei 2024</td></tr>
 <tr><td id="first-child">Nilai Ganti Kerugian (Rp.)</td><td>Rp. 1.250.000,00</td></tr>
 <tr><td id="first-child">Amar Putusan</td><td><p>MENGADILI:</p><ol><li>Menyatakan
   terdakwa <b>AHMAD SANTOSO</b> bersalah;</li></ol></td></tr>
 <tr><td id="first-child">Menerima Putusan</td><td>BUDI HARTONO : Rabu, 05 Jun 2024</td></tr>
</table><!-- komentar --></body></html>"""


def test_visible_texts_leave_out_head_script_style_comments_and_run_through_inline_tags() -> None:
    assert visible_texts(PUTUSAN) == [
        "Tanggal Putusan",
        "Rabu, 29 Mei 2024",
        "Nilai Ganti Kerugian (Rp.)",
        "Rp. 1.250.000,00",
        "Amar Putusan",
        "MENGADILI:",
        "Menyatakan terdakwa AHMAD SANTOSO bersalah;",
        "Menerima Putusan",
        "BUDI HARTONO : Rabu, 05 Jun 2024",
    ]


def test_a_value_the_item_lacks_is_reported_and_found_forms_are_not() -> None:
    data = {
        "tanggal_putusan": "2024-05-29",
        "nilai_ganti_kerugian": 1250000,
        "amar_putusan": "MENGADILI:\nMenyatakan terdakwa AHMAD SANTOSO bersalah;",
    }
    # the date and the amount are found in ISO / integer form, the long text's pieces inside
    # it; the labels are boilerplate; the row the parser dropped is reported
    assert dropped_texts("tab:putusan", PUTUSAN, data) == ["BUDI HARTONO : Rabu, 05 Jun 2024"]
    kept = {**data, "menerima_putusan": [{"nama": "BUDI HARTONO", "tanggal": "2024-06-05"}]}
    # a node made of found parts: the name and the date, around punctuation
    assert dropped_texts("tab:putusan", PUTUSAN, kept) == []
    # ... but not when the date stored is another one
    other = {**data, "menerima_putusan": [{"nama": "BUDI HARTONO", "tanggal": "2024-06-06"}]}
    assert dropped_texts("tab:putusan", PUTUSAN, other) == ["BUDI HARTONO : Rabu, 05 Jun 2024"]


def test_labels_are_boilerplate_only_on_their_own_page_kind() -> None:
    html = "<table><tr><td>Menerima Putusan</td><td>BUDI</td></tr></table>"
    assert dropped_texts("tab:putusan", html, {"x": "BUDI"}) == []
    assert dropped_texts("tab:saksi", html, {"x": "BUDI"}) == ["Menerima Putusan"]
    # a short text must equal a data string, or start or end one (a line the parser joined
    # to the next): "BUDI" inside a longer name is not enough
    assert dropped_texts("tab:putusan", html, {"x": "ANDI BUDI SANTOSO"}) == ["BUDI"]
    assert dropped_texts("tab:putusan", html, {"x": "BUDI SANTOSO"}) == []
    two_lines = "<table><tr><td>PT. ANUGERAH<br>(Separatis)</td></tr></table>"
    assert dropped_texts("tab:pkpu_sementara", two_lines, ["PT. ANUGERAH (Separatis)"]) == []


# ------------------------------------------------------------------------ golden fixtures


def _report(pages: list[tuple[Page | str, list[str]]]) -> str:
    """Dropped texts per page kind and text, with how many pages and an example."""
    by_text: dict[tuple[str, str], list[str]] = defaultdict(list)
    for page, dropped in pages:
        where = page if isinstance(page, str) else f"{page.url} (case {page.case})"
        kind = "" if isinstance(page, str) else page.kind
        for text in dropped:
            by_text[(kind, text)].append(where)
    lines = [f"{len(by_text)} texts dropped on {len(pages)} pages:"]
    for (kind, text), where in sorted(by_text.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"  {kind:20} {text[:120]!r} on {len(where)} pages, e.g. {where[0]}")
    return "\n".join(lines)


@pytest.mark.parametrize("name", _params(GOLDEN_NAMES, GOLDEN_XFAIL))
def test_golden_page_text_is_all_in_its_item(name: str) -> None:
    folder = GOLDEN / name
    meta = json.loads((folder / "fixture.json").read_text(encoding="utf-8"))
    html = (folder / "page.html").read_text(encoding="utf-8")
    data = parsed_object(meta["page"], html, meta["url"])
    dropped = dropped_texts(meta["page"], html, data)
    assert not dropped, _report([(f"{name} ({meta['page']})", dropped)])


# -------------------------------------------------------------------- the replica's crawl


def _check(page: Page) -> tuple[Page, list[str]]:
    return page, dropped_texts(page.kind, page.html, page.data)


@pytest.mark.slow
@pytest.mark.parametrize("variant", _params(VARIANTS, REPLICA_XFAIL))
def test_replica_crawl_text_is_all_in_its_items(variant: str, tmp_path: Path) -> None:
    with running_replica(cases=CASES, variant=variant, seed=1) as rep:
        results = crawl_pages(rep.url, _check)
    kinds = {page.kind for page, _ in results}
    assert {"list", "detail", "tab:riwayat_perkara"} <= kinds
    assert sum(page.kind == "detail" for page, _ in results) == CASES
    failing = [(page, dropped) for page, dropped in results if dropped]
    assert not failing, _report(failing)


def test_glued_cells_of_a_pasted_table_are_caught() -> None:
    """A pasted table read as one glued text (``1HGU 12/Kerinci4,2 Ha``) loses its cell
    boundaries: the check reports the cells, found only inside longer words."""
    folder = GOLDEN / "detail-pn-petitum-pasted"
    html = (folder / "page.html").read_text(encoding="utf-8")
    data = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    assert dropped_texts("detail", html, data) == []
    petitum = data["data_umum"]["petitum"]
    data["data_umum"]["petitum"] = petitum.replace(" | ", "")
    assert "1HGU 12/Kerinci4,2 Ha" in data["data_umum"]["petitum"]
    dropped = dropped_texts("detail", html, data)
    assert "HGU 12/Kerinci" in dropped
    assert "SHM 301/Sungai Penuh" in dropped
