"""Requests of a refresh against the minimum and against a full re-crawl (issue 14).

    .venv/bin/python bench/bench_refresh.py [--cases 2000] [--registered 100] [--days 0 7 30]

Harvests a replica court of ``--cases`` cases as of its day D (``HARVEST_REFRESH_TODAY`` pinned
to the replica's day), then, for each ``--days`` N, copies the harvested workspace and runs
``-a refresh=due`` as of D+N against the same court after ``--registered`` more registrations
(``--registered``: the replica has no ``--as-of`` yet, so known cases never change; only the
policy's day moves). Unthrottled (the replica is ours): requests are counted, not timed.

For each run, in logical requests (state rows of the refresh generation; an HTTP redirect hop
and session warm-ups are not counted, they are the same for every way of fetching a case):

* ``used``: list pages walked + detail and tab requests of the fetched cases;
* ``minimum``: the list pages up to the first page whose rows are all known and unchanged, plus
  the detail and tab requests of the same fetched cases (issue 14's definition; it assumes a
  due case can be fetched without its list page);
* ``full``: a full re-crawl: every list page plus every case's detail and tabs.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reference.sipp_site.court import TODAY
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl

COURT = "pn-replika"
PAGE = 20


def rows(ws: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(f"{(ws / 'state.sqlite').as_uri()}?mode=ro", uri=True)
    try:
        return list(con.execute(sql, params))
    finally:
        con.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--registered", type=int, default=100)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--days", type=int, nargs="+", default=[0, 7, 30])
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-refresh-"))
    base = tmp / "harvested"
    pinned = {"HARVEST_REFRESH_TODAY": TODAY.isoformat()}
    t0 = time.monotonic()
    with running_replica(cases=args.cases, seed=args.seed, court_id=COURT) as before:
        first = crawl(before.url, COURT, base, settings=pinned, timeout=3600)
    if first.returncode != 0:
        print(first.stderr[-3000:])
        return 1
    print(f"harvested {args.cases} cases as of {TODAY} in {time.monotonic() - t0:.0f}s")
    total = args.cases + args.registered
    extra = ["--registered", str(args.registered)]
    replica = running_replica(cases=args.cases, seed=args.seed, court_id=COURT, extra_args=extra)
    with replica as rep:
        print(
            f"{'day':>5} {'fetched':>8} {'new':>5} {'due':>5} {'pages':>6} {'min pages':>9} "
            f"{'used':>7} {'minimum':>8} {'used/min':>8} {'full':>7} {'used/full':>9}"
        )
        for days in args.days:
            ws = tmp / f"d{days}"
            shutil.copytree(base, ws)
            today = TODAY + dt.timedelta(days=days)
            result = crawl(
                rep.url,
                COURT,
                ws,
                spider_args={"refresh": "due"},
                settings={"HARVEST_REFRESH_TODAY": today.isoformat()},
                timeout=3600,
            )
            if result.returncode != 0:
                print(result.stderr[-3000:])
                return 1
            by_kind = dict(
                rows(
                    ws,
                    "SELECT kind, count(*) FROM requests WHERE generation = 1 GROUP BY kind",
                )
            )
            pages = int(str(by_kind.get("list", 0)))
            fetched = int(str(by_kind.get("case", 0)))
            case_work = fetched + int(str(by_kind.get("tab", 0)))
            # the first page whose rows are all known and unchanged: after the new cases'
            first_known = args.registered // PAGE + 1 + (1 if args.registered % PAGE else 0)
            min_pages = min(math.ceil(total / PAGE), first_known)
            used = pages + case_work
            minimum = min_pages + case_work
            all_rows = dict(rows(ws, "SELECT kind, count(*) FROM requests GROUP BY kind"))
            full = math.ceil(total / PAGE) + int(str(all_rows["case"])) + int(str(all_rows["tab"]))
            print(
                f"{'D+' + str(days):>5} {fetched:>8} {args.registered:>5} "
                f"{fetched - args.registered:>5} {pages:>6} {min_pages:>9} {used:>7} "
                f"{minimum:>8} {used / minimum:>8.3f} {full:>7} {used / full:>9.3f}"
            )
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
