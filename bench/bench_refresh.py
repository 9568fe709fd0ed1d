"""Refreshes against the replica's real days: requests and staleness (issue 14).

    .venv/bin/python bench/bench_refresh.py [--cases 2000] [--seed 1] [--days 7 30]
        [--max-days 30 7 3] [--min-days 1] [--no-all] [--every N] [--json FILE]

Harvests a replica court of ``--cases`` cases as of its day D (2024-06-19; the policy's day
``HARVEST_REFRESH_TODAY`` pinned to the replica's), then, for each ``--days`` N, serves the same
court as of D+N (``--as-of``: new cases registered, open cases moved on) and refreshes a copy of
the harvested workspace with ``-a refresh=due`` once per policy setting
(``HARVEST_REFRESH_MIN_DAYS`` ``--min-days``, ``HARVEST_REFRESH_MAX_DAYS`` each of
``--max-days``), and with ``-a refresh=all`` as of the first day. With ``--every N`` instead:
one copy per setting, refreshed every N days up to the last ``--days`` (a schedule; each
refresh a new generation of the same workspace). Unthrottled (the replica is ours): requests
are counted, not timed. Exits 1 when a re-fetched case differs from the truth or a new case
is missing.

Per run, in logical requests (state rows of the refresh generation; redirect hops and session
warm-ups, the same for every way of fetching a case, are not counted):

* ``used``: list pages walked + hearing calendar pages read (``calendar``: one a day since
  the last refresh, docs/refresh.md) + detail and tab requests of the fetched cases;
* ``minimum``: the list pages up to the first page on which every row is a known case with an
  unchanged list row (from the model: :class:`reference.sipp_site.model.CourtData`), plus the
  detail and tab requests of the same fetched cases (issue 14's definition; it assumes a due
  case can be fetched without walking to its list page);
* ``full``: a full re-crawl as of that day: every list page, every case's detail and tabs;
* ``changed``: cases whose ground-truth document differs between D and D+N
  (:func:`reference.sipp_site.testing.court_changes`); ``stale``: those of them whose export
  differs from D+N's truth after the refresh; ``wrong``: re-fetched cases whose export differs
  from the truth (must be 0); ``missed new``: new cases not in the export (must be 0).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import re
import shutil
import sqlite3
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reference.sipp_site.court import TODAY, make_court
from reference.sipp_site.model import CourtData
from reference.sipp_site.testing import DayChanges, court_changes, running_replica
from tests.support.harvest_run import crawl, exported, mismatches, truth_by_key

COURT = "pn-replika"
PAGE = 20
_STAT = re.compile(r"'harvest/refresh/(\w+)': (\d+)")


def warm_calendar(url: str, day: dt.date) -> None:
    """Read one calendar day from the replica before a refresh: its first calendar request
    reads the cases of the last 400 days (reference/sipp_site/calendar.py), seconds on a loaded
    machine, which would time the crawl's first calendar requests out (not the court's cost)."""
    with urllib.request.urlopen(f"{url}list_jadwal_sidang/search/1/{day:%d/%m/%Y}", timeout=900):
        pass


def rows(ws: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(f"{(ws / 'state.sqlite').as_uri()}?mode=ro", uri=True)
    try:
        return list(con.execute(sql, params))
    finally:
        con.close()


def minimum_pages(cases: int, seed: int, day: dt.date, changes: DayChanges) -> int:
    """List pages as of ``day`` up to the first one whose rows are all known (registered by
    D) with an unchanged list row; every page when there is none. The list is newest first:
    case index ``i`` of ``n`` is on row ``n - 1 - i``."""
    data = CourtData(make_court("pn", COURT), seed=seed, cases=cases, as_of=day)
    n = len(data)
    moved = set(changes.changed_list_rows)
    pages = math.ceil(n / PAGE)
    for page in range(pages):
        indices = range(n - 1 - page * PAGE, max(n - 1 - (page + 1) * PAGE, -1), -1)
        if all(i < changes.cases_before and data.case(i).nomor_perkara not in moved
               for i in indices):  # fmt: skip
            return page + 1
    return pages


@dataclass
class Row:
    policy: str
    day: int
    fetched: int
    stats: dict[str, int]
    pages: int
    calendar: int
    min_pages: int
    used: int
    minimum: int
    full: int
    changed: int
    stale: int
    wrong: int
    missed_new: int
    seconds: float


def measure(
    *,
    ws: Path,
    url: str,
    day: dt.date,
    policy: str,
    settings: dict[str, str],
    changes: DayChanges,
    truth: dict[str, dict[str, Any]],
    min_pages: int,
    label: str,
    generation: int = 1,
) -> Row:
    t0 = time.monotonic()
    result = crawl(
        url,
        COURT,
        ws,
        spider_args={"refresh": policy},
        settings={"HARVEST_REFRESH_TODAY": day.isoformat(), **settings},
        timeout=3600,
    )
    seconds = time.monotonic() - t0
    if result.returncode != 0:
        raise SystemExit(f"{label}: crawl failed\n{result.stderr[-3000:]}")
    stats = {name: int(value) for name, value in _STAT.findall(result.stderr)}
    by_kind = dict(
        rows(
            ws,
            "SELECT kind, count(*) FROM requests WHERE generation = ? GROUP BY 1",
            (generation,),
        )
    )
    # the hearing calendar's pages are list rows too (key list|<court>|jadwal_sidang <day>|n)
    calendar = int(
        rows(
            ws,
            "SELECT count(*) FROM requests WHERE kind = 'list' AND generation = ? AND key LIKE ?",
            (generation, f"list|{COURT}|jadwal_sidang %"),
        )[0][0]
    )
    pages = int(by_kind.get("list", 0)) - calendar
    fetched_keys = {
        f"sipp.{COURT}:{str(k).split('|', 2)[2]}"
        for (k,) in rows(
            ws, "SELECT key FROM requests WHERE kind = 'case' AND generation = ?", (generation,)
        )
    }
    case_work = len(fetched_keys) + int(by_kind.get("tab", 0))
    all_rows = dict(rows(ws, "SELECT kind, count(*) FROM requests GROUP BY kind"))
    full = math.ceil(len(truth) / PAGE) + int(all_rows["case"]) + int(all_rows["tab"])
    export = exported(ws)
    wrong = mismatches(export, truth)
    changed = {f"sipp.{COURT}:{n}" for n in changes.changed_documents}
    new = {f"sipp.{COURT}:{n}" for n in changes.new_cases}
    return Row(
        policy=label,
        day=(day - TODAY).days,
        fetched=len(fetched_keys),
        stats=stats,
        pages=pages,
        calendar=calendar,
        min_pages=min_pages,
        used=pages + calendar + case_work,
        minimum=min_pages + case_work,
        full=full,
        changed=len(changed),
        stale=len(set(wrong) & changed),
        wrong=len(set(wrong) & fetched_keys),
        missed_new=len(new - set(export)),
        seconds=seconds,
    )


def schedule(args: argparse.Namespace, base: Path, tmp: Path, port: int) -> list[Row]:
    """Refreshes every ``args.every`` days up to the last ``args.days``, one workspace per
    MAX_DAYS setting (a copy of the harvest), each refresh a new generation of it."""
    settings = {
        high: {
            "HARVEST_REFRESH_MIN_DAYS": str(args.min_days),
            "HARVEST_REFRESH_MAX_DAYS": str(high),
        }
        for high in args.max_days
    }
    spaces = {high: tmp / f"every-max{high}" for high in args.max_days}
    for ws in spaces.values():
        shutil.copytree(base, ws)
    results: list[Row] = []
    previous = TODAY
    for generation, days in enumerate(range(args.every, max(args.days) + 1, args.every), 1):
        day = TODAY + dt.timedelta(days=days)
        step = court_changes(cases=args.cases, seed=args.seed, before=previous, after=day,
                             court_id=COURT)  # fmt: skip
        overall = court_changes(cases=args.cases, seed=args.seed, before=TODAY, after=day,
                                court_id=COURT)  # fmt: skip
        min_pages = minimum_pages(args.cases, args.seed, day, step)
        with running_replica(
            cases=args.cases, seed=args.seed, court_id=COURT, as_of=day, port=port
        ) as rep:
            truth = truth_by_key(rep.write_truth(tmp / f"truth-{days}.jsonl"))
            warm_calendar(rep.url, day - dt.timedelta(days=1))
            for high, ws in spaces.items():
                label = f"due, max {high}, every {args.every} days"
                row = measure(
                    ws=ws,
                    url=rep.url,
                    day=day,
                    policy="due",
                    settings=settings[high],
                    changes=overall,
                    truth=truth,
                    min_pages=min_pages,
                    label=label,
                    generation=generation,
                )
                results.append(row)
                print(f"{label} as of D+{days}: {row.seconds:.0f}s", flush=True)
        previous = day
    return results


def table(results: list[Row]) -> str:
    head = (
        "| policy | day | fetched (new + changed row + due/all) | list pages (min) | calendar "
        "pages | used | "
        "minimum | used / minimum | full re-crawl | used / full | changed since D | stale "
        "(share) | re-fetched != truth | new missed |"
    )
    out = [head, "|" + "---|" * 14]
    for r in results:
        new, moved = r.stats.get("new", 0), r.stats.get("changed", 0)
        rest = r.stats.get("due", 0) + r.stats.get("all", 0)
        out.append(
            f"| {r.policy} | D+{r.day} | {r.fetched} ({new} + {moved} + {rest}) | "
            f"{r.pages} ({r.min_pages}) | {r.calendar} | {r.used:,} | {r.minimum:,} | "
            f"**{r.used / r.minimum:.3f}** | {r.full:,} | {r.used / r.full:.3f} | {r.changed} | "
            f"{r.stale} ({r.stale / r.changed:.0%}) | {r.wrong} | {r.missed_new} |"
        )
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--days", type=int, nargs="+", default=[7, 30])
    parser.add_argument("--max-days", type=int, nargs="+", default=[30, 7, 3])
    parser.add_argument("--min-days", type=int, default=1)
    parser.add_argument("--no-all", action="store_true", help="skip the refresh=all run")
    parser.add_argument(
        "--every",
        type=int,
        default=0,
        help="instead: refresh each policy setting's workspace every N days up to the last --days",
    )
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument(
        "--harvested",
        type=Path,
        help="keep the first harvest here, or reuse it when it is there (same --cases/--seed: "
        "the refreshes then start from a copy of it; the replica's tokens stay valid)",
    )
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-refresh-"))
    base = tmp / "harvested"
    t0 = time.monotonic()
    reuse = args.harvested is not None and (args.harvested / "state.sqlite").is_file()
    old_port = 0
    if reuse:
        shutil.copytree(args.harvested, base)
        # the same port: the stored requests and the court's base URL name it
        old_port = int((args.harvested / "replica-port").read_text())
        print(f"reusing the harvest in {args.harvested}", flush=True)
    with running_replica(
        cases=args.cases, seed=args.seed, court_id=COURT, as_of=TODAY, port=old_port
    ) as rep:
        port = rep.port
        if not reuse:
            first = crawl(
                rep.url, COURT, base, settings={"HARVEST_REFRESH_TODAY": TODAY.isoformat()},
                timeout=3600,
            )  # fmt: skip
            if first.returncode != 0:
                print(first.stderr[-3000:])
                return 1
            print(f"harvested {args.cases} cases as of {TODAY} in {time.monotonic() - t0:.0f}s",
                  flush=True)  # fmt: skip
            if args.harvested is not None:
                shutil.copytree(base, args.harvested)
                (args.harvested / "replica-port").write_text(f"{rep.port}\n")
    results: list[Row] = []
    if args.every:
        results = schedule(args, base, tmp, port)
    for n, days in enumerate([] if args.every else args.days):
        day = TODAY + dt.timedelta(days=days)
        changes = court_changes(cases=args.cases, seed=args.seed, before=TODAY, after=day,
                                court_id=COURT)  # fmt: skip
        min_pages = minimum_pages(args.cases, args.seed, day, changes)
        with running_replica(
            cases=args.cases, seed=args.seed, court_id=COURT, as_of=day, port=port
        ) as rep:
            truth = truth_by_key(rep.write_truth(tmp / f"truth-{days}.jsonl"))
            warm_calendar(rep.url, day - dt.timedelta(days=1))
            runs: list[tuple[str, str, dict[str, str]]] = [
                (f"due, max {high}", "due", {
                    "HARVEST_REFRESH_MIN_DAYS": str(args.min_days),
                    "HARVEST_REFRESH_MAX_DAYS": str(high),
                })
                for high in args.max_days
            ]  # fmt: skip
            if n == 0 and not args.no_all:
                runs.append(("all", "all", {}))
            for label, policy, settings in runs:
                pages = math.ceil(len(truth) / PAGE) if policy == "all" else min_pages
                ws = tmp / f"d{days}-{label.replace(' ', '').replace(',', '-')}"
                shutil.copytree(base, ws)
                row = measure(
                    ws=ws,
                    url=rep.url,
                    day=day,
                    policy=policy,
                    settings=settings,
                    changes=changes,
                    truth=truth,
                    min_pages=pages,
                    label=label,
                )
                results.append(row)
                print(f"{label} as of D+{days}: {row.seconds:.0f}s", flush=True)
                shutil.rmtree(ws)
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in results], indent=1) + "\n")
    shutil.rmtree(tmp)
    bad = [r for r in results if r.wrong or r.missed_new]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
