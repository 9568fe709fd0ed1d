"""Side by side: one and two SIGINTs at random moments of a crawl, this checkout vs a baseline.

A replica court is crawled by the real ``sipp`` spider with sessions, redirects and tabs in
flight (4 sessions, the default case look-ahead: requests wait in the session pool's lease) and
interrupted ``--trials`` times with one SIGINT and ``--trials`` times with two, resuming each
time, then crawled to the end and exported against the ground truth. For each checkout it
prints how many stops ended within the bound (``HARVEST_STOP_TIMEOUT``, default
``DOWNLOAD_TIMEOUT`` + 15 s; two SIGINTs: 2 s), with which exit codes, whether each log ended
with its summary, and whether the export equals the truth.

    .venv/bin/python bench/bench_stop.py [--trials 20] [--baseline DIR]

``--baseline``: a copy of another version's tracked files (``git archive main | tar -x -C DIR``)
run with this virtualenv, e.g. the code before issue #27. Only 127.0.0.1 is contacted; a stop
that never ends is killed after ``--deadline`` seconds and counted as hung.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import exported, truth_by_key
from tests.support.paths import REPO
from tests.support.stopping import BOUND, StopTrial, stop_command, stop_trial

COURT = "pn-bench"


def one_checkout(
    name: str, cwd: Path, trials: int, deadline: float, seed: int, tmp: Path
) -> dict[str, object]:
    ws, log = tmp / f"{name}-ws", tmp / f"{name}.log"
    rng = random.Random(seed)
    with running_replica(cases=300, seed=27, court_id=COURT) as rep:
        cmd = stop_command(ws, rep.url, COURT)
        results: list[StopTrial] = []
        for n in [1] * trials + [2] * trials:
            t = stop_trial(cmd, ws, log, rng, signals=n, after=(10, 150), deadline=deadline,
                           cwd=cwd)  # fmt: skip
            results.append(t)
            print(f"  {name}: {n} SIGINT -> exit {t.returncode} after {t.seconds:.1f} s, "
                  f"summary {t.summary_code}", flush=True)  # fmt: skip
        final = subprocess.run(
            cmd, check=False, cwd=cwd, capture_output=True, text=True, timeout=1800
        )
        want = truth_by_key(rep.write_truth(tmp / f"{name}-truth.jsonl"))
    single = [t for t in results if t.signals == 1 and not t.finished_first]
    double = [t for t in results if t.signals == 2 and not t.finished_first]
    return {
        "single_in_bound": sum(t.returncode is not None and t.seconds <= BOUND for t in single),
        "single_summary": sum(
            t.returncode is not None and t.summary_code == t.returncode for t in single
        ),
        "single_codes": sorted(str(t.returncode) for t in single),
        "single_median_s": statistics.median(t.seconds for t in single) if single else 0.0,
        "double_in_2s_code5": sum(t.returncode == 5 and t.seconds <= 2.0 for t in double),
        "double_summary": sum(t.summary_code == 5 for t in double),
        "double_max_s": max((t.seconds for t in double), default=0.0),
        "trials": (len(single), len(double)),
        "final_exit": final.returncode,
        "export_equals_truth": exported(ws) == want,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--baseline", type=Path)
    ap.add_argument("--deadline", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=27)
    args = ap.parse_args()
    checkouts = [("this", REPO)] + ([("baseline", args.baseline)] if args.baseline else [])
    with tempfile.TemporaryDirectory(prefix="bench-stop-") as d:
        rows = {n: one_checkout(n, c, args.trials, args.deadline, args.seed, Path(d))
                for n, c in checkouts}  # fmt: skip
    for name, row in rows.items():
        print(f"{name}: " + ", ".join(f"{k}={v}" for k, v in row.items()))
    if "baseline" in rows:
        a, b = rows["this"], rows["baseline"]
        print(f"single stops within {BOUND:g} s: {a['single_in_bound']} vs "
              f"{b['single_in_bound']}; double stops exit 5 within 2 s: "
              f"{a['double_in_2s_code5']} vs {b['double_in_2s_code5']}")  # fmt: skip


if __name__ == "__main__":
    main()
