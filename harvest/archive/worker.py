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

_writer: ArchiveWriter | None = None


def start(
    root: str, court: str, run: str, max_file_bytes: int, software: str, crawl: int = 0
) -> None:
    """Open the index and the writer (the process pool's initializer).

    ``crawl``: the crawl process's pid (0: the parent at start, as before).
    """
    global _writer
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = crawl or os.getppid()
    if os.getppid() != parent:  # the crawl died before this process got here
        os._exit(0)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    index = ArchiveIndex.open(Path(root) / INDEX_DB)
    _writer = ArchiveWriter(
        Path(root), court, index, max_file_bytes=max_file_bytes, run=run, software=software
    )


def write_many(batch: Sequence[tuple[str, Exchange]]) -> list[IndexEntry]:
    if _writer is None:
        raise RuntimeError("the archive writer process was not started")
    return _writer.write_many(batch)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_PARENT_POLL_S)
    os._exit(0)
