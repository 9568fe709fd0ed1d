"""Run the replica in a subprocess for tests, benchmarks and demos.

``with running_replica(cases=200) as rep: requests.get(rep.url)`` starts
``python -m reference.sipp_site`` on 127.0.0.1 port 0 (the replica binds it and prints the port
it got), waits until it answers and stops it (SIGTERM, then kill) on exit. Fault draws are seeded
(``fault_seed``, default the data ``seed``). :meth:`Replica.faults_off` switches every fault off
while it keeps serving: same data, same address, the tokens it printed stay valid.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .court import TODAY, VARIANTS, Variant, make_court
from .faults import FAULTS_OFF_LINE
from .model import CourtData
from .sessions import PhpSessions
from .site import PHP_COOKIE, Request, Site

_LISTEN_RE = re.compile(r"listening on (http://127\.0\.0\.1:(\d+)/\S*)")
STARTUP_TIMEOUT = 60.0


class ReplicaStartError(RuntimeError):
    """The replica subprocess exited or did not listen in time."""


@dataclass
class Replica:
    """A running replica: ``url`` (with trailing slash), ``port``, and how it was started."""

    url: str
    port: int
    process: subprocess.Popen[str]
    args: list[str]
    output: list[str] = field(default_factory=list)

    def truth_args(self) -> list[str]:
        """The data options of this run (``--cases``, ``--seed``, ``--variant``, ...)."""
        keep: list[str] = []
        it = iter(self.args)
        for arg in it:
            if arg in (
                "--cases", "--seed", "--variant", "--court-id", "--registered", "--as-of",
                "--views", "--same-day",
            ):  # fmt: skip
                keep += [arg, next(it)]
            elif arg == "--broken-pages":  # a data option too: the truth is what they show
                keep.append(arg)
        return keep

    @property
    def as_of(self) -> dt.date:
        """The day this replica shows (``--as-of``; the last one given wins, as in argparse)."""
        day = TODAY
        for k, arg in enumerate(self.args[:-1]):
            if arg == "--as-of":
                day = dt.date.fromisoformat(self.args[k + 1])
        return day

    def write_truth(
        self, path: Path, *, registered: int = 0, as_of: dt.date | str | None = None
    ) -> Path:
        """Write the ground truth of this replica's data (plus ``registered`` live cases), as
        of the day it serves or, with ``as_of``, of another day (the same court on that day:
        what a refresh on that day must find)."""
        extra = ["--registered", str(registered)] if registered else []
        if as_of is not None:
            extra += ["--as-of", as_of if isinstance(as_of, str) else as_of.isoformat()]
        subprocess.run(
            [sys.executable, "-m", "reference.sipp_site", *self.truth_args(), *extra,
             "--truth", str(path)],
            check=True,
            capture_output=True,
            text=True,
            cwd=_repo_root(),
        )  # fmt: skip
        return path

    def truth_path(self, tmp: Path) -> Path:
        return self.write_truth(tmp / "truth.jsonl")

    def registered(self) -> int:
        """How many cases ``--live`` has registered so far (from the replica's output)."""
        return sum(1 for line in list(self.output) if line.startswith("registered case "))

    def faults_off(self, timeout: float = STARTUP_TIMEOUT) -> None:
        """Switch every fault off (SIGUSR1) and return once the replica says they are off."""
        before = self.output.count(FAULTS_OFF_LINE)
        self.process.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + timeout
        while self.output.count(FAULTS_OFF_LINE) == before:
            if self.process.poll() is not None:
                raise ReplicaStartError(
                    f"the replica exited with status {self.process.returncode}"
                )
            if time.monotonic() > deadline:
                raise ReplicaStartError(f"the replica did not switch its faults off in {timeout}s")
            time.sleep(0.02)


def _repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


def replica_command(
    *,
    cases: int,
    seed: int = 1,
    faults: float = 0.0,
    fault_seed: int | None = None,
    challenge: bool = False,
    live: bool = False,
    variant: str = "pn",
    court_id: str | None = None,
    port: int = 0,
    extra_args: Sequence[str] = (),
    as_of: dt.date | str | None = None,
) -> list[str]:
    """The replica's options; ``extra_args`` come last, so they win over these."""
    args = ["--port", str(port), "--cases", str(cases), "--seed", str(seed), "--variant", variant]
    if as_of is not None:
        args += ["--as-of", as_of if isinstance(as_of, str) else as_of.isoformat()]
    args += ["--fault-seed", str(seed if fault_seed is None else fault_seed)]
    if court_id:
        args += ["--court-id", court_id]
    if faults:
        args += ["--faults", str(faults)]
    if challenge:
        args.append("--challenge")
    if live:
        args.append("--live")
    return [*args, *extra_args]


@contextlib.contextmanager
def running_replica(
    *,
    cases: int,
    seed: int = 1,
    faults: float = 0.0,
    fault_seed: int | None = None,
    challenge: bool = False,
    live: bool = False,
    variant: str = "pn",
    court_id: str | None = None,
    extra_args: Sequence[str] = (),
    port: int = 0,
    as_of: dt.date | str | None = None,
) -> Iterator[Replica]:
    """Start the replica in a subprocess, yield it once it answers, stop it on exit.

    ``as_of``: the day the court is shown as of (``--as-of``; default TODAY, 2024-06-19). To
    refresh a harvest, leave the block and start again with the same ``cases``/``seed``, a
    later ``as_of`` and the same ``port``: the same cases (same numbers, same tokens) plus
    what happened in between."""
    args = replica_command(
        cases=cases, seed=seed, faults=faults, fault_seed=fault_seed, challenge=challenge,
        live=live, variant=variant, court_id=court_id, port=port, extra_args=extra_args,
        as_of=as_of,
    )  # fmt: skip
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "reference.sipp_site", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=_repo_root(),
        env=env,
    )
    output: list[str] = []
    found: dict[str, str] = {}
    ready = threading.Event()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line.rstrip("\n"))
            m = _LISTEN_RE.search(line)
            if m and not ready.is_set():
                found["url"], found["port"] = m.group(1), m.group(2)
                ready.set()
        ready.set()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        if not ready.wait(STARTUP_TIMEOUT) or "url" not in found:
            raise ReplicaStartError(
                "the replica did not start: " + " | ".join(output[-5:] or ["(no output)"])
            )
        rep = Replica(found["url"], int(found["port"]), proc, args, output)
        _wait_answering(rep.url, rep.port, proc)
        yield rep
    finally:
        _stop(proc)
        reader.join(timeout=5)
        if proc.stdout is not None:
            proc.stdout.close()


