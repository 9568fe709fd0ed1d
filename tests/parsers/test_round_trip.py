"""Round trip over whole seeded replica courts: parse(render(case)) == truth(case).

Uses the replica's renderers directly (no server): every list page of the all-cases list and
of the traffic-ticket list, every case's detail page and every available tab fragment, for a
PN court of 600 cases (every PN case type), a PA court of 120 cases, a PTUN court and a
military court of 80 cases each, and the PN court under a sub-path (``/sipp/``).
"""

from __future__ import annotations

from typing import Literal

import pytest

from harvest.base.identity import normalise_case_number
from harvest.sipp import (
    ListRow,
    case_part_data,
    page_error,
    parse_detail_page,
    parse_list_page,
    parse_tab,
)
from harvest.sipp.pailit import MENU_SLUG, sub_page_links, sub_page_slug
from reference.sipp_site import render as R
from reference.sipp_site import render_pailit as RP
from reference.sipp_site.court import make_court
from reference.sipp_site.model import CourtData
from reference.sipp_site.tokens import TokenCodec

BASE = "http://127.0.0.1:8800/"
SIZES = {"pn": 600, "pa": 120, "ptun": 80, "militer": 80, "pn-sub": 120}
KINDS = {
    "pn": {
        "pidana",
        "anak",
        "tilang",
        "gugatan",
        "permohonan",
        "sederhana",
        "praperadilan",
        "pailit",
    },
    "pn-sub": {"pidana", "anak", "tilang", "gugatan", "permohonan", "sederhana", "pailit"},
    "pa": {"gugatan", "permohonan", "jinayat"},
    "ptun": {"tun"},
    "militer": {"pidana", "pendapat"},
}


def _court(name: str):
    variant: Literal["pn", "pa", "ptun", "militer"] = (
        "pn" if name == "pn-sub" else name  # type: ignore[assignment]
    )
    court = make_court(variant)
    data = CourtData(court, seed=1, cases=SIZES[name])
    codec = TokenCodec(1)
    base = BASE + "sipp/" if name == "pn-sub" else BASE
    return court, data, codec, R.Shell(court=court, base=base, encrypt=codec.encrypt)


