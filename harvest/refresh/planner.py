"""What the spider asks while it walks a court's list in a refresh (docs/refresh.md).

A refresh generation (``-a refresh=due|all`` on a finished court) walks the list newest first.
For every row the :class:`RefreshPlanner` answers whether to fetch the case (detail and every
tab, in one session, as a first harvest does) and why:

* ``new``: no ``case`` part of that number is stored;
* ``changed``: the stored ``case`` part's ``list_row`` differs from the row over
  :data:`harvest.sipp.case_part.LIST_ROW_KEYS` (Lama Proses is not kept: it grows daily);
* ``due``: known and unchanged, but the due policy (:mod:`harvest.refresh.policy`) says so
  (policy ``due``); ``all``: known and unchanged, policy ``all``;
* ``None``: known, unchanged and not due (counted ``skipped_not_due``), or already handled in
  this generation (its case row is of this generation: a resumed refresh, or a case pushed
  down past a page boundary and met twice).

After each page it answers whether to walk on: policy ``all`` walks every page; ``due`` stops
after the first page on which every row was a known case with an unchanged list row, unless a
due case has not been met yet: the detail link carries a token made at each render (docs/sipp.md
§1.4) and the case part needs its list row, so the list is the only entry point that yields
both; the walk goes on until every due case was met (or the list ends).

The planner reads the state rows and the item store once, at the start of the crawl.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harvest.base.canonical import canonical_json
from harvest.base.settings_error import SettingsError
from harvest.base.workspace import ITEMS_DB
from harvest.refresh.policy import (
    DEFAULT_MAX_DAYS,
    DEFAULT_MIN_DAYS,
    DEFAULT_STEP_DAYS,
    case_facts,
    due,
)
from harvest.sipp.case_part import LIST_ROW_KEYS
from harvest.sipp.document import OTHER_KEY
from pipelines.item_backends import open_item_store

if TYPE_CHECKING:
    from pathlib import Path

    from extensions.store import Generation, RowState
    from harvest.refresh.policy import CaseFacts, Due

__all__ = [
    "RefreshConfig",
    "RefreshPlanner",
    "calendar_days",
    "court_documents",
    "list_row_of",
    "policy_inputs",
]

logger = logging.getLogger(__name__)

#: Stats of a refresh walk: ``harvest/refresh/<name>``.
STAT = "harvest/refresh/"


@dataclass(frozen=True)
class RefreshConfig:
    """``HARVEST_REFRESH_TODAY`` (the policy's day), ``HARVEST_REFRESH_MIN_DAYS`` and
    ``HARVEST_REFRESH_MAX_DAYS`` (the back-off's bounds), ``HARVEST_REFRESH_STEP_DAYS`` (the
    longest back-off while a post-verdict step or an appeal is pending)."""

    today: dt.date
    min_days: int = DEFAULT_MIN_DAYS
    max_days: int = DEFAULT_MAX_DAYS
    step_days: int = DEFAULT_STEP_DAYS
    #: ``HARVEST_REFRESH_CALENDAR``: a due refresh reads the court's hearing calendar first
    calendar: bool = True

    @classmethod
    def from_settings(cls, get: Callable[[str], Any], *, utc_today: dt.date) -> RefreshConfig:
        """From a settings getter (``settings.get``); ``utc_today`` when no day is set."""
        raw = get("HARVEST_REFRESH_TODAY")
        today = utc_today
        if raw not in (None, ""):
            try:
                today = dt.date.fromisoformat(str(raw).strip())
            except ValueError:
                raise SettingsError(
                    f"HARVEST_REFRESH_TODAY must be a day YYYY-MM-DD (the refresh policy's "
                    f"today), got {raw!r}; leave it unset for the current UTC date"
                ) from None
        low = _days(get, "HARVEST_REFRESH_MIN_DAYS", DEFAULT_MIN_DAYS)
        high = _days(get, "HARVEST_REFRESH_MAX_DAYS", DEFAULT_MAX_DAYS)
        if high < low:
            raise SettingsError(
                f"HARVEST_REFRESH_MAX_DAYS ({high}) is below HARVEST_REFRESH_MIN_DAYS ({low}); "
                "the back-off waits between the two: set MAX_DAYS >= MIN_DAYS"
            )
        step = _days(get, "HARVEST_REFRESH_STEP_DAYS", DEFAULT_STEP_DAYS)
        calendar = _flag(get, "HARVEST_REFRESH_CALENDAR", default=True)
        return cls(today=today, min_days=low, max_days=high, step_days=step, calendar=calendar)

    def due(self, facts: CaseFacts, today: dt.date) -> Due:
        """The due policy with these bounds."""
        return due(
            facts,
            today,
            min_days=self.min_days,
            max_days=self.max_days,
            step_days=self.step_days,
        )


def _flag(get: Callable[[str], Any], name: str, *, default: bool) -> bool:
    raw = get(name)
    if raw in (None, ""):
        return default
    if isinstance(raw, bool):
        return raw
    word = str(raw).strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise SettingsError(f"{name} must be true or false, got {raw!r}")


def _days(get: Callable[[str], Any], name: str, default: int) -> int:
    raw = get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except (TypeError, ValueError):
        value = 0
    if value < 1 or str(value) != str(raw).strip():
        raise SettingsError(f"{name} must be a whole number of days >= 1, got {raw!r}")
    return value


def list_row_of(data: Mapping[str, Any]) -> Any:
    """The ``list_row`` a case part would keep of a list row's ``data`` (``None`` for a row
    of the traffic-ticket list, which has no Tanggal Register), as canonical JSON."""
    if "tanggal_register" not in data:
        return canonical_json(None)
    return canonical_json({k: v for k, v in data.items() if k in LIST_ROW_KEYS or k == OTHER_KEY})


@dataclass
class _Known:
    list_row: str  # canonical JSON of the stored list_row
    due: bool
    reason: str
    last_fetch: dt.date | None = None


def _number_of(key: str) -> str:
    return key.split("|", 2)[2]


def policy_inputs(
    generations: Sequence[Generation], rows: Sequence[RowState]
) -> dict[str, tuple[RowState, dt.date | None]]:
    """Case number -> (its case row, its last fetch day).

    The last fetch day is the policy day (``today``) of the generation whose request last
    fetched the detail page ``ok``; for a row whose last attempt failed, the day of its last
    success (``succeeded_at``); ``None`` when it never succeeded.
    """
    days = {g.number: dt.date.fromisoformat(g.today) for g in generations}
    out: dict[str, tuple[RowState, dt.date | None]] = {}
    for row in rows:
        last: dt.date | None = None
        if row.status == "ok" and row.generation in days:
            last = days[row.generation]
        elif row.succeeded_at:
            last = dt.date.fromisoformat(row.succeeded_at[:10])
        out[_number_of(row.key)] = (row, last)
    return out


@dataclass
class RefreshPlanner:
    """See the module docstring. Build it with :meth:`load`."""

    generation: int
    policy: str
    known: dict[str, _Known]
    #: case numbers whose case row is of this generation (fetched or queued in it)
    handled: set[str]
    #: due known cases the walk has not met yet
    due_unseen: set[str]
    #: counts for the stats (``harvest/refresh/<name>``)
    counts: dict[str, int] = field(default_factory=dict)
    _met: set[str] = field(default_factory=set)
    _page_changed: bool = False

    @classmethod
    def load(
        cls,
        *,
        court: str,
        generation: Generation,
        generations: Sequence[Generation],
        case_rows: Sequence[RowState],
        documents: Callable[[], Any],
        config: RefreshConfig,
    ) -> RefreshPlanner:
        """``documents()`` iterates the court's merged documents (the item store's
        ``iter_documents(complete_only=False, court=court)``)."""
        inputs = policy_inputs(generations, case_rows)
        handled = {n for n, (row, _) in inputs.items() if row.generation >= generation.number}
        today = dt.date.fromisoformat(generation.today)
        known: dict[str, _Known] = {}
        for doc in documents():
            case = doc.get("case")
            if case is None:
                continue
            number = str(doc["source_id"])
            last = inputs.get(number, (None, None))[1]
            facts = case_facts(case, doc.get("tabs") or {}, last)
            verdict = config.due(facts, today)
            stored = canonical_json(case.get("list_row"))
            known[number] = _Known(stored, verdict.due, verdict.reason, last)
        due_unseen = {n for n, k in known.items() if k.due and n not in handled}
        planner = cls(generation.number, generation.policy, known, handled, due_unseen)
        planner.counts["due"] = 0
        logger.info(
            "refresh of %s, generation %d (policy %s, today %s): %d known cases, %d due by "
            "the policy (min %d, max %d days), %d already handled in this generation",
            court,
            generation.number,
            generation.policy,
            generation.today,
            len(known),
            len(due_unseen),
            config.min_days,
            config.max_days,
            len(handled),
        )
        return planner

    def heard(self, number: str, day: dt.date) -> bool:
        """The court's hearing calendar lists a hearing of case ``number`` on ``day``: a
        known case not fetched since (last fetch day <= ``day``) becomes due (``hearing``);
        whether it did. Call before the walk (the walk goes on until it met every due case)."""
        known = self.known.get(number)
        if known is None or known.due or number in self.handled or number in self._met:
            return False
        if known.last_fetch is not None and day < known.last_fetch:
            return False
        known.due = True
        known.reason = f"hearing {day.isoformat()} on the court's calendar"
        self.due_unseen.add(number)
        self._count("calendar_due")
        return True

    def _count(self, name: str) -> None:
        self.counts[name] = self.counts.get(name, 0) + 1

    def decide(self, number: str, row_data: Mapping[str, Any]) -> str | None:
        """Why to fetch the case of a list row (``new``, ``changed``, ``due``, ``all``), or
        ``None`` (not due, or already handled); see the module docstring."""
        if number in self._met:
            return None  # met twice in one walk (pushed down past a page boundary)
        self._met.add(number)
        self.due_unseen.discard(number)
        known = self.known.get(number)
        if number in self.handled:
            self._count("handled")
            return None
        if known is None:
            self._page_changed = True
            self._count("new")
            return "new"
        if known.list_row != list_row_of(row_data):
            self._page_changed = True
            self._count("changed")
            return "changed"
        if self.policy == "all":
            self._count("all")
            return "all"
        if known.due:
            self._count("due")
            return "due"
        self._count("skipped_not_due")
        return None

    def end_page(self) -> bool:
        """The page's rows are decided: whether to walk on to the next page."""
        changed, self._page_changed = self._page_changed, False
        self._count("pages_walked")
        if self.policy == "all" or changed:
            return True
        if self.due_unseen:
            self._count("pages_for_due")
            return True
        return False


