"""Parse time per page, before and after a parser change, side by side in one run.

"Before" is the parser package of a git revision (default ``main``: ``git archive <rev>
harvest`` into a temporary directory), "after" the checkout's. Each round runs one worker
process per side, alternately, over the same pages (the saved replica pages and the golden
fixtures, as bench/bench_parsers.py collects them), each page parsed ``--repeat`` times as the
spider parses it (inside ``collect_warnings()``). Prints per page kind the median milliseconds
per page over the rounds of each side and the ratio after / before (load on the machine moves
both sides alike, so the ratio is what to read).

    .venv/bin/python bench/bench_broken_pages.py [--rev main] [--rounds 5] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def worker(harvest_root: str, repeat: int) -> None:
    """Time every page with the ``harvest`` package under ``harvest_root``; print JSON."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, harvest_root)  # first: its harvest package wins over the checkout's
    import harvest  # chosen by the path above
    from harvest.sipp import parse_detail_page, parse_list_page, parse_tab
    from harvest.sipp.warnings import collect_warnings

    sys.path.insert(0, str(ROOT / "bench"))
    from bench_parsers import pages

    def parse(kind: str, html: str, url: str) -> object:
        if kind == "list":
            return parse_list_page(html, url)
        if kind == "detail":
            return parse_detail_page(html, url)
        return parse_tab(kind.removeprefix("tab:"), html)

    times: dict[str, list[float]] = defaultdict(list)
    for kind, url, html in pages():
        group = "tab" if kind.startswith("tab:") else kind
        start = time.perf_counter()
        for _ in range(repeat):
            with collect_warnings():
                parse(kind, html, url)
        times[group].append((time.perf_counter() - start) / repeat * 1000)
    print(json.dumps({"package": harvest.__file__, "ms": times}))


def _run(harvest_root: str, repeat: int) -> dict[str, list[float]]:
    out = subprocess.run(
        [sys.executable, __file__, "--worker", harvest_root, "--repeat", str(repeat)],
        check=True,
        capture_output=True,
        text=True,
    )
    result = json.loads(out.stdout)
    ms: dict[str, list[float]] = result["ms"]
    return ms


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="main", help="the 'before' revision (default main)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.repeat)
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-before-") as tmp:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.rev, "harvest"],
            check=True,
            capture_output=True,
        )
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        sides = {"before": tmp, "after": str(ROOT)}
        medians: dict[str, dict[str, list[float]]] = {s: defaultdict(list) for s in sides}
        for _ in range(args.rounds):
            for side, root in sides.items():
                for kind, values in _run(root, args.repeat).items():
                    medians[side][kind].append(statistics.median(values))
    kinds = sorted(medians["after"])
    print(f"{'page kind':<10} {'before ms':>10} {'after ms':>10} {'after/before':>13}")
    for kind in kinds:
        before = statistics.median(medians["before"][kind])
        after = statistics.median(medians["after"][kind])
        print(f"{kind:<10} {before:>10.3f} {after:>10.3f} {after / before:>13.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
