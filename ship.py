"""ship.py: ship the workspace's case documents through the one idempotent door.

Reads the merged case documents of ``<workspace>/items.sqlite`` (complete ones; with
``--include-partial`` the others too) and POSTs each, with its version, to
``<endpoint>/items`` over ``--concurrency`` kept-alive connections, with
``Authorization: Bearer $INGEST_TOKEN``. Every attempt is one line of
``<workspace>/ship-log.jsonl`` (group-committed); a document is skipped on a later run when its
latest *final* line says the server has that ``content_hash``.

This file is only the entry point: the work is done by the Scrapy-free package
:mod:`harvest.shipping` (one module per concern; the same command is installed as
``harvest-ship``). Code that needs the shipper's parts (tests, benchmarks) imports them from
``harvest.shipping.*``; this file exports :func:`main` alone.
Options, exit codes and the ship-log format: docs/shipping.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script from anywhere: the checkout is the import root
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from harvest.shipping.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
