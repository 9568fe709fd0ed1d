"""Many replica courts from ONE process: ``python -m reference.sipp_site.national PLAN.json``.

A *plan* (JSON) lists the courts; each is played on a loopback address (``127.0.0.x``) and a
port, and, when several courts share an address and port, by the ``Host`` name a request
carries (a virtual host). One asyncio loop serves every court, so a national harvest (tens or
hundreds of courts) runs against one process::

    {"port": 0,                      # the replica's "standard" port (0: one picked free)
     "courts": [
       {"court_id": "pn-a", "variant": "pn", "cases": 3, "seed": 11, "address": "127.0.0.2"},
       {"court_id": "pn-b", "address": "127.0.0.3", "answer": "forbidden"},
       {"court_id": "pn-c", "address": "127.0.0.4", "answer": "moved", "moved_to": "127.0.0.5"},
       {"court_id": "pn-d", "address": "127.0.0.6", "answer": "down"},
       {"court_id": "pn-e", "address": "127.0.0.7", "challenge": true},
       {"court_id": "pn-f", "address": "127.0.0.8", "base_path": "/sipp/"},
       {"court_id": "pn-g", "address": "127.0.0.2", "port": "other"},
       {"court_id": "pn-h", "address": "127.0.0.9", "answer": "not_sipp"}]}

``answer``: ``sipp`` (default: the court's SIPP site, :class:`reference.sipp_site.site.Site`),
``forbidden`` (every request 403, as a WAF that refuses the client), ``moved`` (every request a
301 to the same path on ``moved_to``, where the court's SIPP is served: a court that moved to
another host), ``down`` (nothing listens: connection refused), ``not_sipp`` (a web page that is
not a SIPP site). ``challenge``: the JavaScript gate in front of the site. ``base_path``: a
sub-path install. ``port``: ``"other"`` puts the court on the replica's second port (a court
on a non-standard port, sharing its address with a court on the standard port). ``host_name``:
a court reached by that ``Host`` name on a shared address and port.

Once every court is bound it prints one ``court <court_id> <url>`` line per court (the down
ones too: their URL refuses connections) and then ``national replica ready``. With
``--access-log`` every request is printed as ``hit <court_id> <METHOD> <path> <client>``
(``browser`` when it carries a browser's ``Sec-Fetch-Mode`` header, else ``http``): what a test
counts to prove nothing was asked of a court, and what went through the browser. ``--truth
DIR`` writes each SIPP court's ground truth to ``DIR/<court_id>.jsonl`` and exits.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from .challenge import Challenge
from .court import VARIANTS, make_court
from .faults import FaultConfig, FaultPicker
from .model import CourtData, write_truth_file
from .server import HttpProtocol, Replica, ServerOptions
from .site import Request, Response, Site
from .tokens import TokenCodec

__all__ = ["ANSWERS", "NationalCourt", "PlanError", "load_plan", "main"]

ANSWERS = ("sipp", "forbidden", "moved", "down", "not_sipp")
READY_LINE = "national replica ready"

FORBIDDEN_PAGE = (
    "<html><head><title>403 Forbidden</title></head><body><center><h1>403 Forbidden</h1>"
    "</center><hr><center>nginx</center></body></html>"
)
NOT_SIPP_PAGE = (
    "<!DOCTYPE html><html><head><title>Selamat Datang</title></head><body><h1>Selamat "
    "Datang di Website Resmi</h1><p>Berita, pengumuman dan layanan publik.</p></body></html>"
)


class PlanError(ValueError):
    """The plan cannot be used; the message names the court and the fix."""


@dataclasses.dataclass(frozen=True)
class NationalCourt:
    """One court of a plan."""

    court_id: str
    address: str
    variant: str = "pn"
    cases: int = 3
    seed: int = 1
    answer: str = "sipp"
    challenge: bool = False
    base_path: str = "/"
    port: str = "standard"  # or "other"
    moved_to: str | None = None
    host_name: str | None = None

    @classmethod
    def from_json(cls, raw: Any, position: int) -> NationalCourt:
        if not isinstance(raw, dict) or not raw.get("court_id") or not raw.get("address"):
            raise PlanError(f"court {position}: give an object with court_id and address")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise PlanError(f"court {position}: unknown field(s) {', '.join(unknown)}")
        court = cls(**raw)
        if court.answer not in ANSWERS:
            raise PlanError(f"court {court.court_id}: answer must be one of {', '.join(ANSWERS)}")
        if court.variant not in VARIANTS:
            raise PlanError(f"court {court.court_id}: variant must be one of {VARIANTS}")
        if court.port not in ("standard", "other"):
            raise PlanError(f"court {court.court_id}: port must be 'standard' or 'other'")
        if court.answer == "moved" and not court.moved_to:
            raise PlanError(f"court {court.court_id}: answer 'moved' needs moved_to (an address)")
        if not court.address.startswith("127."):
            raise PlanError(f"court {court.court_id}: address must be on 127.0.0.0/8")
        path = "/" + court.base_path.strip("/") + "/" if court.base_path.strip("/") else "/"
        return dataclasses.replace(court, base_path=path)

    @property
    def serves_sipp(self) -> bool:
        """Whether the court's SIPP site is served (at its address, or where it moved)."""
        return self.answer in ("sipp", "moved")


