"""The archive serves the crawl (issue 24): with the site gone and the item store lost, the
next crawl rebuilds the parts from the page archive first, instead of sending every row back to
pending and failing them all against a dead court."""

from __future__ import annotations

from pathlib import Path

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl, exported, mismatches, state_query, truth_by_key

pytestmark = pytest.mark.slow

COURT = "pn-replika"


def test_a_lost_item_store_is_rebuilt_from_the_archive_while_the_site_is_gone(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=12, seed=8, court_id=COURT) as replica:
        url = replica.url
        truth = truth_by_key(replica.truth_path(tmp_path))
        first = crawl(url, COURT, ws)
    assert first.returncode == 0, first.stderr[-3000:]
    fetched = state_query(ws, "SELECT count(*) FROM url_log")[0][0]
    for path in ws.glob("items.sqlite*"):
        path.unlink()
    # the replica is stopped: its port refuses every connection
    again = crawl(url, COURT, ws)
    assert again.returncode == 0, again.stderr[-3000:]
    parts = sum(1 + len(doc["tabs"]) for doc in truth.values())  # each detail and tab page
    rebuilt = f"rebuilt {parts} parts of pn-replika from the page archive ({parts} pages read"
    assert rebuilt in again.stderr, again.stderr[-3000:]
    assert "sent back to pending" not in again.stderr
    assert state_query(ws, "SELECT count(*) FROM url_log")[0][0] == fetched  # nothing fetched
    assert state_query(ws, "SELECT status, count(*) FROM requests GROUP BY status") == [
        ("ok", 1 + parts)
    ]
    assert mismatches(exported(ws), truth) == {}
