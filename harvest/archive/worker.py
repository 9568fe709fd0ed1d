"""The crawl's archive writer process: WARC encoding, ``fsync`` and indexing off the crawl's CPU.

The archive middleware starts it (``spawn``) on the first page and sends it batches; it writes
each batch with :meth:`harvest.archive.store.ArchiveWriter.write_many` (write, one ``fsync``, one
index transaction) and returns the entries. Encoding a page as WARC is pure-Python work of about
a millisecond; in its own process it costs the crawl (one Python thread, CPU-bound when a court
answers fast) nothing but the hand-over.

It ignores SIGINT (a Ctrl+C is the crawl's to handle; the crawl closes it) and exits when the
crawl process is gone (``kill -9``): what it has indexed is on disk, what it was writing is at
worst an unindexed entry at a file's end. The crawl passes its own pid: a crawl killed while the
writer was still starting (before it could look at its parent) is seen as gone too, instead of
the writer taking its new parent (init, a subreaper) for the crawl and running for good with
its WARC file locked. On Linux the kernel also sends it SIGKILL when the crawl dies
(``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from harvest.archive.store import INDEX_DB, ArchiveIndex, ArchiveWriter, Exchange, IndexEntry

__all__ = ["start", "write_many"]

#: How often the writer checks that the crawl process is still there.
_PARENT_POLL_S = 0.5

_writers: dict[str, ArchiveWriter] = {}  # court -> its writer (a multi-court crawl: several)
_config: dict[str, object] = {}
_index: ArchiveIndex | None = None


def start(
    root: str, court: str, run: str, max_file_bytes: int, software: str, crawl: int = 0
) -> None:
    """Open the index and the writer of ``court`` (the process pool's initializer); a
    multi-court crawl's other courts get theirs on their first page.

    ``crawl``: the crawl process's pid (0: the parent at start, as before).
    """
    global _index
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = crawl or os.getppid()
    if os.getppid() != parent:  # the crawl died before this process got here
        os._exit(0)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    _index = ArchiveIndex.open(Path(root) / INDEX_DB)
    _config.update(root=root, run=run, max_file_bytes=max_file_bytes, software=software)
    _writer_of(court)


def _writer_of(court: str) -> ArchiveWriter:
    writer = _writers.get(court)
    if writer is None:
        if _index is None:
            raise RuntimeError("the archive writer process was not started")
        writer = _writers[court] = ArchiveWriter(
            Path(str(_config["root"])),
            court,
            _index,
            max_file_bytes=int(str(_config["max_file_bytes"])),
            run=str(_config["run"]),
            software=str(_config["software"]),
        )
    return writer


def write_many(batch: Sequence[tuple[str, str, Exchange]]) -> list[IndexEntry]:
    """Write ``(court, key, exchange)`` entries, each court's in one go (one ``fsync``, one
    index transaction a court); the entries in ``batch`` order."""
    by_court: dict[str, list[int]] = {}
    for i, (court, _, _) in enumerate(batch):
        by_court.setdefault(court, []).append(i)
    out: list[IndexEntry | None] = [None] * len(batch)
    for court, positions in by_court.items():
        entries = _writer_of(court).write_many([(batch[i][1], batch[i][2]) for i in positions])
        for i, entry in zip(positions, entries, strict=True):
            out[i] = entry
    return [e for e in out if e is not None]


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_PARENT_POLL_S)
    os._exit(0)
