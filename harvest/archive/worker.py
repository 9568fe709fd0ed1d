"""The crawl's archive writer: WARC encoding, ``fsync`` and indexing off the crawl's reactor.

:class:`Writers` holds the index and one :class:`ArchiveWriter` per court; the archive
middleware runs it in a thread of the crawl (``HARVEST_ARCHIVE_WRITER = "thread"``, the
default: the encoder is cheap, and the gzip compression, the digests, the writes, the ``fsync``
and SQLite run in C with the interpreter lock released) or in a process of its own
(``"process"``, below).

The writer process: the archive middleware starts it (``spawn``) on the first page and sends it
batches; it writes
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

__all__ = ["Writers", "start", "write_many"]

#: How often the writer checks that the crawl process is still there.
_PARENT_POLL_S = 0.5


class Writers:
    """The archive index and the writer of each court, opened on the first batch; used by one
    thread at a time (the writer thread, or the writer process's)."""

    def __init__(self, root: str, run: str, max_file_bytes: int, software: str) -> None:
        self.root = Path(root)
        self.run = run
        self.max_file_bytes = max_file_bytes
        self.software = software
        self._index: ArchiveIndex | None = None
        self._writers: dict[str, ArchiveWriter] = {}  # court -> its writer

    def writer_of(self, court: str) -> ArchiveWriter:
        writer = self._writers.get(court)
        if writer is None:
            if self._index is None:
                self._index = ArchiveIndex.open(self.root / INDEX_DB)
            writer = self._writers[court] = ArchiveWriter(
                self.root,
                court,
                self._index,
                max_file_bytes=self.max_file_bytes,
                run=self.run,
                software=self.software,
            )
        return writer

    def write_many(self, batch: Sequence[tuple[str, str, Exchange]]) -> list[IndexEntry]:
        """Write ``(court, key, exchange)`` entries, each court's in one go (one ``fsync``, one
        index transaction a court); the entries in ``batch`` order."""
        by_court: dict[str, list[int]] = {}
        for i, (court, _, _) in enumerate(batch):
            by_court.setdefault(court, []).append(i)
        out: list[IndexEntry | None] = [None] * len(batch)
        for court, positions in by_court.items():
            entries = self.writer_of(court).write_many(
                [(batch[i][1], batch[i][2]) for i in positions]
            )
            for i, entry in zip(positions, entries, strict=True):
                out[i] = entry
        return [e for e in out if e is not None]

    def close(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()
        if self._index is not None:
            self._index.close()
            self._index = None


_process: Writers | None = None  # the writer process's


def start(
    root: str, court: str, run: str, max_file_bytes: int, software: str, crawl: int = 0
) -> None:
    """Open the index and the writer of ``court`` (the process pool's initializer); a
    multi-court crawl's other courts get theirs on their first page.

    ``crawl``: the crawl process's pid (0: the parent at start, as before).
    """
    global _process
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = crawl or os.getppid()
    if os.getppid() != parent:  # the crawl died before this process got here
        os._exit(0)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    _process = Writers(root, run, max_file_bytes, software)
    _process.writer_of(court)


def write_many(batch: Sequence[tuple[str, str, Exchange]]) -> list[IndexEntry]:
    """:meth:`Writers.write_many` in the writer process."""
    if _process is None:
        raise RuntimeError("the archive writer process was not started")
    return _process.write_many(batch)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_PARENT_POLL_S)
    os._exit(0)
