"""``python -m reference.ingest_api``: run the reference ingest server.

Prints ``ingest_api listening on http://HOST:PORT`` on stdout once bound (``--port 0`` picks a
free port), then serves until SIGINT/SIGTERM. Options are documented in docs/shipping.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from reference.ingest_api.config import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_RETRY_AFTER,
    DEFAULT_SLOW_SECONDS,
    ConfigError,
    Faults,
    ServerConfig,
)
from reference.ingest_api.schema import DocumentSchemas, SchemaFileError
from reference.ingest_api.server import bind, serve

TOKEN_ENV = "INGEST_TOKEN"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m reference.ingest_api",
        description="Reference ingest API (docs/shipping.md).",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8900, help="port; 0 picks a free one (8900)")
    p.add_argument("--db", type=Path, required=True, help="SQLite database file (created)")
    p.add_argument(
        "--token",
        action="append",
        default=[],
        help=f"bearer token allowed to ingest (repeatable); default: ${TOKEN_ENV}",
    )
    p.add_argument(
        "--read-token", action="append", default=[], help="token that may only GET (403 on POST)"
    )
    p.add_argument(
        "--max-body",
        type=int,
        default=DEFAULT_MAX_BODY_BYTES,
        help=f"largest accepted body in bytes (default {DEFAULT_MAX_BODY_BYTES})",
    )
    p.add_argument(
        "--faults", type=float, default=0.0, help="total fault rate, mixing every kind equally"
    )
    p.add_argument("--fault-500", type=float, default=None, help="rate of injected 500 answers")
    p.add_argument("--fault-503", type=float, default=None, help="rate of 503 + Retry-After")
    p.add_argument("--fault-slow", type=float, default=None, help="rate of slow answers")
    p.add_argument("--fault-drop", type=float, default=None, help="rate of commit-then-drop")
    p.add_argument(
        "--retry-after",
        type=int,
        default=DEFAULT_RETRY_AFTER,
        help=f"Retry-After seconds on injected 503s (default {DEFAULT_RETRY_AFTER})",
    )
    p.add_argument(
        "--slow-seconds",
        type=float,
        default=DEFAULT_SLOW_SECONDS,
        help=f"delay of a slow answer (default {DEFAULT_SLOW_SECONDS})",
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the fault generator")
    p.add_argument(
        "--hold-first",
        type=int,
        default=0,
        help="hold the first N valid POSTs before applying them, until --hold-release exists",
    )
    p.add_argument("--hold-release", type=Path, default=None, help="file that releases them")
    p.add_argument(
        "--schema-dir",
        type=Path,
        default=None,
        help="validate every document against DIR/case-document.v<N>.schema.json (422 when it"
        " does not match); the harvest publishes them in docs/schema",
    )
    p.add_argument("--access-log", action="store_true", help="log every request (uvicorn)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    tokens = tuple(args.token) or tuple(t for t in [os.environ.get(TOKEN_ENV, "")] if t)
    try:
        faults = Faults.mixed(
            args.faults,
            error_500=args.fault_500,
            unavailable_503=args.fault_503,
            slow=args.fault_slow,
            drop=args.fault_drop,
            retry_after=args.retry_after,
            slow_seconds=args.slow_seconds,
            seed=args.seed,
        )
        config = ServerConfig(
            db_path=args.db,
            tokens=tokens,
            read_tokens=tuple(args.read_token),
            max_body_bytes=args.max_body,
            faults=faults,
            hold_first=args.hold_first,
            hold_release=args.hold_release,
            schema_dir=args.schema_dir,
        )
        if args.schema_dir is not None:
            DocumentSchemas(args.schema_dir)  # a bad directory fails here, in one line
    except (ConfigError, SchemaFileError) as exc:
        print(f"ingest_api: {exc}", file=sys.stderr)
        return 2
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        print(f"ingest_api: cannot bind {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return 1
    host, port = sock.getsockname()[:2]
    # announced once the database and its tables exist: a client (a test reading the
    # server's rows) may use both as soon as it reads this line
    serve(
        config,
        sock,
        access_log=args.access_log,
        ready=lambda: print(f"ingest_api listening on http://{host}:{port}", flush=True),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
