"""``python -m reference.sipp_site``: serve the replica, or write its ground truth.

Options are documented in docs/replica.md. Once bound it prints
``listening on http://HOST:PORT/`` (``--port 0``: the port the system gave it). ``SIGUSR1``
switches every fault off while it keeps serving (same data, address and tokens: the court is
healthy again) and answers with the line ``faults off``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import logging
import signal
import sys
import time
from pathlib import Path

from .challenge import Challenge
from .court import FIRST_DAY, TODAY, VARIANTS, make_court
from .faults import FAULTS_OFF_LINE, KINDS, FaultConfig, FaultConfigError, FaultPicker
from .model import CourtData, ModelError, write_truth_file
from .server import Replica, ServerOptions, serve
from .site import Site
from .tokens import TokenCodec
from .views_2021 import VERSIONS


def as_of_day(text: str) -> dt.date:
    """``--as-of``: a day ``YYYY-MM-DD`` from FIRST_DAY on."""
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a day: give YYYY-MM-DD, e.g. {TODAY.isoformat()}"
        ) from None
    if day < FIRST_DAY:
        raise argparse.ArgumentTypeError(
            f"{day.isoformat()} is before the court's first registration day "
            f"{FIRST_DAY.isoformat()}: give a later day"
        )
    return day


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m reference.sipp_site",
        description=(
            "A local SIPP court site (replica) with seeded data, faults and a JS gate. "
            "SIGUSR1 switches the faults off (it prints 'faults off')."
        ),
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument(
        "--port", type=int, default=8800, help="port; 0 picks a free one (default 8800)"
    )
    p.add_argument(
        "--cases",
        type=int,
        default=500,
        help=f"cases registered {FIRST_DAY.isoformat()} .. {TODAY.isoformat()} (default 500)",
    )
    p.add_argument(
        "--as-of",
        type=as_of_day,
        default=TODAY,
        metavar="YYYY-MM-DD",
        help=(
            "show the court as it stands on this day: the cases registered by then (the same "
            f"rate goes on after {TODAY.isoformat()}) and the events that have happened "
            f"(default {TODAY.isoformat()})"
        ),
    )
    p.add_argument("--seed", type=int, default=1, help="data seed (default 1)")
    p.add_argument(
        "--variant",
        choices=VARIANTS,
        default="pn",
        help="court kind: pn, pa, ptun or militer (default pn)",
    )
    p.add_argument(
        "--base-path",
        default="/",
        help="serve the site under this path, as a sub-path install does (e.g. /sipp/)",
    )
    p.add_argument(
        "--court-id", default=None, help="court id in the truth (default pn-replika / pa-replika)"
    )
    p.add_argument(
        "--truth", type=Path, default=None, help="write the ground truth JSONL and exit"
    )
    p.add_argument(
        "--registered",
        type=int,
        default=0,
        help="cases registered after the initial --cases (as --live would have); default 0",
    )
    p.add_argument("--faults", type=float, default=0.0, help="total fault rate over all kinds")
    for kind in KINDS:
        p.add_argument(
            f"--fault-{kind.replace('_', '-')}",
            dest=f"fault_{kind}",
            type=float,
            default=None,
            help=f"rate of the {kind} fault (overrides its share of --faults)",
        )
    p.add_argument("--slow-seconds", type=float, default=3.0, help="delay of a slow response")
    p.add_argument(
        "--hang-seconds", type=float, default=120.0, help="how long a hung connection stays open"
    )
    p.add_argument("--fault-seed", type=int, default=None, help="seed of the fault draws")
    p.add_argument("--challenge", action="store_true", help="turn on the JavaScript gate")
    p.add_argument(
        "--broken-pages",
        action="store_true",
        help="serve the pages the real app breaks (a detail page cut by a PHP fatal error, "
        "...) on the cases that have them; the truth is what those pages show",
    )
    p.add_argument(
        "--views",
        choices=VERSIONS,
        default=VERSIONS[0],
        help="the SIPP web version whose words the pages use (2021: backup_sip's views; "
        "the truth is what those pages show); default %(default)s",
    )
    p.add_argument(
        "--same-day",
        type=int,
        default=0,
        metavar="N",
        help="register the cases in blocks of N on one day, and order the cases of one day "
        "differently on every request (as MySQL orders ties of tglPendaftaran DESC ... LIMIT: "
        "a walk of the list pages can skip or repeat them); default 0: off",
    )
    p.add_argument("--live", action="store_true", help="register new cases while serving")
    p.add_argument(
        "--live-interval", type=float, default=2.0, help="seconds between live registrations"
    )
    p.add_argument("--live-max", type=int, default=1000, help="stop registering after this many")
    p.add_argument(
        "--latency",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="every answer waits this long before it is sent (asynchronously: many requests "
        "wait at once); default 0",
    )
    p.add_argument("--access-log", action="store_true", help="print each request to stderr")
    p.add_argument(
        "--no-gzip",
        action="store_true",
        help="never gzip responses (default: gzip when the client sends Accept-Encoding: gzip)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s: %(message)s"
    )
    try:
        court = make_court(args.variant, args.court_id)
        t0 = time.monotonic()
        data = CourtData(
            court,
            seed=args.seed,
            cases=args.cases,
            as_of=args.as_of,
            broken_pages=args.broken_pages,
            views=args.views,
            same_day=args.same_day,
        )
        for _ in range(max(args.registered, 0)):
            data.register()
        overrides = {
            k: getattr(args, f"fault_{k}")
            for k in KINDS
            if getattr(args, f"fault_{k}") is not None
        }
        faults = FaultConfig.mixed(
            args.faults,
            overrides,
            slow_seconds=args.slow_seconds,
            hang_seconds=args.hang_seconds,
        )
    except (ModelError, FaultConfigError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.latency < 0:
        print(
            f"error: --latency {args.latency} is negative: give 0 or more seconds", file=sys.stderr
        )
        return 2
    base_path = "/" + args.base_path.strip("/") + "/" if args.base_path.strip("/") else "/"
    if args.truth is not None:
        n = write_truth_file(data, args.truth)
        print(f"wrote {n} case documents to {args.truth}", flush=True)
        return 0
    codec = TokenCodec(args.seed)
    site = Site(data, codec=codec)
    options = ServerOptions(
        challenge=args.challenge,
        live_interval=args.live_interval if args.live else 0.0,
        live_max=args.live_max,
        access_log=args.access_log,
        gzip=not args.no_gzip,
        base_path=base_path,
        latency=args.latency,
    )
    replica = Replica(site, FaultPicker(faults, args.fault_seed), Challenge(codec), options)
    print(
        f"replica {court.court_id} ({args.variant}): {len(data)} cases, seed {args.seed}, "
        f"as of {data.as_of.isoformat()}, "
        f"faults {faults.total:.3f}, challenge {'on' if args.challenge else 'off'}, "
        f"live {'on' if args.live else 'off'}; index built in {time.monotonic() - t0:.2f}s",
        flush=True,
    )
    return _run(replica, args.host, args.port)


def _faults_off(replica: Replica) -> None:
    """SIGUSR1: the court is healthy again. Same data, same address, same tokens; no faults."""
    replica.faults = FaultPicker(FaultConfig())
    print(FAULTS_OFF_LINE, flush=True)


def _run(replica: Replica, host: str, port: int) -> int:
    loop = asyncio.new_event_loop()
    task = loop.create_task(serve(replica, host, port))
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, task.cancel)
    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGUSR1, _faults_off, replica)
    try:
        loop.run_until_complete(task)
    except asyncio.CancelledError:
        pass
    except OSError as exc:
        print(
            f"error: cannot serve on {host}:{port}: {exc}; "
            "give another --port (0 picks a free one)",
            file=sys.stderr,
        )
        return 1
    finally:
        # hung and slow responses still waiting: cancel them so shutdown is quiet and prompt
        pending = asyncio.all_tasks(loop)
        for t in pending:
            t.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
