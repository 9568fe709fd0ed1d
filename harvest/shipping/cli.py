"""The command line of ``ship.py`` (and the ``harvest-ship`` console script).

:func:`main` parses options, opens the workspace (lock, ship-log, item store), runs
:func:`~harvest.shipping.run.ship`, :func:`~harvest.shipping.run.plan` (``--dry-run``) or
:func:`~harvest.shipping.shiplog.compact_log` (``--compact-log``), and maps every expected
failure to an :class:`~harvest.shipping.errors.ExitStatus` with a one-line message (no
traceback). Everything it prints passes through the token scrubber.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import FrameType
from typing import IO, Any

from harvest.base.workspace import (
    SHIP_LOG,
    WORKSPACE_ENV,
    WorkspaceError,
    open_private,
    resolve_workspace,
)
from harvest.shipping.documents import open_documents
from harvest.shipping.endpoints import ENDPOINT_ENV, TOKEN_ENV, EndpointPool, parse_endpoints
from harvest.shipping.errors import (
    ConfigError,
    ExitStatus,
    Interrupted,
    Scrubber,
    ShipError,
    ShipLogError,
    UsageError,
)
from harvest.shipping.policy import (
    DEFAULT_BACKOFF_BASE,
    DEFAULT_BACKOFF_CAP,
    DEFAULT_BREAKER,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_MAX_ITEM_SECONDS,
    DEFAULT_RETRY_AFTER_CAP,
    RetryPolicy,
)
from harvest.shipping.progress import (
    DEFAULT_PROGRESS_INTERVAL,
    Progress,
    ProgressAwareHandler,
    Summary,
)
from harvest.shipping.run import DEFAULT_CONCURRENCY, plan, ship
from harvest.shipping.shiplog import (
    SHIP_LOCK,
    SYNC_EVERY,
    SYNC_SECONDS,
    ShipLog,
    WorkspaceLock,
    compact_log,
    read_ship_log,
    repair_tail,
)
from harvest.shipping.transport import DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT, RequestsTransport

__all__ = ["build_parser", "cli", "main", "workspace_of"]

#: The logger every module of the package logs under (their ``__name__`` is below it).
logger = logging.getLogger("harvest.shipping")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message} (see --help)")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="ship.py",
        description="Ship the workspace's case documents to the ingest API (docs/shipping.md).",
        epilog=f"The bearer token is read from {TOKEN_ENV} only. Exit codes: "
        + ", ".join(f"{s.value} {s.name.lower()}" for s in ExitStatus)
        + ". See docs/shipping.md.",
    )
    p.add_argument(
        "--workspace",
        help=f"workspace directory (default: ${WORKSPACE_ENV}, else ./workspace by scrapy.cfg)",
    )
    p.add_argument(
        "--endpoint",
        action="append",
        default=[],
        help=f"ingest API base URL; repeat for fallbacks, in order (default: ${ENDPOINT_ENV})",
    )
    p.add_argument(
        "--allow-plain-http",
        action="store_true",
        help="allow an http:// endpoint that is not on this machine (token sent unencrypted)",
    )
    p.add_argument("--include-partial", action="store_true", help="also ship incomplete cases")
    p.add_argument("--limit", type=int, help="send at most N documents this run")
    p.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        help=f"kept-alive connections sending at once (default {DEFAULT_CONCURRENCY})",
    )
    p.add_argument("--max-attempts", type=int, default=DEFAULT_MAX_ATTEMPTS)
    p.add_argument("--max-item-seconds", type=float, default=DEFAULT_MAX_ITEM_SECONDS)
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="read timeout (s)")
    p.add_argument("--connect-timeout", type=float, default=DEFAULT_CONNECT_TIMEOUT)
    p.add_argument("--backoff-base", type=float, default=DEFAULT_BACKOFF_BASE)
    p.add_argument("--backoff-cap", type=float, default=DEFAULT_BACKOFF_CAP)
    p.add_argument("--retry-after-cap", type=float, default=DEFAULT_RETRY_AFTER_CAP)
    p.add_argument(
        "--breaker",
        type=int,
        default=DEFAULT_BREAKER,
        help="stop after N documents in a row failed after all retries",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="report what would be sent; send and write nothing"
    )
    p.add_argument("--out", help="with --dry-run: write the request bodies here (- for stdout)")
    p.add_argument(
        "--compact-log",
        action="store_true",
        help="rewrite the ship-log to one line per shipped key (under the lock), then exit",
    )
    p.add_argument(
        "--progress-interval",
        type=float,
        default=DEFAULT_PROGRESS_INTERVAL,
        help="seconds between progress lines when stderr is not a terminal",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log every decision")
    p.add_argument("-q", "--quiet", action="store_true", help="warnings and errors only")
    return p


def workspace_of(option: str | None, env: Mapping[str, str], cwd: Path) -> Path:
    """The workspace: ``--workspace`` (a command-line path: relative to the current directory),
    else ``$HARVEST_WORKSPACE`` read as the crawl reads it
    (:func:`harvest.base.workspace.resolve_workspace`)."""
    value = (cwd / Path(option).expanduser()).resolve() if option else env.get(WORKSPACE_ENV)
    try:
        return resolve_workspace(value, start=cwd)
    except WorkspaceError as exc:
        raise ConfigError(f"{exc}; or give ship.py --workspace DIR") from exc


#: The shortest ``INGEST_TOKEN`` accepted (a 16-character random token has >= 64 bits).
MIN_TOKEN_CHARS = 16


def _read_token(env: Mapping[str, str]) -> str:
    token = env.get(TOKEN_ENV, "").strip()
    if not token:
        raise ConfigError(f"no ingest token: set {TOKEN_ENV} to the ingest API's bearer token")
    if any(ord(c) < 0x21 or ord(c) > 0x7E for c in token):
        raise ConfigError(
            f"{TOKEN_ENV} contains spaces, control or non-ASCII characters; a bearer token is "
            "printable ASCII"
        )
    if len(token) < MIN_TOKEN_CHARS:
        # a short token is guessable, and every message would show "<token>" for each of its
        # occurrences in ordinary words
        raise ConfigError(
            f"{TOKEN_ENV} has {len(token)} characters: too short to be a secret (at least "
            f"{MIN_TOKEN_CHARS}); set it to the ingest API's bearer token"
        )
    return token


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(f"stopped by signal {signal.Signals(signum).name}")


def main(argv: list[str] | None = None, *, env: Mapping[str, str] | None = None) -> int:
    """Run ``ship.py``; returns an :class:`ExitStatus` value. Never raises for expected errors."""
    env = os.environ if env is None else env
    progress_ref: list[Progress] = []
    given = env.get(TOKEN_ENV, "").strip()
    # a token too short to be secret is refused, never printed: scrubbing it would garble words
    scrub = Scrubber(given if len(given) >= MIN_TOKEN_CHARS else None)
    try:
        args = build_parser().parse_args(argv)
    except UsageError as exc:
        print(scrub(str(exc)), file=sys.stderr)
        return ExitStatus.USAGE
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    handler = ProgressAwareHandler(sys.stderr, progress_ref)
    handler.setFormatter(logging.Formatter("%(asctime)s ship %(levelname)s: %(message)s"))
    handler.addFilter(scrub)
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(
        logging.DEBUG if args.verbose else logging.WARNING if args.quiet else logging.INFO
    )
    previous_sigterm = signal.getsignal(signal.SIGTERM)
    in_main_thread = True
    try:
        signal.signal(signal.SIGTERM, _raise_interrupted)
    except ValueError:  # not the main thread (main() called from a test thread)
        in_main_thread = False
    try:
        return _run(args, env, progress_ref, scrub)
    except ShipError as exc:
        for p in progress_ref:
            p.clear()
        logger.error("%s", scrub(str(exc)))
        return exc.exit_status
    except KeyboardInterrupt:
        logger.error("interrupted")
        return ExitStatus.INTERRUPTED
    except Exception:  # a bug: its traceback goes through the scrubbing handler, not stderr
        logger.critical("unexpected error (a bug in ship.py; please report it)", exc_info=True)
        return ExitStatus.SOFTWARE
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous_sigterm)
        logger.removeHandler(handler)
        logger.propagate = True


def cli() -> None:
    """The ``harvest-ship`` console script."""
    raise SystemExit(main())


def _run(
    args: argparse.Namespace,
    env: Mapping[str, str],
    progress_ref: list[Progress],
    scrub: Scrubber,
) -> int:
    if args.out and not args.dry_run:
        raise UsageError("ship.py: --out only goes with --dry-run (see --help)")
    if args.compact_log and args.dry_run:
        raise UsageError("ship.py: --compact-log does not go with --dry-run (see --help)")
    if args.limit is not None and args.limit < 0:
        raise UsageError("ship.py: --limit must be >= 0")
    if args.concurrency < 1:
        raise UsageError("ship.py: --concurrency must be >= 1")
    for name in ("timeout", "connect_timeout", "progress_interval"):
        if not getattr(args, name) > 0:
            raise UsageError(f"ship.py: --{name.replace('_', '-')} must be > 0")
    policy = RetryPolicy(
        max_attempts=args.max_attempts,
        max_item_seconds=args.max_item_seconds,
        backoff_base=args.backoff_base,
        backoff_cap=args.backoff_cap,
        retry_after_cap=args.retry_after_cap,
        breaker=args.breaker,
    )
    workspace = workspace_of(args.workspace, env, Path.cwd())
    log_path = workspace / SHIP_LOG
    if args.dry_run:
        return _dry_run(args, workspace, log_path)
    if args.compact_log:
        return _compact(workspace, log_path)

    if args.endpoint:
        raw, source = list(args.endpoint), "--endpoint"
    else:
        raw, source = env.get(ENDPOINT_ENV, "").split(","), ENDPOINT_ENV
    endpoints = parse_endpoints(raw, source=source, allow_plain_http=args.allow_plain_http)
    token = _read_token(env)
    scrub.set(token)
    if not workspace.is_dir():
        raise ConfigError(
            f"workspace {str(workspace)!r} does not exist; run a crawl first or point "
            f"--workspace / {WORKSPACE_ENV} at it"
        )
    # The lock first: it is the first write, so a full disk or a read-only workspace shows up
    # as what it is (exit 74) before anything else is opened.
    lock = WorkspaceLock(workspace / SHIP_LOCK)
    lock.acquire()
    close_store: Callable[[], None] | None = None
    try:
        documents, total, close_store = open_documents(
            workspace, include_partial=args.include_partial
        )
        summary = Summary(total=total)
        started = time.monotonic()
        try:
            cut = repair_tail(log_path)
        except OSError as exc:
            raise ShipLogError(
                f"cannot repair ship-log {str(log_path)!r}: {exc.strerror}; free space or fix "
                "permissions, then run again"
            ) from exc
        if cut:
            logger.warning(
                "ship-log %s ended in a torn line: cut %d bytes away (that attempt is re-sent)",
                log_path,
                cut,
            )
        t0 = time.monotonic()
        state = read_ship_log(log_path)
        shipped_before = state.shipped.count_shipped()
        logger.info(
            "ship-log: %.1f MB, %d documents shipped before (read in %.2fs); %d documents in %s",
            state.size / 1e6,
            shipped_before,
            time.monotonic() - t0,
            total,
            workspace,
        )
        if args.limit is not None:  # the run ends after --limit sends (skips come on top)
            summary.total = min(total, args.limit + shipped_before)
        pool = EndpointPool(endpoints, preferred=state.endpoint)
        if state.endpoint in endpoints and state.endpoint != endpoints[0]:
            logger.info("starting with %s, the endpoint that worked last time", state.endpoint)
        log = ShipLog.open(log_path, sync_every=SYNC_EVERY, sync_seconds=SYNC_SECONDS)
        log.start_flusher()

        def transports() -> RequestsTransport:
            return RequestsTransport(
                token,
                endpoints=endpoints,
                connect_timeout=args.connect_timeout,
                read_timeout=args.timeout,
            )

        progress = Progress(
            sys.stderr,
            total=summary.total,
            tty=sys.stderr.isatty(),
            interval=args.progress_interval,
        )
        progress_ref.append(progress)
        try:
            ship(
                documents,
                transports=transports,
                concurrency=args.concurrency,
                log=log,
                policy=policy,
                endpoints=pool,
                shipped=state.shipped,
                summary=summary,
                limit=args.limit,
                progress=progress,
                secret=token,
            )
        except ShipError as exc:
            summary.stopped = scrub(str(exc))
            raise
        except KeyboardInterrupt:
            summary.stopped = "interrupted"
            raise
        finally:
            progress.clear()
            try:
                log.close()
            finally:
                print(
                    ("stopped early: " if summary.stopped else "")
                    + summary.line(time.monotonic() - started),
                    flush=True,
                )
    finally:
        if close_store is not None:
            close_store()
        lock.release()
    if summary.rejected or summary.failed:
        return ExitStatus.SOME_FAILED
    return ExitStatus.OK


def _compact(workspace: Path, log_path: Path) -> int:
    """``--compact-log``: under the lock, cut a torn tail, then rewrite the log."""
    if not workspace.is_dir():
        raise ConfigError(f"workspace {str(workspace)!r} does not exist")
    lock = WorkspaceLock(workspace / SHIP_LOCK)
    lock.acquire()
    try:
        try:
            cut = repair_tail(log_path)
        except OSError as exc:
            raise ShipLogError(f"cannot repair ship-log {str(log_path)!r}: {exc}") from exc
        if cut:
            logger.warning("ship-log %s ended in a torn line: cut %d bytes", log_path, cut)
        result = compact_log(log_path)
    finally:
        lock.release()
    print(
        f"compacted {log_path}: {result.lines_before} lines ({result.bytes_before} bytes) -> "
        f"{result.lines_after} lines ({result.bytes_after} bytes), one per shipped key",
        flush=True,
    )
    return ExitStatus.OK


def _dry_run(args: argparse.Namespace, workspace: Path, log_path: Path) -> int:
    """Read-only: no lock taken, no file in the workspace touched, no request sent."""
    if args.endpoint:  # validate only
        parse_endpoints(args.endpoint, source="--endpoint", allow_plain_http=args.allow_plain_http)
    documents, total, close_store = open_documents(workspace, include_partial=args.include_partial)
    try:
        state = read_ship_log(log_path)
        if state.torn_tail:
            logger.warning(
                "ship-log %s ends in a torn line (%d bytes) that a real run would cut away",
                log_path,
                state.torn_tail,
            )
        out: IO[bytes] | None = None
        report = sys.stdout
        if args.out == "-":
            out, report = sys.stdout.buffer, sys.stderr
        elif args.out:
            try:
                fd = open_private(Path(args.out), os.O_WRONLY | os.O_TRUNC)
            except OSError as exc:
                raise ConfigError(f"cannot write --out {args.out!r}: {exc.strerror}") from exc
            out = os.fdopen(fd, "wb")
        try:
            result = plan(documents, shipped=state.shipped, limit=args.limit, out=out)
        finally:
            if out is not None and args.out != "-":
                out.close()
            elif out is not None:
                out.flush()
    finally:
        close_store()
    print(
        f"dry run: {total} documents in {workspace}; would send {result.send} "
        f"(new {result.new}, changed {result.changed}), skip {result.skip} (already shipped "
        f"with the same content), reject {result.invalid} (invalid); nothing was sent or "
        "written to the ship-log",
        file=report,
        flush=True,
    )
    return ExitStatus.SOME_FAILED if result.invalid else ExitStatus.OK
