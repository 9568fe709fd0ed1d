"""Item-store throughput, SQLite vs PostgreSQL: the same upserts on both backends, side by side.

For each backend: ``--cases`` cases of one court, each a ``case`` part listing 3 tabs and its 3
``tab:`` parts (SIPP-like sizes: ~1.5 KB of JSON each), upserted as the dedupe pipeline does
(one committed transaction per part): **created** upserts/s; then the same parts again:
**unchanged** upserts/s (a re-crawl); then ``--workers`` processes at once, each its own court:
the total upserts/s of concurrent writers (SQLite serialises them on its write lock;
PostgreSQL on per-case locks only). Prints the PostgreSQL/SQLite ratio.

PostgreSQL: ``--url`` (a database the bench may fill; its item tables must not exist yet),
else a throwaway server (tests/support/postgres.py) **with fsync on**, on 127.0.0.1 over TCP.
Neither store flushes the disk on each commit (SQLite: WAL with ``synchronous=NORMAL``;
PostgreSQL: the item store's ``synchronous_commit = off``): a commit survives the writer's
crash at once, a power cut after the next WAL flush. SQLite: a temporary ``items.sqlite``. Both
on this machine's disk.

    .venv/bin/python bench/bench_item_backends.py [--cases 1000] [--workers 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from pipelines.item_backends import open_item_store
from tests.support.postgres import bench_databases

TABS = ("pihak", "jadwal_sidang", "riwayat_perkara")


def _parts(court: str, i: int) -> list[tuple[str, str, object]]:
    number = f"{i}/Pdt.G/2024/PA Bch"
    case = {
        "nomor_perkara": number,
        "klasifikasi": "Cerai Gugat",
        "tanggal_pendaftaran": "2024-03-01",
        "para_pihak": "Penggugat: SITI AMINAH binti ABDULLAH; Tergugat: BUDI SANTOSO bin HARTO",
        "tabs": [{"slug": s, "label": s.title(), "available": True} for s in TABS],
        "amar": "Mengabulkan gugatan Penggugat; " * 12,
    }
    rows = [
        {"tanggal": f"2024-0{1 + k % 9}-1{k % 10}", "agenda": "Sidang pertama " * 4, "no": k}
        for k in range(8)
    ]
    return [(court, number, case)] + [(court, number, rows) for _ in TABS]


def _upsert_all(workspace: str, url: str | None, court: str, cases: int) -> float:
    """Upsert every part of ``cases`` cases of ``court``; returns the seconds it took."""
    with open_item_store(Path(workspace), database_url=url) as store:
        started = time.perf_counter()
        for i in range(cases):
            for k, (c, number, data) in enumerate(_parts(court, i)):
                part = "case" if k == 0 else f"tab:{TABS[k - 1]}"
                store.upsert_part(court=c, case_number=number, part=part, data=data)
        return time.perf_counter() - started


def _worker(args: tuple[str, str | None, str, int]) -> float:
    return _upsert_all(*args)


def measure(workspace: Path, url: str | None, cases: int, workers: int) -> dict[str, float]:
    n = cases * (1 + len(TABS))
    created = _upsert_all(str(workspace), url, "pa-bench", cases)
    unchanged = _upsert_all(str(workspace), url, "pa-bench", cases)
    jobs = [(str(workspace), url, f"pa-bench{w}", cases) for w in range(workers)]
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        pool.map(_worker, jobs)
    together = time.perf_counter() - started
    return {
        "created/s": n / created,
        "unchanged/s": n / unchanged,
        f"{workers} writers, total/s": workers * n / together,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--url", help="a PostgreSQL database to use instead of a throwaway one")
    args = parser.parse_args()

    with (
        bench_databases(args.url) as new_database,
        tempfile.TemporaryDirectory(prefix="bench-items-") as tmp,
    ):
        sqlite = measure(Path(tmp), None, args.cases, args.workers)
        postgres = measure(Path(tmp), new_database(), args.cases, args.workers)

    parts = args.cases * (1 + len(TABS))
    print(f"{args.cases} cases x {1 + len(TABS)} parts = {parts} upserts per writer")
    print(f"{'metric':24} {'sqlite':>10} {'postgres':>10} {'pg/sqlite':>10}")
    for metric, a in sqlite.items():
        b = postgres[metric]
        print(f"{metric:24} {a:10.0f} {b:10.0f} {b / a:10.2f}")


if __name__ == "__main__":
    main()
