"""The request-state store interface: what the scheduler and the commands need from storage.

The scheduler (:mod:`extensions.scheduler`) and the ``scrapy status`` / ``scrapy requeue``
commands talk only to :class:`RequestStore`. The SQLite implementation lives in
:mod:`extensions.sqlite_store`, an in-memory one (for tests) in :mod:`extensions.memory_store`; a
PostgreSQL store implements the same protocol without touching the scheduler.

A store knows nothing about Scrapy: requests arrive already serialized (``bytes``) with their key,
kind, court and group worked out by the scheduler. Every method that changes state commits before
it returns (docs/contracts.md doctrine 3).
"""

from __future__ import annotations

import dataclasses
import enum
import re
from typing import TYPE_CHECKING, Any, Final, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

__all__ = [
    "COURT_ACCESS_COLUMNS",
    "COURT_COLUMNS",
    "DEFAULT_LEASE_TTL",
    "KINDS",
    "NOTICES",
    "REQUEST_FORMAT",
    "Claimed",
    "CourtCheck",
    "CourtPause",
    "CourtRecord",
    "CrawlLocked",
    "ErrorFilter",
    "Exchange",
    "Generation",
    "NewRequest",
    "PageWarning",
    "PartsCheck",
    "RequestStore",
    "RowState",
    "RunInfo",
    "StateError",
    "Status",
    "StatusReport",
    "court_record",
    "kind_and_court",
    "merge_court",
]

#: Request kinds; ``other`` is a request without ``meta["harvest_key"]`` (fingerprint key).
KINDS = ("list", "case", "tab", "other")

#: Events that are notices, not transitions (``events`` rows recorded by :meth:`note`):
#: ``row_error`` a malformed list row (page URL and row number), ``number_clash`` two list rows
#: whose case numbers normalise to one key, ``refused`` a URL off the court or a downgrade to
#: http, ``redirect_loop`` a redirect chain that came back or ran too long, ``tls_error`` a
#: certificate that failed verification. ``scrapy status`` counts and lists them.
NOTICES = ("row_error", "number_clash", "refused", "redirect_loop", "tls_error")


class Status(enum.StrEnum):
    """Request status: ``pending -> inflight -> ok | error`` (``error -> pending`` by requeue)."""

    PENDING = "pending"
    INFLIGHT = "inflight"
    OK = "ok"
    ERROR = "error"


class StateError(RuntimeError):
    """The state database cannot be opened or used; the message says what to do."""


#: The format of a stored request (``requests.format``): 1 is ``Request.to_dict`` with callbacks
#: by spider-method name, pickled (protocol 4), what every harvest so far wrote. A row of
#: another format, or one that does not unpickle, is rebuilt from its row (kind, key, url) by
#: the spider's ``request_from_row`` (docs/scheduler.md, "Upgrades").
REQUEST_FORMAT: Final = 1

#: Seconds a court lease (the crawl lock of a shared database, :mod:`extensions.pg_store`) lives
#: without a heartbeat; ``HARVEST_LEASE_TTL`` (:mod:`extensions.config`) sets another.
DEFAULT_LEASE_TTL: Final = 60.0


class CrawlLocked(StateError):
    """Another live crawl of the same court holds its crawl lock (or lease).

    ``scope`` says where that crawl is, as far as the store knows: the workspace's lock file
    (SQLite, memory) is ``on this workspace``; a lease of a shared database names the host.
    """

    def __init__(
        self, court: str, holder: dict[str, Any], where: str, *, scope: str = "on this workspace"
    ) -> None:
        self.court = court
        self.holder = holder
        details = ", ".join(
            f"{name} {holder[name]}"
            for name in ("pid", "host", "started_at", "job", "run_id")
            if holder.get(name) not in (None, "")
        )
        super().__init__(
            f"court {court!r} is already being crawled {scope} "
            f"({details or 'holder unknown'}; lock {where}); wait for that crawl to finish or "
            "stop it (one Ctrl+C), then run again"
        )


_KIND_RE = re.compile(r"^(list|case|tab)\|([^|]+)\|")


def kind_and_court(key: str) -> tuple[str, str] | None:
    """``(kind, court)`` of a logical request key ``<kind>|<court>|...``, else ``None``."""
    m = _KIND_RE.match(key)
    return (m.group(1), m.group(2)) if m else None


@dataclasses.dataclass(frozen=True)
class RunInfo:
    """Who is crawling: recorded in ``runs`` and in the crawl lock."""

    court: str
    spider: str
    pid: int
    host: str
    job: str | None
    started_at: str


