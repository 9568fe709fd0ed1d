"""Issue 14's first "Done when", at full size: a court of 2,000 cases harvested as of D, shipped,
refreshed with ``-a refresh=all`` as of D+7, shipped again.

    .venv/bin/python bench/accept_refresh.py [--cases 2000] [--seed 1] [--days 7]

Checks (exit 1 when one fails) and prints: the export equals D+N's ground truth for every case;
the second ``ship.py`` posts exactly the documents whose truth changed between D and D+N
(``updated``) and the new cases (``created``), each once, and the third posts nothing. The
same checks run in the default suite at 300 cases (tests/refresh/test_refresh_days.py); this
runs them at the issue's size, with the crawl and ship times (unthrottled, the replica is ours).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reference.sipp_site.court import TODAY
from reference.sipp_site.testing import court_changes, running_replica
from tests.support.harvest_run import crawl, exported, mismatches, truth_by_key
from tests.support.ingest import FAST, IngestServer, run_ship, start_server

COURT = "pn-replika"


def ship(ws: Path, server: IngestServer) -> list[tuple[str, str]]:
    before = len(server.log_results())
    result = run_ship(ws, "--endpoint", server.url, *FAST, timeout=1800)
    if result.returncode != 0:
        raise SystemExit(f"ship.py failed ({result.returncode}): {result.stderr[-2000:]}")
    return server.log_results()[before:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--days", type=int, default=7)
    args = parser.parse_args()
    later = TODAY + dt.timedelta(days=args.days)
    changes = court_changes(
        cases=args.cases, seed=args.seed, before=TODAY, after=later, court_id=COURT
    )
    keys = {f"sipp.{COURT}:{n}" for n in changes.changed_documents}
    new = {f"sipp.{COURT}:{n}" for n in changes.new_cases}
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="accept-refresh-") as tmp:
        ws = Path(tmp) / "ws"
        server = start_server(Path(tmp) / "ingest.sqlite")
        try:
            started = time.monotonic()
            with running_replica(
                cases=args.cases, seed=args.seed, court_id=COURT, as_of=TODAY
            ) as rep:
                port = rep.port
                first = crawl(
                    rep.url, COURT, ws, settings={"HARVEST_REFRESH_TODAY": TODAY.isoformat()},
                    timeout=3600,
                )  # fmt: skip
            harvest_s = time.monotonic() - started
            if first.returncode != 0:
                raise SystemExit(f"harvest failed ({first.returncode}): {first.stderr[-2000:]}")
            shipped = ship(ws, server)
            started = time.monotonic()
            with running_replica(
                cases=args.cases, seed=args.seed, court_id=COURT, as_of=later, port=port
            ) as rep:
                again = crawl(
                    rep.url, COURT, ws, spider_args={"refresh": "all"},
                    settings={"HARVEST_REFRESH_TODAY": later.isoformat()}, timeout=3600,
                )  # fmt: skip
                truth = truth_by_key(rep.truth_path(Path(tmp)))
            refresh_s = time.monotonic() - started
            if again.returncode != 0:
                raise SystemExit(f"refresh failed ({again.returncode}): {again.stderr[-2000:]}")
            wrong = mismatches(exported(ws), truth)
            if wrong:
                failures.append(
                    f"{len(wrong)} cases differ from the truth, e.g. {next(iter(wrong.items()))}"
                )
            second = ship(ws, server)
            third = ship(ws, server)
        finally:
            server.stop()
    created = {k for k, r in second if r == "created"}
    updated = {k for k, r in second if r == "updated"}
    if len({k for k, _ in second}) != len(second):
        failures.append("a document was posted twice")
    if created != new:
        failures.append(f"created {len(created)} documents, {len(new)} cases are new")
    if updated != keys:
        failures.append(f"updated {len(updated)} documents, {len(keys)} changed")
    if third:
        failures.append(f"a third ship posted {len(third)} documents")
    print(f"court of {args.cases} cases (seed {args.seed}) as of {TODAY} -> {later}")
    print(f"  harvest: {harvest_s:.0f} s, first ship: {len(shipped)} documents")
    print(f"  refresh=all: {refresh_s:.0f} s; export vs truth: {len(truth)} cases, "
          f"{len(truth) - len(wrong)} equal")  # fmt: skip
    print(f"  second ship: {len(created)} created (new cases: {len(new)}), {len(updated)} "
          f"updated (changed documents: {len(keys)}), {len(second)} posts; third ship: "
          f"{len(third)} posts")  # fmt: skip
    for failure in failures:
        print(f"FAILED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
