"""``scrapy status`` stays true after ``scrapy reparse`` (issue 24), on both backends.

A crawl with failed requests left, then ``scrapy reparse``: the reparse rewrites the parts from
the page archive and touches no request, so ``scrapy status`` (text and ``--json``) says exactly
what it said before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl, run, scrapy_command
from tests.support.paths import SCRAPY
from tests.support.postgres import PostgresServer, pg_server  # noqa: F401  (fixture)

pytestmark = pytest.mark.slow

COURT = "pn-replika"


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    """The settings of the backend: none (SQLite in the workspace), or a new PostgreSQL
    database."""
    if request.param == "sqlite":
        yield {}
        return
    server: PostgresServer = request.getfixturevalue("pg_server")
    name = server.create_database()
    try:
        yield {"HARVEST_DATABASE_URL": server.url(name)}
    finally:
        server.drop_database(name)


def _status(ws: Path, settings: dict[str, str], *args: str) -> str:
    extra = [a for name, value in settings.items() for a in ("-s", f"{name}={value}")]
    result = scrapy_command("status", ws, *args, *extra)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_status_is_the_same_before_and_after_a_reparse(
    tmp_path: Path, backend: dict[str, str]
) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=30, seed=71, court_id=COURT, faults=0.1, fault_seed=5) as replica:
        first = crawl(replica.url, COURT, ws, settings={"RETRY_TIMES": "0", **backend})
    assert first.returncode == 3, first.stderr[-3000:]  # failed requests left
    before_json = json.loads(_status(ws, backend, "--json"))
    before_text = _status(ws, backend)
    extra = [a for name, value in backend.items() for a in ("-s", f"{name}={value}")]
    reparsed = run([*SCRAPY, "reparse", "-s", f"HARVEST_WORKSPACE={ws}", *extra], timeout=300)
    # exit 1: the archived error pages of the failed requests do not reparse (and say so)
    assert reparsed.returncode == 1, reparsed.stderr[-3000:]
    assert re.match(
        r"reparsed \d+ pages in .*: 0 created, \d+ unchanged, 0 updated, [1-9]\d* failed$",
        reparsed.stdout,
    ), reparsed.stdout
    assert "the archived response is HTTP 50" in reparsed.stderr
    after_json = json.loads(_status(ws, backend, "--json"))
    after_text = _status(ws, backend)
    (court,) = before_json["courts"]
    assert court["court"] == COURT
    assert court["error"] > 0
    assert court["ok"] > 0
    assert before_json["parts"] == {"missing": 0, "items": "present", "sample": []}
    assert after_json == before_json
    assert after_text == before_text