@dataclasses.dataclass(frozen=True)
class NewRequest:
    """A request seen for the first time (not yet known to be new: the store dedupes on key)."""

    key: str
    kind: str
    court: str
    group: str | None
    priority: int
    method: str
    url: str
    blob: bytes
    #: the court's generation the request belongs to (``meta[META_REFRESH_GENERATION]``): a
    #: known key whose row is of an older generation is renewed (see :meth:`RequestStore.add`)
    generation: int = 0


#: Refresh policies of a generation: ``initial`` (generation 0, the first harvest), ``due`` and
#: ``all`` (``-a refresh=...``); ``none`` is what a plain crawl asks for (start nothing new).
POLICIES = ("initial", "due", "all")


@dataclasses.dataclass(frozen=True)
class Generation:
    """One generation of a court (``generations`` row): 0 is the first harvest, each refresh of
    a finished court the next. ``today`` is the refresh policy's day (``YYYY-MM-DD``).

    ``started_now``: this :meth:`RequestStore.begin_generation` created it (else it resumes
    an unfinished one, or, when finished, a plain crawl found nothing to do).
    """

    court: str
    number: int
    policy: str
    today: str
    started_at: str
    finished_at: str | None
    started_now: bool = False

    @property
    def finished(self) -> bool:
        return self.finished_at is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "generation": self.number,
            "policy": self.policy,
            "today": self.today,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
        }


@dataclasses.dataclass(frozen=True)
class CourtRecord:
    """A court registered in the state (``courts`` table): ``scrapy courts add FILE`` writes
    them, ``-a courts=registered`` crawls them (docs/multi-court.md). ``listing`` and ``tabs``
    as the court list gave them (``None``: the crawl's own); ``added_at`` set by the store.

    The court directory's facts (``kind``, ``name``, ``city``, ``province``, ``high_court``;
    ``None``: not given, a known value is kept), the court's ``proxy`` (a proxy URL without
    credentials, or ``env:NAME``: the environment variable holding it) and the result of its
    last ``scrapy courts check`` (``access`` .. ``checked_at``, :class:`CourtCheck`;
    docs/national.md)."""

    court: str
    base_url: str
    listing: str | None = None
    tabs: str | None = None
    added_at: str = ""
    kind: str | None = None
    name: str | None = None
    city: str | None = None
    province: str | None = None
    high_court: str | None = None
    proxy: str | None = None
    access: str | None = None
    effective_base_url: str | None = None
    http_status: int | None = None
    reason: str | None = None
    checked_at: str | None = None

    @property
    def crawl_url(self) -> str:
        """The URL a crawl uses: the effective base URL a check found (a court that moved),
        else the registered one."""
        return self.effective_base_url or self.base_url

    def check(self) -> CourtCheck | None:
        """The last check's result (``None``: never checked)."""
        if self.access is None or self.checked_at is None:
            return None
        return CourtCheck(
            self.access, self.effective_base_url, self.http_status, self.reason or "",
            self.checked_at,
        )  # fmt: skip


#: The ``courts`` table's columns, in table order (the first five since court lists, the rest
#: added by the court-access step of both backends' schemas: t22, docs/national.md).
COURT_COLUMNS = tuple(f.name for f in dataclasses.fields(CourtRecord))
#: The columns the court-access step adds (all nullable), with their SQL types.
COURT_ACCESS_COLUMNS = {
    "kind": "TEXT", "name": "TEXT", "city": "TEXT", "province": "TEXT", "high_court": "TEXT",
    "proxy": "TEXT", "access": "TEXT", "effective_base_url": "TEXT", "http_status": "INTEGER",
    "reason": "TEXT", "checked_at": "TEXT",
}  # fmt: skip
_DIRECTORY_FACTS = ("kind", "name", "city", "province", "high_court")
#: what decides where and how a court is crawled: a change clears its last check
_ACCESS_INPUTS = ("base_url", "proxy")


@dataclasses.dataclass(frozen=True)
class CourtCheck:
    """What ``scrapy courts check`` learnt of a court (docs/national.md): ``access`` (one of
    :data:`harvest.court_check.ACCESS`), the effective base URL after a permanent redirect
    (``None``: the registered one), the HTTP status of the last answer (``None``: no answer),
    the reason in words, and when (UTC, ISO)."""

    access: str
    effective_base_url: str | None
    http_status: int | None
    reason: str
    checked_at: str


