"""CPU per part upsert of the item store (``ItemStore.upsert_part``): this checkout and another.

Each round, in a fresh process per checkout (interleaved, alternating order): ``--cases`` new
cases are stored as a crawl stores them (the ``case`` part, then its four tabs: every upsert a
``created`` that recomputes the case's row), then every part again with changed data
(``updated``). Prints the process CPU time per upsert (``time.process_time``) of each round and
the medians. Part data: ``bench/bench_store.py``'s realistic generator. No network at all.

    .venv/bin/python bench/bench_upsert.py [--cases 2000] [--rounds 5] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

REPO = Path(__file__).resolve().parents[1]


def one(cases: int, checkout: Path) -> float:
    """Milliseconds of CPU per upsert in this process, of ``checkout``'s item store."""
    sys.path.insert(0, str(checkout))  # before anything of the project is imported
    from bench.bench_store import COURT, number, part_data, part_names
    from pipelines.store import ItemStore

    with tempfile.TemporaryDirectory(prefix="bench-upsert-") as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir(mode=0o700)
        work = [(i, part, 0) for i in range(cases) for part in part_names()]
        work += [(i, part, 1) for i in range(cases) for part in part_names()]
        datas = [(number(i), part, part_data(i, part, v)) for i, part, v in work]
        with ItemStore.open(ws / "items.sqlite") as store:
            t0 = time.process_time()
            for case_number, part, data in datas:
                store.upsert_part(court=COURT, case_number=case_number, part=part, data=data)
            return (time.process_time() - t0) * 1000 / len(datas)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", type=Path, default=None)
    parser.add_argument("--one", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(f"{one(args.cases, args.one):.4f}")
        return
    checkouts = {"this": REPO}
    if args.baseline is not None:
        checkouts["baseline"] = args.baseline.resolve()
    results: dict[str, list[float]] = {name: [] for name in checkouts}
    script = str(Path(__file__).resolve())
    for r in range(args.rounds):
        names = list(checkouts) if r % 2 == 0 else list(reversed(checkouts))
        for name in names:
            out = subprocess.run(
                [sys.executable, script, "--one", str(checkouts[name]),
                 "--cases", str(args.cases)],
                cwd=checkouts[name], capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
            results[name].append(float(out))
            print(f"round {r + 1} {name:8}: {results[name][-1]:.3f} ms CPU per upsert", flush=True)
    for name, values in results.items():
        print(f"{name}: median {statistics.median(values):.3f} ms CPU per upsert ({args.cases} "
              f"cases x 5 parts, created then updated; rounds: "
              f"{', '.join(f'{v:.3f}' for v in values)})")  # fmt: skip


if __name__ == "__main__":
    main()
