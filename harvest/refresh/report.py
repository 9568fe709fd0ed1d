"""Per court, what ``scrapy status`` says of refreshes (docs/refresh.md, "Status").

* ``last``: the court's last generation (number, policy, today, started / finished);
* ``due_now``: known cases the due policy (:mod:`harvest.refresh.policy`) holds due as of
  ``HARVEST_REFRESH_TODAY`` (default: the current UTC date): what ``-a refresh=due`` would
  fetch besides new and changed cases; ``due_why``: how many of them by each reason
  (``Due.kind``: ``hearing``, ``back-off``, ``post-verdict``, ``never-fetched``);
* ``refreshed``: cases whose detail request is ``ok`` in the last generation;
* ``changed``: of the documents that existed before the last generation started, how many
  changed in it (their ``content_hash`` moved: the item store's document time is after the
  generation's start), and ``new``: documents first stored in it.

Read-only: the request state through the request store, the documents through the item store
(either backend), both opened by the caller.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from harvest.refresh.planner import RefreshConfig, policy_inputs
from harvest.refresh.policy import case_facts

if TYPE_CHECKING:
    from extensions.store import Generation, RequestStore
    from pipelines.store import ItemStore

__all__ = ["refresh_report", "utc_today"]


def refresh_report(
    store: RequestStore,
    items: ItemStore | None,
    config: RefreshConfig,
    *,
    court: str | None = None,
) -> list[dict[str, Any]]:
    """One entry per court with generations (see the module docstring), by court;
    ``items`` ``None``: nothing stored yet."""
    by_court: dict[str, list[Generation]] = {}
    for g in store.generations(court):
        by_court.setdefault(g.court, []).append(g)
    out: list[dict[str, Any]] = []
    for name, gens in sorted(by_court.items()):
        last = gens[-1]
        rows = store.row_states(name, "case")
        inputs = policy_inputs(gens, rows)
        due_now = 0
        why: dict[str, int] = {}
        documents = items.iter_documents(complete_only=False, court=name) if items else ()
        for doc in documents:
            if doc["case"] is None:
                continue
            last_fetch = inputs.get(doc["source_id"], (None, None))[1]
            verdict = config.due(case_facts(doc["case"], doc["tabs"], last_fetch), config.today)
            if verdict.due:
                due_now += 1
                why[verdict.kind] = why.get(verdict.kind, 0) + 1
        refreshed = sum(1 for r in rows if r.generation == last.number and r.status == "ok")
        changed, new = items.changes_since(last.started_at, court=name) if items else (0, 0)
        out.append(
            {
                "court": name,
                "generations": len(gens),
                "last": last.as_dict(),
                "today": config.today.isoformat(),
                "due_now": due_now,
                "due_why": dict(sorted(why.items())),
                "refreshed": refreshed,
                "changed": changed,
                "new": new,
            }
        )
    return out


def utc_today() -> dt.date:
    """The current UTC date (the policy's day when ``HARVEST_REFRESH_TODAY`` is not set)."""
    return dt.datetime.now(dt.UTC).date()