def merge_court(old: CourtRecord | None, new: CourtRecord) -> CourtRecord | None:
    """The row ``new`` makes of a court registered as ``old`` (``None``: not yet), or ``None``
    when nothing changes. A court list is the truth for the crawl's columns (base URL, listing,
    tabs, proxy); the directory's facts it does not give are kept; a new base URL or proxy
    clears the last check (it was of another address)."""
    if old is None:
        return new
    facts = {f: getattr(new, f) if getattr(new, f) is not None else getattr(old, f)
             for f in _DIRECTORY_FACTS}  # fmt: skip
    merged = dataclasses.replace(
        old, base_url=new.base_url, listing=new.listing, tabs=new.tabs, proxy=new.proxy, **facts
    )
    if any(getattr(merged, f) != getattr(old, f) for f in _ACCESS_INPUTS):
        merged = dataclasses.replace(
            merged, access=None, effective_base_url=None, http_status=None, reason=None,
            checked_at=None,
        )  # fmt: skip
    return None if merged == old else merged


def court_record(row: dict[str, Any]) -> CourtRecord:
    """A :class:`CourtRecord` from a ``courts`` row by column name (a state from before the
    court-access columns, read-only, lacks them: ``None``)."""
    values: dict[str, Any] = {name: row.get(name) for name in COURT_COLUMNS}
    values["added_at"] = values["added_at"] or ""
    return CourtRecord(**values)


@dataclasses.dataclass(frozen=True)
class RowState:
    """What the refresh planner needs of one request row: status, generation, last success."""

    key: str
    status: str
    generation: int
    succeeded_at: str | None


@dataclasses.dataclass(frozen=True)
class Claimed:
    """A row moved ``pending -> inflight`` for dispatch."""

    id: int
    key: str
    group: str | None
    attempts: int
    retries: int
    blob: bytes
    #: what the row says of the request, to rebuild it when ``blob`` cannot be read
    kind: str = ""
    url: str = ""
    method: str = "GET"
    #: ``requests.format``: the request format that wrote ``blob``
    format: int = 1


@dataclasses.dataclass(frozen=True)
class Exchange:
    """One HTTP exchange (an attempt) for ``url_log``."""

    request_id: int | None
    method: str
    url: str
    final_url: str
    status: int | None
    outcome: str
    bytes: int
    ms: float  # network time: Scrapy's download_latency (the whole attempt when it failed)
    queue_ms: float | None = None  # time between the attempt entering the downloader and its
    # download starting (delay, concurrency slots); None when unknown (no response)


@dataclasses.dataclass(frozen=True)
class PageWarning:
    """A parse warning of one page: what was kept generically (``harvest.sipp.warnings``).

    ``page`` (``"list"``, ``"detail"``, ``"tab:<slug>"``), ``label`` and ``kind`` as the parser
    gave them; ``count``: how many times the page raised it.
    """

    page: str
    label: str
    kind: str
    count: int = 1


@dataclasses.dataclass(frozen=True)
class ErrorFilter:
    """Which ``error`` rows ``scrapy requeue`` sends back (all given criteria must hold)."""

    kind: str | None = None
    court: str | None = None
    reason: str | None = None  # substring of last_error, case-insensitive
    older_than: str | None = None  # ISO timestamp: updated_at strictly before it
    ids: tuple[int, ...] | None = None  # only these rows (a paused court's failed requests)


@dataclasses.dataclass(frozen=True)
class CourtPause:
    """A court paused because it was down, refusing or answering 5xx for a whole attempt
    budget (table ``court_pauses``; docs/multi-court.md, "Courts that come back by themselves").
    Times are :func:`harvest.base.clock.format_utc` text; ``pause_count``: pauses in a row (the
    back-off grows with it); the row goes when the court answers again."""

    court: str
    paused_at: str
    paused_until: str
    pause_reason: str
    pause_count: int

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class PartsCheck:
    """The cross-check of the two stores: ``ok`` case/tab rows whose part the item store lacks.

    ``missing`` is how many; ``sample`` up to 10 ``(request key, part)`` of them; ``items``
    says what the item store was: ``present``, ``missing`` (no file) or ``empty`` (no parts
    table yet).
    """

    missing: int
    sample: list[tuple[str, str]]
    items: str


@dataclasses.dataclass(frozen=True)
class StatusReport:
    """What ``scrapy status`` shows. ``counts`` rows are ``{"court","kind","status","count"}``.

    ``notices``: how many of each notice event (:data:`NOTICES`); ``latest_notices``: the newest
    (``{"at","event","key","url","detail"}``).
    ``warnings`` rows are ``{"court","page","label","kind","pages","count","example_url"}``:
    how many pages (requests whose last ``ok`` parse raised it) currently carry the parse
    warning, how many times in all, and the URL of one of them; most pages first.
    """

    counts: list[dict[str, Any]]
    oldest_pending: list[dict[str, Any]]
    latest_errors: list[dict[str, Any]]
    runs: list[dict[str, Any]]
    notices: dict[str, int] = dataclasses.field(default_factory=dict)
    latest_notices: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    warnings: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    def totals(self) -> dict[str, int]:
        """Requests by status over every court and kind (all four statuses present)."""
        out = {s.value: 0 for s in Status}
        for row in self.counts:
            out[row["status"]] += row["count"]
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "totals": self.totals(),
            "counts": self.counts,
            "oldest_pending": self.oldest_pending,
            "latest_errors": self.latest_errors,
            "runs": self.runs,
            "notices": self.notices,
            "latest_notices": self.latest_notices,
            "parse_warnings": self.warnings,
        }


