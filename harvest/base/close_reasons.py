"""The close reasons of a crawl, spelt once (issue 20): what a run ends with in the runs table.

A base module (no imports): the components that close the spider or a multi-court lane, the
stores that record a run's end, the crawl command and :mod:`harvest.exit_status` import these
names; ``scrapy status`` shows them as they are (docs/status.md). The replica under
``reference/`` plays an outside party and imports nothing of the product.

* Scrapy's own: :data:`FINISHED` (nothing left to do), :data:`SHUTDOWN` (a signal, a scrapyd
  cancel). A multi-court lane closes with :data:`FINISHED` when its court is done, with
  :data:`PAUSED` when its court is paused, with :data:`SHUTDOWN` when the crawl cannot start.
* :data:`KILLED`: a run that never closed (its process died); the next run of the court records
  it when it starts.
* The fatal ones (:data:`FATAL_CLOSE_REASONS`, exit status 1): a bad ``-a listing``, and a store
  the crawl writes to failing; :data:`FATAL_ADVICE` says what to do after each of the latter.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ARCHIVE_ERROR",
    "BAD_LISTING",
    "FATAL_ADVICE",
    "FATAL_CLOSE_REASONS",
    "FINISHED",
    "ITEM_STORE_ERROR",
    "KILLED",
    "PAUSED",
    "SHUTDOWN",
    "STATE_ERROR",
    "TLS_ERROR",
    "UNSERIALIZABLE_REQUEST",
]

#: Scrapy's close reason of a crawl that ran out of work (also a multi-court lane that is done).
FINISHED: Final = "finished"
#: Scrapy's close reason of a crawl stopped by a signal (Ctrl+C, SIGTERM, a scrapyd cancel).
SHUTDOWN: Final = "shutdown"
#: A multi-court lane whose court was paused (:mod:`extensions.multi`).
PAUSED: Final = "paused"
#: A run that never closed (its process was killed or crashed), recorded by the next run.
KILLED: Final = "killed"

#: ``-a listing`` is not in the court's menu (:mod:`harvest.spiders.sipp`).
BAD_LISTING: Final = "harvest_bad_listing"
#: The item store could not be written (:mod:`pipelines.dedupe`).
ITEM_STORE_ERROR: Final = "item_store_error"
#: The request state could not be read or written (:mod:`extensions.scheduler`).
STATE_ERROR: Final = "harvest_state_error"
#: The page archive could not be written (:mod:`harvest.archive.middleware`).
ARCHIVE_ERROR: Final = "harvest_archive_error"
#: A request could not be stored in the request state (:mod:`extensions.scheduler`).
UNSERIALIZABLE_REQUEST: Final = "harvest_unserializable_request"
#: The court's own TLS certificate failed verification (:mod:`extensions.guard`).
TLS_ERROR: Final = "harvest_tls_error"

#: What to do after each fatal close of a store (``scrapy crawl`` prints it on stderr).
FATAL_ADVICE: Final = {
    ITEM_STORE_ERROR: "the item store could not be written (see the ERROR lines above: "
    "a full disk, a damaged items.sqlite)",
    STATE_ERROR: "the request state could not be written (see the ERROR lines above: "
    "a full disk, a damaged or locked state.sqlite, a database outage)",
    ARCHIVE_ERROR: "the page archive could not be written (see the ERROR line above: "
    "a full disk under archive/); free space there",
    UNSERIALIZABLE_REQUEST: "a request could not be stored in the request state",
    TLS_ERROR: "the court's TLS certificate failed verification",
}

#: Close reasons meaning the crawl refused to go on (exit 1): a bad ``-a listing``, and the
#: fatal closes of the state and item stores and of the page archive (a full disk, a locked or
#: unreachable state, a request that cannot be stored, a court whose TLS certificate fails).
FATAL_CLOSE_REASONS: Final = frozenset({BAD_LISTING, *FATAL_ADVICE})
