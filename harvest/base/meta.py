"""The request meta keys of the project: one name per key, for every part that reads or writes it.

The spider writes the identity and routing keys; the scheduler, the outcome and URL-log
middlewares, the session and validation middlewares and the clearance middleware read them and
add their own. A key that crosses a module boundary is spelt through these constants, never as a
string literal; only the spider's own callback state (``sipp_page``, ``sipp_row`` ...), written
and read by the spider alone, stays private to it.

Imports nothing (a base module: see ``[tool.importlinter]`` in pyproject.toml).
"""

from __future__ import annotations

# --- identity (docs/contracts.md, Identity): written by the spider ----------------------------
#: The logical request key (``list|<court>|...``, ``case|...``, ``tab|...``): the scheduler's
#: dedupe key. Without it the scheduler falls back to Scrapy's request fingerprint.
META_KEY = "harvest_key"
#: The request group (one case): never two requests of one group in flight at once.
META_GROUP = "harvest_group"
#: Scrapy's cookie jar (CookiesMiddleware's key; our session middleware keeps one per case).
META_COOKIEJAR = "cookiejar"

#: What the page's parts need besides the page (harvest/parts.py): the case number as listed,
#: the list row, the tab slug. The page archive keeps it with the page for ``scrapy reparse``.
META_PARSE_CONTEXT = "harvest_parse_context"

# --- scheduler (extensions/scheduler.py) --------------------------------------------------------
#: The court's generation a request belongs to (docs/refresh.md): 0 for the first harvest, one
#: more for each refresh. A known key whose row is of an older generation is renewed (fetched
#: again); without it the scheduler takes the crawl's current generation.
META_REFRESH_GENERATION = "harvest_generation"
#: The state row id of a dispatched request; a retry or redirect copy keeps it (same row).
META_RID = "harvest_rid"
#: The court a request belongs to in a multi-court crawl (docs/multi-court.md): routes it to
#: the court's scheduler lane; ``download_slot`` carries the same id (one politeness slot a court)
META_COURT = "harvest_court"
#: The row id of the request whose callback yielded this one (set while it is enqueued).
META_PARENT = "harvest_parent"
#: Set by the spider on ``response.meta``: the parse warnings of the page, as
#: ``[[page, label, kind], ...]``; recorded with the row's ``ok`` (``parse_warnings``).
META_PARSE_WARNINGS = "harvest_parse_warnings"
#: When the URL-log middleware sent this attempt (``time.monotonic()``).
META_SENT_AT = "_harvest_sent_at"

# --- page validation (harvest/validation.py) ----------------------------------------------------
#: What page the request expects: ``list``, ``detail`` or ``tab``.
META_EXPECT = "sipp_expect"
#: The normalised case number the detail or tab page must show.
META_CASE = "sipp_case"
#: The case's detail page shows "Error, Pihak Not Found!!!" as party labels.
META_LABELS_MISSING = "sipp_party_labels_missing"
#: Set when validation's retries are spent: the reason the page is bad.
META_PAGE_ERROR = "harvest_page_error"
#: The token-masked digest of a detail page that came cut short (harvest/sipp/cut.py): its retry
#: compares its own body with it; the same bytes twice are the app's cut, not the network's.
META_CUT_DIGEST = "sipp_cut_digest"
#: Set on a detail page kept although the app cut it short: how it was told from a truncation
#: on the network (``status 500``, ``php fatal error``, ``same bytes twice``).
META_CUT = "sipp_cut"
#: The party labels a case's detail header showed (``Penggugat``, ``Tergugat``): a tab fragment
#: that shows one of them as a label is from a warm session, whatever other role it lacks.
META_SHOWN_LABELS = "sipp_shown_labels"
#: The verdict kind of that page (``wrong-case`` raises WrongCase, others ErrorPageServed).
META_PAGE_ERROR_KIND = "harvest_page_error_kind"

# --- SIPP sessions (harvest/sessions.py) --------------------------------------------------------
#: The request needs a warm session (a full page fetched in its cookie jar first).
META_NEEDS_WARM = "sipp_needs_warm_session"
#: The page that warms a cold session.
META_WARMUP_URL = "sipp_warmup_url"
#: The request fetches a full page (which warms its jar when it answers 200).
META_FULL_PAGE = "sipp_full_page"
#: The request is a warm-up the session middleware made (validation leaves it alone).
META_IS_WARMUP = "sipp_warmup"
#: Warm the jar again before sending (the session value was lost).
META_FORCE_WARM = "sipp_force_warm"
#: The lease of a pooled session a request (and its redirects and retries) holds (in memory).
META_SESSION_LEASE = "_sipp_session_lease"

# --- JavaScript challenges (harvest/clearance.py) -----------------------------------------------
#: This request is the browser pass itself (fetched by scrapy-playwright).
META_BROWSER_PASS = "sipp_browser_pass"
#: The clearance generation of its host when the request was sent.
META_GENERATION = "sipp_clearance_generation"
#: How many times the request was re-sent after a challenge.
META_RESENDS = "sipp_clearance_resends"
#: ``(process token, reason)``: fail this request before sending it.
META_FAIL = "sipp_clearance_failure"