class RequestStore(Protocol):
    """Durable request state of one workspace (every court of it).

    Transitions (each with an ``events`` row) are committed before returning, or, for a store
    opened with ``defer_commit`` (group commit), at the next :meth:`commit`, in order:

    * :meth:`add`: new key -> ``pending``; a known key of an older generation whose row is
      ``ok``, ``error`` or ``pending`` -> renewed (``pending``, event ``renewed``); any other
      known key -> ``None`` (duplicate, nothing changes).
    * :meth:`claim`: best ``pending`` row of a court -> ``inflight``, ``attempts + 1``.
    * :meth:`retry`: ``inflight`` -> ``pending`` for a retry of the same row (retry
      count, priority and current URL recorded; the stored request stays the original). A
      redirect hop is no transition: the scheduler follows it with the row in flight.
    * :meth:`finish`: ``inflight`` -> ``ok`` or ``error`` (with the reason); an ``ok``
      replaces the row's parse warnings with the ones given, in the same transaction.
    * :meth:`release_inflight`: ``inflight`` -> ``pending`` (on open: a crashed run's rows; on
      close: rows whose outcome never came).
    * :meth:`requeue`: ``error`` -> ``pending``, filtered.
    """

    path: str

    def acquire_crawl_lock(self, run: RunInfo) -> None:
        """Take the per-court crawl lock or raise :class:`CrawlLocked` naming the holder.

        The lock dies with its holder (a dead crawl never blocks the next one). One store may
        hold the locks of several courts (a multi-court crawl, docs/multi-court.md); taking a
        court's lock twice is a :class:`StateError`.
        """

    def release_crawl_lock(self, court: str | None = None) -> None:
        """Give up the crawl lock of ``court`` (``None``: of every court this store holds)."""

    def watch_closing(
        self,
        closing: Callable[[], bool],
        bound: float,
        *,
        clock: Callable[[], float] = ...,
    ) -> None:
        """Hold the crawl locks no longer than ``bound`` seconds after ``closing()`` turns true
        (a hung close): the PostgreSQL store stops renewing its leases then. A lock that dies
        with its process (SQLite's ``flock``, the memory store's) needs nothing: a no-op."""

    def start_run(self, run: RunInfo) -> tuple[int, list[int]]:
        """Record a run; close the court's runs left open by dead holders (close reason
        ``killed``). Returns the new run id and the ids of the runs taken over."""

    def end_run(self, run_id: int, reason: str) -> None: ...

    def release_inflight(
        self, court: str, run_id: int, *, ids: Sequence[int] | None = None, why: str
    ) -> int:
        """``inflight -> pending`` for the court (or only ``ids``); returns how many."""

    def add(self, req: NewRequest, run_id: int) -> int | None:
        """Insert a new ``pending`` row and return its id; ``None`` if the key is known.

        Except: a known key whose row's ``generation`` is older than ``req.generation`` and
        whose status is ``ok``, ``error`` or ``pending`` is *renewed* in one statement: status
        ``pending``, ``generation = req.generation``, the new request blob, URL and priority,
        attempts and retries 0, ``last_error`` cleared, event ``renewed`` (``url_log`` and the
        row's events are kept); its id is returned. The same generation or a newer one is a
        duplicate: a resumed refresh never fetches twice what it already did.
        """

    def begin_generation(self, court: str, *, policy: str, today: str, run_id: int) -> Generation:
        """The generation a crawl of ``court`` works in, given ``-a refresh=<policy>``.

        No generation yet: generation 0 (policy ``initial``) is created whatever ``policy``
        says. The last one unfinished: it is resumed (its own policy and day). The last one
        finished: ``policy`` ``due`` or ``all`` creates the next (with ``today``); ``none``
        returns the finished one (nothing new to do).
        """

    def finish_generation_if_done(self, court: str, number: int) -> bool:
        """Record generation ``number`` finished (``finished_at``) when none of the court's rows
        of it is ``pending`` or ``inflight``; returns whether it is finished now."""

    def generations(self, court: str | None = None) -> list[Generation]:
        """Every generation (of ``court``), oldest first; ``[]`` on a state before them."""

    def row_states(self, court: str, kind: str) -> list[RowState]:
        """``(key, status, generation, succeeded_at)`` of every row of one court and kind."""

    def claim(
        self,
        court: str,
        run_id: int,
        *,
        busy_groups: Sequence[str],
        held: Sequence[int],
        only_groups: Sequence[str] | None = None,
    ) -> Claimed | None:
        """Move the next ``pending`` row of ``court`` to ``inflight``.

        Order: ``priority DESC, id``. Rows whose group is in ``busy_groups`` are skipped unless
        their id is in ``held`` (a retried row keeps its group reserved). ``only_groups``: only
        rows of these groups (the court's case cap is reached; rows without a group too are
        skipped); ``None``: any row.
        """

    def open_group(self, court: str, group: str, run_id: int) -> None:
        """Record that the court's crawl started working on ``group`` (idempotent).

        Open groups are what the case cap counts; they survive restarts (:meth:`open_groups`).
        """

    def close_group_if_done(self, court: str, group: str) -> bool:
        """Forget the open ``group`` if none of its rows is ``pending`` or ``inflight``.

        Returns whether the group is done (then no longer open); ``False``: it still has work.
        """

    def open_groups(self, court: str) -> list[str]:
        """The court's open groups, oldest first."""

    def retry(
        self, request_id: int, run_id: int, *, url: str, priority: int, retries: int
    ) -> bool:
        """``inflight -> pending`` for a retry of the row; ``False`` if not inflight.

        The stored request is not replaced: a resumed crawl re-sends the row's original request
        (with ``retries`` as its retry count).
        """

    def finish(
        self,
        request_id: int,
        run_id: int,
        *,
        ok: bool,
        reason: str | None = None,
        http_status: int | None = None,
        url: str | None = None,
        warnings: Sequence[PageWarning] = (),
    ) -> bool:
        """``inflight -> ok | error``; ``False`` (nothing changes) if the row is not inflight.

        ``url``: where the row's redirects led, when they did (becomes the row's ``url``).
        ``warnings``: on ``ok``, the parse warnings of the page, replacing those of the row's
        previous ``ok`` (none: the row carries none now); ignored on ``error`` (the data of the
        last good parse, and its warnings, stay).
        """

    def log_exchange(self, run_id: int | None, exchange: Exchange) -> None: ...

    def note(self, run_id: int | None, request_id: int | None, event: str, detail: str) -> None:
        """Record a notice (one of :data:`NOTICES`) in ``events``; no row changes status."""

    def check_parts(
        self, items_path: Path, *, court: str | None = None, reset_run: int | None = None
    ) -> PartsCheck:
        """Find the ``ok`` case and tab rows whose part (``case``, ``tab:<slug>``) is not in the
        item store at ``items_path`` (a missing file: none is); with ``reset_run``, send them
        back to ``pending`` (event ``released`` naming the part) in one transaction.

        Raises :class:`StateError` when the item store cannot be read (damaged)."""

    def add_courts(self, courts: Sequence[CourtRecord]) -> tuple[int, int]:
        """Register courts (committed): a new court id is added, a known one is updated as
        :func:`merge_court` says (keeping its place). Returns ``(added, changed)``."""

    def courts(self) -> list[CourtRecord]:
        """The registered courts in the order they were first added; ``[]`` when none."""

    def record_court_check(self, court: str, check: CourtCheck) -> bool:
        """Record the result of a court's check (committed); ``False``: the court is not
        registered."""

    def pause_court(self, court: str, *, reason: str, until: str, at: str) -> int:
        """Record ``court`` paused until ``until`` with ``reason`` (committed, event
        ``court_paused``); returns its pauses in a row, this one included."""

    def resume_court(self, court: str) -> bool:
        """The court answered again: forget its pause (event ``court_resumed``); whether it had
        one."""

    def court_pauses(self) -> list[CourtPause]:
        """The paused courts (``[]`` on a state from before pauses)."""

    def commit(self) -> None:
        """Make every transition so far durable (nothing to do without group commit)."""

    def has_pending(self, court: str) -> bool: ...

    def count(self, *, court: str | None = None, status: Status | None = None) -> int: ...

    def requeue(self, flt: ErrorFilter, *, dry_run: bool = False) -> int:
        """``error -> pending`` for the matching rows (attempts kept); returns how many."""

    def status_report(self, *, court: str | None = None, limit: int = 10) -> StatusReport: ...

    def close(self) -> None: ...
