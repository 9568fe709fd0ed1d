"""ship.py: ship the workspace's case documents through the one idempotent door.

Reads the merged case documents of ``<workspace>/items.sqlite`` (complete ones; with
``--include-partial`` the others too) and POSTs each, with its version, to
``<endpoint>/items`` over ``--concurrency`` kept-alive connections, with
``Authorization: Bearer $INGEST_TOKEN``. Every attempt is one line of
``<workspace>/ship-log.jsonl`` (group-committed); a document is skipped on a later run when its
latest *final* line says the server has that ``content_hash``.

This file is only the entry point: the work is done by the Scrapy-free package
:mod:`harvest.shipping` (one module per concern; the same command is installed as
``harvest-ship``). The names below are re-exported for the callers of ``import ship``.
Options, exit codes and the ship-log format: docs/shipping.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script from anywhere: the checkout is the import root
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from harvest.shipping.cli import build_parser, main, workspace_of
from harvest.shipping.documents import document_problems, encode, idempotency_key
from harvest.shipping.endpoints import EndpointPool, parse_endpoints
from harvest.shipping.errors import (
    AuthError,
    BreakerOpen,
    ConfigError,
    EndpointUnusable,
    ExitStatus,
    Outcome,
    RetryAfterTooLong,
    ShipError,
    ShipLogError,
    WorkspaceLocked,
)
from harvest.shipping.policy import RetryPolicy, classify, parse_retry_after
from harvest.shipping.progress import Progress, Summary
from harvest.shipping.run import Plan, plan, ship
from harvest.shipping.shiplog import (
    ShipLog,
    ShipLogState,
    ShippedIndex,
    WorkspaceLock,
    compact_log,
    read_ship_log,
    repair_tail,
)
from harvest.shipping.transport import Answer, RequestsTransport, Transport, TransportError

__all__ = [
    "Answer",
    "AuthError",
    "BreakerOpen",
    "ConfigError",
    "EndpointPool",
    "EndpointUnusable",
    "ExitStatus",
    "Outcome",
    "Plan",
    "Progress",
    "RequestsTransport",
    "RetryAfterTooLong",
    "RetryPolicy",
    "ShipError",
    "ShipLog",
    "ShipLogError",
    "ShipLogState",
    "ShippedIndex",
    "Summary",
    "Transport",
    "TransportError",
    "WorkspaceLock",
    "WorkspaceLocked",
    "build_parser",
    "classify",
    "compact_log",
    "document_problems",
    "encode",
    "idempotency_key",
    "main",
    "parse_endpoints",
    "parse_retry_after",
    "plan",
    "read_ship_log",
    "repair_tail",
    "ship",
    "workspace_of",
]

if __name__ == "__main__":
    raise SystemExit(main())
