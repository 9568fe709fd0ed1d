"""Refresh runs for tests: a due refresh killed with SIGKILL at chosen moments (issue 14), and
the scheduler's side of a refresh without a reactor (a spider with a policy, its list page, every
pending row fetched).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scrapy import Request
from scrapy.http import HtmlResponse

from extensions.scheduler import HarvestScheduler
from extensions.store import Generation, RequestStore
from harvest.base.meta import META_REFRESH_GENERATION
from tests.support.harvest_run import crawl_command, start, state_query
from tests.support.scheduler import UnitSpider, req


def state_rows(state: Path | str, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Rows of ``sql`` (``?`` placeholders) from the request state: a workspace's
    ``state.sqlite`` (``state`` a path) or a PostgreSQL database (``state`` its URL)."""
    if isinstance(state, Path):
        return state_query(state, sql, params)
    import psycopg

    with psycopg.connect(state) as conn:
        return list(conn.execute(sql.replace("?", "%s"), tuple(params)).fetchall())


def list_fetches(state: Path | str, run_id: int) -> int:
    """List-page requests sent (answered) in one run, from url_log."""
    rows = state_rows(
        state,
        "SELECT count(*) FROM url_log AS u JOIN requests AS r ON r.id = u.request_id "
        "WHERE u.run_id = ? AND r.kind = 'list'",
        (run_id,),
    )
    return int(rows[0][0])


def last_run(state: Path | str) -> int:
    return int(state_rows(state, "SELECT max(id) FROM runs")[0][0])


def keys_of_generation(state: Path | str, kind: str, generation: int) -> set[str]:
    return {
        str(r[0])
        for r in state_rows(
            state,
            "SELECT key FROM requests WHERE kind = ? AND generation = ?",
            (kind, generation),
        )
    }


def ok_cases_of_generation(workspace: Path, generation: int) -> int:
    """Case requests of ``generation`` that ended ``ok`` (0 while the state is not readable)."""
    try:
        return int(
            state_query(
                workspace,
                "SELECT count(*) FROM requests WHERE kind = 'case' AND generation = ? "
                "AND status = 'ok'",
                (generation,),
            )[0][0]
        )
    except sqlite3.Error:  # the state is being written, or not there yet: ask again
        return 0


def kill_a_due_refresh(
    url: str,
    court: str,
    workspace: Path,
    *,
    thresholds: Sequence[int],
    settings: dict[str, str],
    logs: Path,
) -> dict[int, str]:
    """Start ``-a refresh=due`` (generation 1), then plain crawls, each killed with SIGKILL once
    generation 1 has ``thresholds[i]`` ok cases; after each kill the generation is unfinished.

    Returns ``{request id: succeeded_at}`` of every row ``ok`` in generation 1 before the
    last kill (a resumed crawl must not fetch them again: their time stays).
    """
    ok_before: dict[int, str] = {}
    for kill, threshold in enumerate(thresholds):
        # the refresh is asked for once; the runs after a kill are plain crawls
        args = {"refresh": "due"} if kill == 0 else {}
        cmd = crawl_command(url, court, workspace, spider_args=args, settings=settings)
        proc = start(cmd, logs / f"killed-{kill}.log")
        deadline = time.monotonic() + 120
        while (
            time.monotonic() < deadline
            and proc.poll() is None
            and ok_cases_of_generation(workspace, 1) < threshold
        ):
            time.sleep(0.05)
        assert proc.poll() is None, f"run {kill} ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert state_query(
            workspace, "SELECT generation FROM generations WHERE finished_at IS NULL"
        ) == [(1,)]
        ok_before.update(
            (int(rid), str(at))
            for rid, at in state_query(
                workspace,
                "SELECT id, succeeded_at FROM requests WHERE generation = 1 AND status = 'ok'",
            )
        )
    return ok_before


class RefreshSpider(UnitSpider):
    """What the scheduler reads of the sipp spider: the policy, the day, the hook."""

    def __init__(self, policy: str, today: str) -> None:
        super().__init__()
        self.refresh_policy = policy
        self.refresh_today = today
        self.opened: list[Generation] = []

    def on_generation(self, generation: Generation, store: RequestStore) -> None:
        self.opened.append(generation)


def fetch_all(s: HarvestScheduler) -> int:
    """Dispatch every pending row and end each ok; how many."""
    n = 0
    while (request := s.next_request()) is not None:
        rid = s.output_started(HtmlResponse(request.url, body=b"<html></html>", request=request))
        assert rid is not None
        s.output_done(rid)
        n += 1
    return n


def list_page(generation: int | None) -> Request:
    meta: dict[str, Any] = {}
    if generation is not None:
        meta[META_REFRESH_GENERATION] = generation
    return req("list|c1|all|1", meta=meta)
