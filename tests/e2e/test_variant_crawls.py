"""Crawls of the other installs and court types compared with their ground truth: a PN court
served under a sub-path (``/sipp/``, where every link and ``.load`` URL carries the prefix), a
military court (Informasi grid, alur 124) and an administrative court (PTUN, alur 9)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl, exported, mismatches, state_query, truth_by_key

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("variant", "court_id", "extra"),
    [
        ("pn", "pn-sub", ["--base-path", "/sipp/"]),
        ("militer", "militer-replika", []),
        ("ptun", "ptun-replika", []),
    ],
)
def test_variant_crawl_equals_the_ground_truth(
    tmp_path: Path, variant: str, court_id: str, extra: list[str]
) -> None:
    with running_replica(
        cases=60, seed=21, variant=variant, court_id=court_id, extra_args=extra
    ) as replica:
        if extra:
            assert replica.url.endswith("/sipp/")
        truth = truth_by_key(replica.truth_path(tmp_path))
        result = crawl(replica.url, court_id, tmp_path / "ws")
    assert result.returncode == 0, result.stderr[-3000:]
    got = exported(tmp_path / "ws")
    assert mismatches(got, truth) == {}
    assert len(got) == 60
    statuses = dict(
        state_query(tmp_path / "ws", "SELECT status, COUNT(*) FROM requests GROUP BY 1")
    )
    assert set(statuses) == {"ok"}, statuses