@dataclass(frozen=True)
class DayChanges:
    """What differs in a court between two as-of days (:func:`court_changes`).

    Case numbers are the normalised ``nomor_perkara`` (the truth's ``source_id``; the
    dedupe key is ``keys.dedupe_key(court_id, number)``), sorted.
    """

    before: dt.date
    after: dt.date
    #: cases on the court on ``before`` (and so on ``after`` too, when after >= before)
    cases_before: int
    #: registered in (before, after]: absent on ``before``, present on ``after``
    new_cases: tuple[str, ...]
    #: on both days, with a different ground-truth document (any part: list row, header,
    #: data umum, a tab)
    changed_documents: tuple[str, ...]
    #: on both days, with a different list row (status, parties, ...: the item's
    #: ``case.list_row``; the list's Lama Proses column grows daily and is not in it)
    changed_list_rows: tuple[str, ...]

    @property
    def refetch(self) -> tuple[str, ...]:
        """The cases a refresh on ``after`` must fetch to equal that day's truth: the new ones
        and every changed one."""
        return tuple(sorted((*self.new_cases, *self.changed_documents)))


def court_changes(
    *,
    cases: int,
    seed: int = 1,
    before: dt.date | str,
    after: dt.date | str,
    variant: str = "pn",
    court_id: str | None = None,
) -> DayChanges:
    """Which cases of the replica court (``--cases``/``--seed``/``--variant``/``--court-id``)
    change between the as-of days ``before`` and ``after``: new cases, cases whose truth
    document differs, cases whose list row differs. Computed in-process from the model
    (about 2 ms per case on each day)."""
    d1, d2 = _day(before), _day(after)
    if d2 < d1:
        raise ValueError(
            f"after ({d2.isoformat()}) is before before ({d1.isoformat()}): give the earlier "
            "day as before"
        )
    court = make_court(_variant(variant), court_id)
    one = CourtData(court, seed=seed, cases=cases, as_of=d1)
    two = CourtData(court, seed=seed, cases=cases, as_of=d2)
    docs: list[str] = []
    rows: list[str] = []
    for index in range(len(one)):
        a, b = one.case(index), two.case(index)
        if a.tabs != b.tabs or a.case_data != b.case_data:
            docs.append(a.nomor_perkara)
        if a.case_data["list_row"] != b.case_data["list_row"]:
            rows.append(a.nomor_perkara)
    new = [two.case(index).nomor_perkara for index in range(len(one), len(two))]
    return DayChanges(
        before=d1,
        after=d2,
        cases_before=len(one),
        new_cases=tuple(sorted(new)),
        changed_documents=tuple(sorted(docs)),
        changed_list_rows=tuple(sorted(rows)),
    )