def load_plan(path: Path) -> tuple[int, list[NationalCourt]]:
    """The plan's standard port and its courts (a court id twice is an error)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PlanError(f"cannot read the plan {str(path)!r}: {exc}") from None
    courts = [NationalCourt.from_json(c, i) for i, c in enumerate(raw.get("courts") or [], 1)]
    ids = [c.court_id for c in courts]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise PlanError(f"court id(s) given twice: {', '.join(twice)}")
    if not courts:
        raise PlanError(f"the plan {str(path)!r} has no court")
    return int(raw.get("port") or 0), courts


def _data(court: NationalCourt) -> CourtData:
    return CourtData(make_court(court.variant, court.court_id), seed=court.seed, cases=court.cases)  # type: ignore[arg-type]


class _Endpoint:
    """What one address and port serves: courts by ``Host`` name, and a default court."""

    def __init__(self) -> None:
        self.by_name: dict[str, tuple[NationalCourt, Replica | None]] = {}
        self.default: tuple[NationalCourt, Replica | None] | None = None

    def pick(self, host_header: str) -> tuple[NationalCourt, Replica | None] | None:
        name = host_header.rsplit(":", 1)[0].lower() if host_header else ""
        return self.by_name.get(name, self.default)


class _NationalProtocol(HttpProtocol):
    """A connection of one endpoint: each request answered by the court its ``Host`` names."""

    def __init__(self, endpoint: _Endpoint, port: int, access_log: bool) -> None:
        first = endpoint.default or next(iter(endpoint.by_name.values()))
        assert first[1] is not None or True
        super().__init__(_placeholder(), port)
        self.endpoint = endpoint
        self.access_log = access_log
        self._court: NationalCourt | None = None

    def _answer(self, req: Request, keep_alive: bool) -> None:
        picked = self.endpoint.pick(req.headers.get("host", ""))
        if picked is None:
            self._write(Response.html(FORBIDDEN_PAGE, 404), keep_alive, req.method == "HEAD")
            return
        court, replica = picked
        if self.access_log:
            # a browser sends fetch metadata (Sec-Fetch-*); Scrapy and urllib do not
            client = "browser" if "sec-fetch-mode" in req.headers else "http"
            print(f"hit {court.court_id} {req.method} {req.path} {client}", flush=True)
        head = req.method == "HEAD"
        if court.answer == "forbidden":
            self._write(Response.html(FORBIDDEN_PAGE, 403), keep_alive, head)
            return
        if court.answer == "not_sipp":
            self._write(Response.html(NOT_SIPP_PAGE), keep_alive, head)
            return
        if court.answer == "moved":
            port = f":{self.port}"
            target = f"http://{court.moved_to}{port}{req.path}"
            resp = Response(301, b"", [("Location", target), ("Content-Type", "text/html")])
            self._write(resp, keep_alive, head)
            return
        assert replica is not None
        self.replica = replica
        super()._answer(req, keep_alive)


def _placeholder() -> Replica:
    return _PLACEHOLDER


def _make_replica(court: NationalCourt, data: CourtData) -> Replica:
    codec = TokenCodec(court.seed)
    options = ServerOptions(challenge=court.challenge, base_path=court.base_path)
    return Replica(Site(data, codec=codec), FaultPicker(FaultConfig()), Challenge(codec), options)


_PLACEHOLDER: Replica = None  # type: ignore[assignment]  # set per request (_answer)


def _free_port(address: str) -> int:
    with socket.socket() as sock:
        sock.bind((address, 0))
        return int(sock.getsockname()[1])


async def serve_plan(
    port: int, courts: list[NationalCourt], *, access_log: bool = False, tries: int = 8
) -> None:
    """Bind every court's endpoint and serve until cancelled (prints the court lines)."""
    replicas: dict[str, Replica] = {}
    for court in courts:
        if court.serves_sipp:
            replicas[court.court_id] = _make_replica(court, _data(court))
    loop = asyncio.get_running_loop()
    for attempt in range(tries):
        standard = port or _free_port(courts[0].address)
        other = _free_port(courts[0].address)
        endpoints: dict[tuple[str, int], _Endpoint] = {}
        urls: dict[str, str] = {}
        for court in courts:
            court_port = standard if court.port == "standard" else other
            shown = court.host_name or court.address
            urls[court.court_id] = f"http://{shown}:{court_port}{court.base_path}"
            if court.answer == "down":
                continue
            entries = [(court.address, court)]
            if court.answer == "moved":
                assert court.moved_to is not None
                moved = dataclasses.replace(court, answer="sipp", address=court.moved_to)
                entries.append((court.moved_to, moved))
            for address, shown_court in entries:
                endpoint = endpoints.setdefault((address, court_port), _Endpoint())
                pair = (shown_court, replicas.get(court.court_id))
                if shown_court.host_name and address == court.address:
                    endpoint.by_name[shown_court.host_name.lower()] = pair
                else:
                    endpoint.default = pair
        servers = []
        try:
            for (address, bound), endpoint in endpoints.items():
                server = await loop.create_server(
                    lambda e=endpoint, p=bound: _NationalProtocol(e, p, access_log),  # type: ignore[misc]
                    address,
                    bound,
                    reuse_address=True,
                    backlog=512,
                )
                servers.append(server)
        except OSError:
            for server in servers:
                server.close()
            if port or attempt == tries - 1:
                raise
            continue  # a port taken on one of the addresses: pick others
        break
    for court in courts:
        print(f"court {court.court_id} {urls[court.court_id]}", flush=True)
    print(READY_LINE, flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        for server in servers:
            server.close()


def write_truths(courts: list[NationalCourt], directory: Path) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    n = 0
    for court in courts:
        if court.serves_sipp:
            n += write_truth_file(_data(court), directory / f"{court.court_id}.jsonl")
    return n


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m reference.sipp_site.national",
        description="Many replica courts on loopback addresses from one process (a plan file).",
    )
    p.add_argument("plan", type=Path, help="the plan (JSON): the port and the courts")
    p.add_argument("--access-log", action="store_true", help="print each request as 'hit ...'")
    p.add_argument("--truth", type=Path, default=None, help="write DIR/<court>.jsonl and exit")
    args = p.parse_args(argv)
    try:
        port, courts = load_plan(args.plan)
    except PlanError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.truth is not None:
        n = write_truths(courts, args.truth)
        print(f"wrote {n} case documents to {args.truth}", flush=True)
        return 0
    loop = asyncio.new_event_loop()
    task = loop.create_task(serve_plan(port, courts, access_log=args.access_log))
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, task.cancel)
    try:
        loop.run_until_complete(task)
    except asyncio.CancelledError:
        pass
    except OSError as exc:
        print(f"error: cannot bind the plan's courts: {exc}", file=sys.stderr)
        return 1
    finally:
        loop.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