def _list_pages(data, codec, shell, alur_id=None):
    """Render every page of a list (plus the page past the end) and parse it."""
    indices = data.indices_newest_first(alur_id)
    pages = []
    n_pages = -(-len(indices) // R.ROWS_PER_PAGE)
    for page in range(1, n_pages + 2):
        chunk = indices[(page - 1) * R.ROWS_PER_PAGE : page * R.ROWS_PER_PAGE]
        rows = [
            (R.row_cells(data.case(i), alur_id == 114), codec.encrypt(str(data.id_perkara(i))))
            for i in chunk
        ]
        html = R.list_page(
            shell,
            R.ListPage(
                title="DATA SELURUH PERKARA",
                enc=codec.encrypt("var_id=;var_tahapan=;"),
                page=page,
                total=len(indices),
                rows=rows,
                offset=(page - 1) * R.ROWS_PER_PAGE,
                tilang=alur_id == 114,
            ),
        )
        assert page_error(html, expect="list") is None
        pages.append(parse_list_page(html, f"{shell.base}list_perkara/page/{page}/x/key/col/2"))
    return pages


@pytest.fixture(scope="module", params=["pn", "pa", "ptun", "militer", "pn-sub"])
def court(request):
    return (request.param, *_court(request.param))


def test_list_pages_round_trip(court):
    _name, _court_obj, data, codec, shell = court
    pages = _list_pages(data, codec, shell)
    assert pages[-1].no_data
    assert pages[-1].rows == []
    assert all(not p.no_data for p in pages[:-1])
    assert all(p.total_cases == len(data) for p in pages)
    rows = [r for p in pages for r in p.rows]
    assert len(rows) == len(data)
    for row, index in zip(rows, data.indices_newest_first(), strict=True):
        case = data.case(index)
        assert row.data == {**case.case_data["list_row"], "lama_proses": case.extra["lama_proses"]}
        assert row.nomor_perkara == case.nomor_perkara_raw
        assert row.registered == case.case_data["list_row"]["tanggal_register"]


def test_every_case_round_trips(court):
    name, court_obj, data, codec, shell = court
    base = shell.base
    rows: dict[str, ListRow] = {
        r.nomor_perkara: r for p in _list_pages(data, codec, shell) for r in p.rows
    }
    kinds: set[str] = set()
    slugs: set[str] = set()
    for case in data.iter_cases():
        kinds.add(case.alur.kind)
        token = codec.encrypt(str(case.id_perkara))
        penahanan = [
            (codec.encrypt(f"{case.id_perkara}:{k}"), codec.encrypt(name))
            for k, name in enumerate(case.case_data["header"]["pihak_2"]["nama"])
        ]
        html = R.detail_page(shell, case, token, penahanan)
        assert page_error(html, expect="detail", case_number=case.nomor_perkara) is None
        detail = parse_detail_page(html, base + "detil_perkara")
        assert normalise_case_number(detail.nomor_perkara) == case.nomor_perkara
        part = case_part_data(court_obj.court_id, rows[case.nomor_perkara_raw], detail)
        assert part == case.case_data, case.nomor_perkara
        for tab in detail.tabs:
            if not tab.available:
                assert tab.slug == "we_kppu"
                continue
            assert tab.url.startswith(f"{base}show_{tab.slug}/{token}")
            if tab.slug == MENU_SLUG:
                fragment = RP.menu_html(base, token)
                _sub_pages_round_trip(case, fragment, base + MENU_SLUG)
            else:
                fragment = R.fragment(case, tab.slug, True)
            assert (
                page_error(
                    fragment, expect="tab", party_labels_missing=detail.party_labels_missing
                )
                is None
            )
            assert parse_tab(tab.slug, fragment) == case.tabs[tab.slug], (
                case.nomor_perkara,
                tab.slug,
            )
            slugs.add(tab.slug)
            if court_obj.variant == "pn" and _has_party_labels(case.tabs[tab.slug], tab.slug):
                cold = R.fragment(case, tab.slug, False)
                assert page_error(cold, expect="tab") == (
                    "session not warmed: party labels missing"
                )
    assert kinds == KINDS[name]
    if name == "pn":
        assert slugs == {
            "penetapan", "jadwal_sidang", "saksi", "mediasi", "penuntutan", "putusan",
            "banding", "kasasi", "pk", "biaya_perkara", "barang_bukti", "riwayat_perkara",
            "diversi", "verzet", "rekonvensi", "intervensi", "dismissal",
            "penetapan_gugur", "putusan_sela", "grasi", MENU_SLUG,
        }  # fmt: skip


def _sub_pages_round_trip(case, menu: str, menu_url: str) -> None:
    """Each sub page the menu links, as the replica serves it, parses to the truth's part."""
    subs = {p.route: p for p in RP.sub_pages(case.tabs.get("putusan"))}
    links = sub_page_links(menu, menu_url)
    assert [link.route for link in links] == list(subs)
    for link in links:
        html = RP.sub_page_html(subs[link.route])
        assert page_error(html, expect="tab") is None, link.route
        slug = sub_page_slug(link.route)
        assert parse_tab(slug, html) == case.tabs[slug], (case.nomor_perkara, slug)


def _has_party_labels(data, slug: str) -> bool:
    # only putusan_akhir.php labels parties from the session (getStatusPihak); the appeal
    # views print the database's statusPihak (bandingdetilweb...), warm or not
    return slug == "putusan" and bool(data.get("pemberitahuan_putusan"))


def test_tilang_list_pages_parse():
    _court_obj, data, codec, shell = _court("pn")
    pages = _list_pages(data, codec, shell, alur_id=114)
    rows = [r for p in pages for r in p.rows]
    assert len(rows) == data.count(114)
    for row, index in zip(rows, data.indices_newest_first(114), strict=True):
        case = data.case(index)
        extra = case.extra["tilang"]
        assert row.nomor_perkara == case.nomor_perkara_raw
        # perkara_list.php:58-59 prints the serial and the plate without spaces
        assert row.data["nomor_seri_tilang"] == extra["seri"].replace(" ", "")
        assert row.data["nomor_pembayaran"] == extra["bayar"]
        assert row.data["tanda_nomor_kendaraan"] == extra["plate"].replace(" ", "")
        assert row.data["pelanggar"] == extra["offender"]
        # the tilang list is not the item's list_row (docs/item-format.md)
        assert case_part_data("pn-replika", row, parse_detail_page(
            R.detail_page(shell, case, "dG9r"), BASE))["list_row"] is None  # fmt: skip