_TOKEN_RE = re.compile(r"[A-Za-z0-9]{100,}={0,2}")


def page_text(site: Site, html: str) -> str:
    """``html`` with every token replaced by ``<token:PLAINTEXT>`` (what it decrypts to):
    tokens carry a random IV per render, so two renders of one page differ only in them."""

    def plain(m: re.Match[str]) -> str:
        text = site.codec.decrypt(m.group(0))
        return m.group(0) if text is None else f"<token:{text}>"

    return _TOKEN_RE.sub(plain, html)


def get_page(site: Site, path: str, *, session: str | None = None) -> str:
    """One in-process GET (no sockets, no faults), following one redirect, as
    :func:`page_text`; ``session``: a PHPSESSID to keep the one-shot value between calls."""
    base = "http://127.0.0.1/"
    cookies = {PHP_COOKIE: session or PhpSessions.new_id()}
    resp = site.handle(Request("GET", path, {"user-agent": "replica-pages/1"}, b"", cookies), base)
    if resp.status == 302:
        location = dict(resp.headers)["Location"].removeprefix(base)
        resp = site.handle(
            Request("GET", "/" + location, {"user-agent": "replica-pages/1"}, b"", cookies), base
        )
    return f"{resp.status}\n" + page_text(site, resp.body.decode("utf-8"))


def case_pages(site: Site, index: int) -> dict[str, str]:
    """The pages a crawl fetches for case ``index``: ``detail`` and ``tab:<slug>`` for every
    available tab, each as :func:`page_text` (tokens decrypted), from one warm session."""
    session = PhpSessions.new_id()
    case = site.case(index)
    token = site.codec.encrypt(str(case.id_perkara))
    pages = {"detail": get_page(site, f"/show_detil/{token}", session=session)}
    for tab in case.tab_list:
        if tab["available"]:
            slug = tab["slug"]
            pages[f"tab:{slug}"] = get_page(site, f"/show_{slug}/{token}", session=session)
    return pages


def _day(day: dt.date | str) -> dt.date:
    return day if isinstance(day, dt.date) else dt.date.fromisoformat(day)


def _variant(name: str) -> Variant:
    for v in VARIANTS:
        if v == name:
            return v
    raise ValueError(f"unknown court variant {name!r}: use one of {', '.join(VARIANTS)}")


def _wait_answering(url: str, port: int, proc: subprocess.Popen[str]) -> None:
    """Wait until the port accepts connections (no HTTP: faults may be switched on at rate 1)."""
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ReplicaStartError(f"the replica exited with status {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2):
                return
        except OSError:
            time.sleep(0.05)
    raise ReplicaStartError(f"the replica at {url} did not answer within {STARTUP_TIMEOUT:.0f}s")


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@dataclass
class NationalReplica:
    """A running national replica (:mod:`reference.sipp_site.national`): each court's URL, and
    every line it printed (``hit <court> <METHOD> <path> <client>`` with ``--access-log``)."""

    urls: dict[str, str]
    process: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)

    def hits(self, court: str, client: str | None = None) -> list[str]:
        """The requests the court received (``METHOD path``), of ``client`` only if given."""
        out = []
        for line in list(self.output):
            parts = line.split(" ")
            mine = len(parts) == 5 and parts[0] == "hit" and parts[1] == court
            if mine and (client is None or parts[4] == client):
                out.append(f"{parts[2]} {parts[3]}")
        return out


@contextlib.contextmanager
def running_national(plan: Path, *, access_log: bool = True) -> Iterator[NationalReplica]:
    """Start ``python -m reference.sipp_site.national PLAN`` and yield it once every court is
    bound; stop it on exit."""
    args = [str(plan), *(["--access-log"] if access_log else [])]
    proc = subprocess.Popen(
        [sys.executable, "-m", "reference.sipp_site.national", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=_repo_root(),
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    output: list[str] = []
    ready = threading.Event()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line.rstrip("\n"))
            if line.strip() == "national replica ready":
                ready.set()
        ready.set()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        if not ready.wait(STARTUP_TIMEOUT) or "national replica ready" not in output:
            raise ReplicaStartError(
                "the national replica did not start: " + " | ".join(output[-5:] or ["-"])
            )
        urls = {
            parts[1]: parts[2]
            for parts in (line.split(" ") for line in output)
            if len(parts) == 3 and parts[0] == "court"
        }
        yield NationalReplica(urls, proc, output)
    finally:
        _stop(proc)
        reader.join(timeout=5)
        if proc.stdout is not None:
            proc.stdout.close()
