"""The bankruptcy follow-up sub pages (issue 23): a crawl of a replica court with declared
bankruptcies fetches the menu tab (``setelah_putusan_pernyataan_pailit``) and, as requests of
the case, each of the 15 ``sub_<x>`` pages it links (``sub_<x>/<enc>/...`` -> 302 ->
``/sub_<x>``), one request row each; the export equals the truth, sub pages included."""

from __future__ import annotations

from pathlib import Path

import pytest

from harvest.sipp.pailit import MENU_SLUG, SUB_SLUG_PREFIX
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl, exported, mismatches, state_query, truth_by_key

pytestmark = pytest.mark.slow

COURT = "pn-pailit"
CASES, SEED = 80, 24  # two declared bankruptcies


def test_a_crawl_fetches_every_sub_page_of_the_menu_and_equals_the_truth(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=CASES, seed=SEED, court_id=COURT) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        bankrupt = sorted(d["source_id"] for d in truth.values() if MENU_SLUG in d["tabs"])
        assert len(bankrupt) == 2
        for key in truth:
            if truth[key]["source_id"] in bankrupt:
                subs = [s for s in truth[key]["tabs"] if s.startswith(SUB_SLUG_PREFIX)]
                assert len(subs) == 15
        done = crawl(replica.url, COURT, ws)
        assert done.returncode == 0, done.stderr[-3000:]
    assert mismatches(exported(ws), truth) == {}
    rows = state_query(
        ws,
        "SELECT key, status FROM requests WHERE kind = 'tab' AND key LIKE ?",
        (f"%|{SUB_SLUG_PREFIX}%",),
    )
    assert len(rows) == 2 * 15
    assert {str(s) for _k, s in rows} == {"ok"}
    assert {str(k).split("|")[2] for k, _s in rows} == set(bankrupt)
    # each sub page went through its redirect: sub_<x>/<enc>/... (302), then /sub_<x> (200)
    urls = state_query(
        ws,
        "SELECT u.url, u.status FROM url_log AS u JOIN requests AS r ON r.id = u.request_id "
        "WHERE r.key LIKE ? ORDER BY u.id",
        (f"%|{SUB_SLUG_PREFIX}sub_rapat",),
    )
    paths = [(str(u).split("/", 3)[3].split("/"), int(st)) for u, st in urls]
    assert [(p[0], len(p), p[2:], st) for p, st in paths] == [
        ("sub_rapat", 4, ["Tm5RZ2ZRPT0", "Tm5RZ2ZRPT0"], 302),
        ("sub_rapat", 1, [], 200),
    ] * 2
