"""Workspaces to ship and the reference ingest API as a subprocess (tests, bench, demo).

Workspaces are built through the real item store (``ItemStore.upsert_part``); the server is the
real ``python -m reference.ingest_api`` as a subprocess on 127.0.0.1, port 0: it binds the port
itself and prints the address it got.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import requests

from pipelines.store import ItemStore
from tests.support.paths import PY, REPO, SHIP

TOKEN = "test-token-5f2c9a81d7"
COURT = "pa-testkota"


def case_number(i: int) -> str:
    return f"{i}/Pdt.G/2024/PA Tst"


def build_workspace(
    workspace: Path,
    count: int,
    *,
    start: int = 0,
    version: int = 0,
    changed: set[int] | None = None,
    incomplete: set[int] | None = None,
) -> Path:
    """``count`` cases in ``workspace/items.sqlite``; cases in ``changed`` get ``version`` data.

    Each case lists two available tabs and one unavailable one; cases in ``incomplete`` lack
    their ``riwayat_perkara`` tab part.
    """
    workspace.mkdir(mode=0o700, parents=True, exist_ok=True)
    changed = changed if changed is not None else set(range(start, start + count))
    incomplete = incomplete or set()
    with ItemStore.open(workspace / "items.sqlite") as store:
        for i in range(start, start + count):
            number = case_number(i)
            v = version if i in changed else 0
            store.upsert_part(
                court=COURT,
                case_number=number,
                part="case",
                data={
                    "court": COURT,
                    "nomor_perkara": number,
                    "nomor_perkara_raw": number,
                    "list_row": None,
                    "header": {
                        "nomor_perkara": number,
                        "pihak_1": {"label": "Penggugat", "nama": [f"Penggugat {i} (Ã© ü)"]},
                        "pihak_2": {"label": "Tergugat", "nama": [f"Tergugat {i}"]},
                        "status_perkara": f"Minutasi v{v}",
                    },
                    "data_umum": {"klasifikasi_perkara": "Cerai Gugat"},
                    "tabs": [
                        {"slug": "penetapan", "label": "Penetapan", "available": True},
                        {"slug": "riwayat_perkara", "label": "Riwayat", "available": True},
                        {"slug": "diversi", "label": "Diversi", "available": False},
                    ],
                },
                url=f"http://127.0.0.1/detil/{i}?enc=token{time.time_ns()}",
            )
            store.upsert_part(
                court=COURT,
                case_number=number,
                part="tab:penetapan",
                data={"hakim": [{"tanggal_penetapan": "2024-03-01", "nama": f"Hakim {i % 7}"}]},
            )
            if i not in incomplete:
                store.upsert_part(
                    court=COURT,
                    case_number=number,
                    part="tab:riwayat_perkara",
                    data=[{"tanggal": "2024-01-02", "tahapan": "Pendaftaran", "v": v}],
                )
    return workspace


def documents(workspace: Path, *, complete_only: bool = True) -> dict[str, dict[str, Any]]:
    """The workspace's documents as ship.py sends them (with their ``version``)."""
    with ItemStore.open(workspace / "items.sqlite", readonly=True) as store:
        merged = store.iter_documents(complete_only=complete_only, versions=True)
        return {d["dedupe_key"]: dict(d) for d in merged}


@dataclass
class IngestServer:
    """A running ``python -m reference.ingest_api`` subprocess."""

    proc: subprocess.Popen[str]
    url: str
    db: Path
    token: str = TOKEN
    stopped: bool = field(default=False)

    def stats(self) -> dict[str, Any]:
        response = requests.get(f"{self.url}/stats", timeout=5)
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    def get(self, key: str) -> requests.Response:
        return requests.get(
            f"{self.url}/items/{quote(key, safe='')}",
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=5,
        )

    def rows(self) -> dict[str, tuple[str, int]]:
        """``{dedupe_key: (content_hash, version)}`` straight from the server's database."""
        with sqlite3.connect(self.db) as conn:
            return {
                k: (h, v)
                for k, h, v in conn.execute("SELECT dedupe_key, content_hash, version FROM items")
            }

    def log_results(self) -> list[tuple[str, str]]:
        with sqlite3.connect(self.db) as conn:
            return list(conn.execute("SELECT dedupe_key, result FROM ingest_log ORDER BY id"))

    def stop(self) -> None:
        if not self.stopped:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            if self.proc.stdout is not None:
                self.proc.stdout.close()
            self.stopped = True


def start_server(db: Path, *extra: str) -> IngestServer:
    """Start the server on a port of its own choosing; its stderr goes to ``<db>.log``.

    Fault draws are seeded (``--seed 1``; an ``extra`` ``--seed`` comes later and wins).
    """
    with open(f"{db}.log", "w") as errors:
        proc = subprocess.Popen(
            [PY, "-m", "reference.ingest_api", "--port", "0", "--token", TOKEN, "--db",
             str(db), "--seed", "1", *extra],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )  # fmt: skip
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("ingest_api listening on "):
        proc.kill()
        proc.wait()
        proc.stdout.close()
        raise AssertionError(
            f"ingest server did not start: {line!r} {Path(f'{db}.log').read_text()}"
        )
    url = line.split(" on ", 1)[1].strip()
    return IngestServer(proc=proc, url=url, db=db)


#: Small waits everywhere, so fault tests run in seconds (documented options of ship.py).
FAST = ["--backoff-base", "0.01", "--backoff-cap", "0.05", "--timeout", "5"]


def ship_env(token: str | None = TOKEN, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("INGEST_TOKEN", "INGEST_URL")}
    env.pop("HARVEST_WORKSPACE", None)
    if token is not None:
        env["INGEST_TOKEN"] = token
    env.update(extra)
    return env


def run_ship(
    workspace: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SHIP, "--workspace", str(workspace), *args],
        check=False,
        cwd=REPO,
        env=env if env is not None else ship_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def log_lines(workspace: Path) -> list[dict[str, Any]]:
    path = workspace / "ship-log.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