def calendar_days(
    generations: Sequence[Generation], generation: Generation, max_days: int
) -> list[dt.date]:
    """The days whose hearing calendar a due refresh reads: from the previous generation's
    policy day up to the day before this one's (a hearing on the policy day itself may not be
    over), at most ``max_days`` of them (a case quiet for longer is due by back-off anyway);
    none for the first harvest."""
    today = dt.date.fromisoformat(generation.today)
    earlier = [g for g in generations if g.number < generation.number]
    if not earlier:
        return []
    since = max(dt.date.fromisoformat(earlier[-1].today), today - dt.timedelta(days=max_days))
    return [since + dt.timedelta(days=n) for n in range((today - since).days)]


def court_documents(workspace: Path, database_url: str | None, court: str) -> Iterator[Any]:
    """The court's stored documents, as the planner reads them (``documents`` of
    :meth:`RefreshPlanner.load`): the item store of the workspace, or of ``database_url``
    (PostgreSQL); none when nothing was stored yet. Raises
    :class:`pipelines.store.ItemStoreError` when the store cannot be read."""
    if not database_url and not (workspace / ITEMS_DB).is_file():
        return
    with open_item_store(workspace, database_url=database_url, readonly=True) as stored:
        yield from stored.iter_documents(complete_only=False, court=court)
