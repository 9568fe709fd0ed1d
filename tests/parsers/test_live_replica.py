"""The parsers over HTTP against a running replica with 200-status error faults.

What a spider sees: list pages walked through the paging template, each case's detail reached
through its one-shot ``show_detil`` redirect in its own warmed cookie session, and every tab via
its ``.load()`` URL. Database errors, CodeIgniter errors and injected PHP notices (all served
with status 200) must be recognised by ``page_error`` and retried; every case harvested this way
must equal the replica's ground truth exactly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests

from harvest.base.identity import normalise_case_number
from harvest.sipp import (
    ListRow,
    case_part_data,
    page_error,
    parse_detail_page,
    parse_list_page,
    parse_tab,
)
from reference.sipp_site.testing import running_replica

CASES = 24
FAULTS = [
    *("--fault-db-error", "0.06", "--fault-ci-error", "0.06", "--fault-php-error", "0.06"),
    *("--fault-seed", "7"),
]
ATTEMPTS = 12


class Fetcher:
    def __init__(self) -> None:
        self.reasons: dict[str, int] = {}

    def get(
        self, session: requests.Session, url: str, expect: Any, **kw: Any
    ) -> requests.Response:
        for _ in range(ATTEMPTS):
            resp = session.get(url, timeout=10)
            assert resp.status_code == 200, (url, resp.status_code)
            reason = page_error(resp.text, expect=expect, **kw)
            if reason is None:
                return resp
            self.reasons[reason] = self.reasons.get(reason, 0) + 1
        raise AssertionError(f"{url}: still an error page after {ATTEMPTS} attempts")


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["pn", "pa"])
def test_harvest_over_http_equals_truth(variant, tmp_path: Path):
    with running_replica(cases=CASES, variant=variant, extra_args=FAULTS) as rep:
        truth = {
            doc["source_id"]: doc
            for doc in map(
                json.loads, rep.write_truth(tmp_path / "t.jsonl").read_text().split("\n")[:-1]
            )
        }
        fetch = Fetcher()
        lists = requests.Session()
        page = parse_list_page(fetch.get(lists, rep.url + "list_perkara", "list").text, rep.url)
        rows: list[ListRow] = list(page.rows)
        number = 1
        assert page.page_url_template is not None
        while number * 20 < (page.total_cases or 0):
            number += 1
            url = page.page_url_template.format(page=number)
            page = parse_list_page(fetch.get(lists, url, "list").text, url)
            rows += page.rows
        assert len(rows) == CASES == len(truth)
        for row in rows:
            doc = truth[normalise_case_number(row.nomor_perkara)]
            case_session = requests.Session()
            fetch.get(case_session, rep.url, "list")  # warm the session with a full page
            resp = fetch.get(case_session, row.detail_url, "detail", case_number=row.nomor_perkara)
            detail = parse_detail_page(resp.text, resp.url)
            assert case_part_data(doc["case"]["court"], row, detail) == doc["case"]
            tabs = {}
            for tab in detail.tabs:
                if not tab.available:
                    continue
                frag = fetch.get(
                    case_session, tab.url, "tab", party_labels_missing=detail.party_labels_missing
                )
                tabs[tab.slug] = parse_tab(tab.slug, frag.text)
            assert tabs == doc["tabs"], row.nomor_perkara
    # the faults really happened and were all recognised for what they are
    assert set(fetch.reasons) == {"database error", "application error", "php error"}
