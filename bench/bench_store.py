"""Upsert throughput and memory of the item store (``pipelines/store.py``) holding a million parts.

Builds a store of ``--parts`` parts (default 1,000,000: 200,000 cases of a case part and four tab
parts, realistic sizes) with a bulk loader, then measures ``ItemStore.upsert_part`` side by side
on that store and on an empty one, each in a fresh process so that its RSS is its own:

- ``created``   new cases (a case part, then its tabs; completeness recomputed each time)
- ``unchanged`` re-writing stored parts (a re-crawl of unchanged cases)
- ``updated``   changed data for stored parts
- ``mix``       70% unchanged / 20% created / 10% updated, like a re-crawl of a live court
- ``export``    ``iter_documents`` streaming every complete document

Prints parts/s per phase, the ratio full/empty, and the RSS after each phase plus the peak (VmHWM).
Every upsert is one committed transaction, as in a crawl. Bounded: ``--seconds`` per phase (default
6) and the export stops after ``--export-max`` documents. No network at all.

    .venv/bin/python bench/bench_store.py [--parts 1000000] [--seconds 6]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from harvest.base.canonical import canonical_json, content_hash
from pipelines.store import ItemStore, merge_document

COURT = "pa-bench"
TABS = ("pihak", "jadwal_sidang", "riwayat_perkara", "putusan")
PARTS_PER_CASE = 1 + len(TABS)


def number(i: int) -> str:
    return f"{i}/Pdt.G/{2000 + i % 25}/PA Bch"


JENIS = ("Cerai Gugat", "Cerai Talak", "Dispensasi Kawin", "Isbat Nikah")
STATUS = ("Pendaftaran", "Persidangan", "Minutasi")
NAMES = ("Siti Aminah", "Budi Santoso", "Dewi Lestari", "Agus Salim", "Nyai Dédé Ratna")


def part_data(i: int, part: str, version: int = 0) -> Any:
    """Deterministic data of one part, about the size of a real one (cheap to generate)."""
    h = (i * 2_654_435_761 + len(part) * 40_503 + version * 97) % 1_000_003
    if part == "case":
        return {
            "nomor_perkara": number(i),
            "court": COURT,
            "jenis_perkara": JENIS[h % 4],
            "tanggal_pendaftaran": f"2024-{h % 12 + 1:02d}-{h % 28 + 1:02d}",
            "status_perkara": STATUS[h % 3],
            "klasifikasi": "Perkawinan",
            "petitum": "Mengabulkan gugatan Penggugat; " * (2 + h % 5) + f"v{version}",
            "tabs": [
                {"slug": slug, "label": slug.replace("_", " ").title(), "available": True}
                for slug in TABS
            ],
        }
    return [
        {
            "no": n + 1,
            "tanggal": f"2024-{(h + n) % 12 + 1:02d}-{(h + n) % 28 + 1:02d}",
            "keterangan": f"{part} {h * (n + 7)} v{version}",
            "nama": NAMES[(h + n) % 5],
        }
        for n in range(1 + h % 4)
    ]


def part_names() -> list[str]:
    return ["case", *(f"tab:{slug}" for slug in TABS)]


# --- the bulk prefill (not the measured path) -------------------------------------------------


def prefill(path: Path, cases: int) -> float:
    ItemStore.open(path).close()  # schema, WAL, 0600
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous = OFF")
    started = time.perf_counter()
    now = "2026-01-01T00:00:00.000000+00:00"
    batch = 5_000
    for start in range(0, cases, batch):
        part_rows = []
        case_rows = []
        for i in range(start, min(start + batch, cases)):
            key = f"sipp.{COURT}:{number(i)}"
            datas = [(part, part_data(i, part)) for part in part_names()]
            for part, data in datas:
                text = canonical_json(data)
                row = (key, part, COURT, number(i), number(i), text, content_hash(data))
                part_rows.append((*row, "", "", now, now, now))
            doc = merge_document(
                dedupe_key=key, source_type=f"sipp.{COURT}", source_id=number(i), parts=datas
            )
            case_rows.append((key, COURT, number(i), 1, 1, "[]", doc["content_hash"], now, now))
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO parts VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", part_rows)
        conn.executemany("INSERT INTO cases VALUES (?,?,?,?,?,?,?,?,?)", case_rows)
        conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return time.perf_counter() - started


# --- the measured process ---------------------------------------------------------------------


def memory_kib() -> dict[str, int]:
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            out[line.split(":")[0]] = int(line.split()[1])
    return out


def measure(path: Path, stored_cases: int, seconds: float, export_max: int) -> dict[str, Any]:
    rng = random.Random(7)
    store = ItemStore.open(path)
    results: dict[str, Any] = {"rss_open_kib": memory_kib()["VmRSS"]}
    next_new = stored_cases + 10_000_000  # fresh case numbers
    version = 1

    def run(phase: str, one) -> None:
        counts: dict[str, int] = {}
        done = 0
        busy = 0.0
        started = time.perf_counter()
        deadline = started + seconds
        while time.perf_counter() < deadline:
            for _ in range(200):
                result, took = one()
                busy += took
                counts[result.value] = counts.get(result.value, 0) + 1
                done += 1
        results[phase] = {
            "parts_per_s": done / busy,
            "parts": done,
            "outcomes": counts,
            "rss_kib": memory_kib()["VmRSS"],
        }

    def timed(case_number: str, part: str, data: Any):
        """One upsert, timed alone (generating the part is not the store's cost)."""
        started = time.perf_counter()
        result = store.upsert_part(court=COURT, case_number=case_number, part=part, data=data)
        return result, time.perf_counter() - started

    new_parts: list[tuple[int, str]] = []

    def created():
        nonlocal next_new
        if not new_parts:
            new_parts.extend((next_new, part) for part in reversed(part_names()))
            next_new += 1
        i, part = new_parts.pop()
        return timed(number(i), part, part_data(i, part))

    def existing() -> tuple[int, str]:
        return rng.randrange(stored_cases), rng.choice(part_names())

    def unchanged():
        i, part = existing()
        return timed(number(i), part, part_data(i, part))

    def updated():
        nonlocal version
        i, part = existing()
        version += 1
        return timed(number(i), part, part_data(i, part, version))

    def mix():
        roll = rng.random()
        if roll < 0.7:
            return unchanged()
        if roll < 0.9:
            return created()
        return updated()

    if stored_cases:
        run("unchanged", unchanged)
        run("updated", updated)
    run("created", created)
    if stored_cases:
        run("mix", mix)
    started = time.perf_counter()
    exported = 0
    for document in store.iter_documents(complete_only=True):
        exported += 1 if document["complete"] else 0
        if exported >= export_max:
            break
    elapsed = time.perf_counter() - started
    results["export"] = {
        "docs_per_s": exported / elapsed if elapsed else 0.0,
        "docs": exported,
        "rss_kib": memory_kib()["VmRSS"],
    }
    results["parts_total"] = store.count_parts()
    store.close()
    seen = [v["rss_kib"] for v in results.values() if isinstance(v, dict)]
    results["peak_kib"] = max([memory_kib()["VmHWM"], *seen])
    return results


def run_measure_process(path: Path, stored: int, seconds: float, export_max: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--measure", *map(str, (path, stored, seconds, export_max))],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def mib(kib: int) -> str:
    return f"{kib / 1024:7.1f} MiB"


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--measure":
        path, stored, seconds, export_max = sys.argv[2:6]
        print(json.dumps(measure(Path(path), int(stored), float(seconds), int(export_max))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", type=int, default=1_000_000, help="parts in the full store")
    parser.add_argument("--seconds", type=float, default=6.0, help="seconds per phase")
    parser.add_argument("--export-max", type=int, default=200_000, help="documents to stream")
    parser.add_argument("--keep", type=Path, help="build the store here and keep it")
    opts = parser.parse_args()

    cases = opts.parts // PARTS_PER_CASE
    tmp = Path(tempfile.mkdtemp(prefix="bench-store-"))
    try:
        full = (opts.keep or tmp) / "full" / "items.sqlite"
        empty = tmp / "empty" / "items.sqlite"
        full.parent.mkdir(parents=True, exist_ok=True)
        empty.parent.mkdir(parents=True)
        if not full.exists():
            took = prefill(full, cases)
            print(
                f"prefill: {cases * PARTS_PER_CASE:,} parts ({cases:,} complete cases) in "
                f"{took:.1f}s (bulk loader); {full.stat().st_size / 2**20:.0f} MiB on disk"
            )
        rows = {}
        for name, path, stored in (("empty", empty, 0), ("full", full, cases)):
            rows[name] = run_measure_process(path, stored, opts.seconds, opts.export_max)
        print(f"\nupsert_part, one committed transaction each ({opts.seconds:g}s per phase):")
        print(f"{'phase':<10} {'empty store':>14} {'full store':>16} {'ratio':>7}  RSS (full)")
        for phase in ("created", "unchanged", "updated", "mix"):
            f = rows["full"].get(phase)
            e = rows["empty"].get(phase)
            if f is None:
                continue
            e_rate = f"{e['parts_per_s']:>10,.0f} p/s" if e else f"{'-':>14}"
            ratio = f"{f['parts_per_s'] / e['parts_per_s']:>7.2f}" if e else f"{'':>7}"
            print(
                f"{phase:<10} {e_rate} {f['parts_per_s']:>12,.0f} p/s {ratio}  "
                f"{mib(f['rss_kib'])}  {f['outcomes']}"
            )
        for name in ("empty", "full"):
            r = rows[name]
            print(
                f"{name:>5}: RSS at open {mib(r['rss_open_kib'])}, after export "
                f"{mib(r['export']['rss_kib'])}, peak {mib(r['peak_kib'])}; export streamed "
                f"{r['export']['docs']:,} docs at {r['export']['docs_per_s']:,.0f} docs/s; "
                f"{r['parts_total']:,} parts at the end"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
