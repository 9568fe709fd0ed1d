"""Scrapy settings of the harvest project.

Every project setting is documented (type, default, meaning) in README.md, "Settings reference".
Each default appears once: here, or as a module constant of the component that owns it.
Secrets never live here: the ingest token and proxy credentials come from the environment.
"""

from __future__ import annotations

import os

BOT_NAME = "harvest"
SPIDER_MODULES = ["harvest.spiders"]
NEWSPIDER_MODULE = "harvest.spiders"
COMMANDS_MODULE = "harvest.commands"

# --- workspace (harvest/base/workspace.py) -------------------------------------------------------
# Absolute path, or relative to scrapy.cfg; under scrapyd it must be absolute.
HARVEST_WORKSPACE = os.environ.get("HARVEST_WORKSPACE", "")

# --- politeness: fit for real courts (docs/sipp.md, "Politeness") ----------------------------
# How a court can reach you. USER_AGENT is built from it by harvest.contact.ContactAddon after
# every settings source is read (-s HARVEST_CONTACT=... works); an explicit USER_AGENT wins.
HARVEST_CONTACT = os.environ.get("HARVEST_CONTACT", "")
# harvest.settings_check.SettingsCheckAddon refuses a typo'd HARVEST_/SIPP_ setting (naming the
# closest one) and a boolean setting given anything but True/False/1/0, before the crawl starts.
# harvest.switched_off.SwitchedOffAddon: an extension switched off below (telnet, remote control)
# is not even imported (the remote control's aiohttp costs ~0.2 s of CPU per crawl).
ADDONS = {
    "harvest.contact.ContactAddon": 0,
    "harvest.settings_check.SettingsCheckAddon": 1,
    "harvest.switched_off.SwitchedOffAddon": 2,
}
ROBOTSTXT_OBEY = False
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 2
DOWNLOAD_DELAY = 1.0  # randomised by +-50% (Scrapy DOWNLOAD_DELAY_JITTER = 0.5)
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 1.0
AUTOTHROTTLE_MAX_DELAY = 30.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 1.0
DOWNLOAD_TIMEOUT = 60
RETRY_ENABLED = True
RETRY_TIMES = 3
RETRY_HTTP_CODES = [500, 502, 503, 504, 522, 524, 408, 429]
COOKIES_ENABLED = True
REDIRECT_ENABLED = True
HTTPCACHE_ENABLED = False  # same URL, different content per session: never cache SIPP

# --- hardening (docs/scheduler.md, "Staying on the court"; extensions/guard.py) --------------
# TLS certificates are verified (Scrapy's default is not to); per-crawl opt-out:
# -s DOWNLOAD_VERIFY_CERTIFICATES=False. Extra CAs: OpenSSL's SSL_CERT_FILE.
DOWNLOAD_VERIFY_CERTIFICATES = True
# Hosts (name or name:port) a crawl may fetch besides the court's own (extensions/guard.py).
HARVEST_ALLOWED_HOSTS: list[str] = []
# Scrapy's telnet console and remote-control HTTP server run posted Python, and the latter
# leaves a token file per crawl under ~/.local/state/scrapy/job_files: both off.
TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False
# Items are never logged whole (people's names): scraped/dropped/error lines name the part only.
LOG_FORMATTER = "extensions.logformatter.PartLogFormatter"

# --- pacing and CPU per response (extensions/pacing.py, quietlog.py; docs/scheduler.md) ------
# One random delay per gap (mean gap = DOWNLOAD_DELAY, Scrapy's redraws made it 1.27 s for
# 1.0 s) and the queued request of the highest priority, then oldest row, sent first.
DOWNLOADER = "extensions.pacing.PacedDownloader"
_PACING_EXTENSIONS: dict[str, int | None] = {
    # AutoThrottle that never goes under a court's own DOWNLOAD_SLOTS delay
    "scrapy.extensions.throttle.AutoThrottle": None,
    "extensions.pacing.PacedAutoThrottle": 0,
    # Scrapy's loggers drop records under LOG_LEVEL at the call, not in the handler
    "extensions.quietlog.QuietScrapyLogs": 0,
}
# HARVEST_CASE_LOOKAHEAD (int, default 1, extensions/config.py): a court works on at most its
# concurrency + this many cases at once, finishing them before starting more; -1: no cap.
# Scrapy re-reads a callback's source on every response to warn about generators that return
# a value; tests/scheduler/test_pacing.py checks every spider callback once instead.
WARN_ON_GENERATOR_RETURN_VALUE = False

# Scrapy starts this many asyncio tasks for every response's callback output, however few
# items it yields (default 100); the item pipeline is synchronous SQLite, so 8 loses nothing and
# saves ~10% of the crawl's CPU (bench/bench_scheduler.py).
CONCURRENT_ITEMS = 8

TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = "INFO"
# Expected site errors (error pages, 5xx, timeouts) are one WARNING line each, written by the
# scheduler with reason, URL and attempt; Scrapy's traceback and give-up lines for them go to
# DEBUG (extensions/logformatter.py, LOG_FORMATTER above). Tracebacks stay for bugs.
RETRY_GIVE_UP_LOG_LEVEL = "DEBUG"

# --- refresh of a harvested court (harvest/refresh/, docs/refresh.md) ----------------------
# -a refresh=due|all starts a new generation of a finished court. The due policy's day (empty:
# the current UTC date; tests and benchmarks pin it to the replica's day). The back-off's bounds
# in days (an open case is looked at again after clamp(quiet days, MIN, MAX)),
# HARVEST_REFRESH_MIN_DAYS, HARVEST_REFRESH_MAX_DAYS and HARVEST_REFRESH_STEP_DAYS, default to
# harvest/refresh/policy.py's DEFAULT_MIN_DAYS, DEFAULT_MAX_DAYS and DEFAULT_STEP_DAYS.
HARVEST_REFRESH_TODAY = ""

# --- scheduler and outcome tracking (extensions/) ------------------------------------------
# Request state in <HARVEST_WORKSPACE>/state.sqlite (docs/scheduler.md). Settings, defaults in
# extensions/config.py: HARVEST_STATE_STORE (import path, SQLite store),
# HARVEST_STATE_BUSY_TIMEOUT (30.0 s), HARVEST_STATE_SYNCHRONOUS ("NORMAL"),
# HARVEST_STATE_URL_LOG (True), HARVEST_STATE_COMMIT ("turn": group commit per reactor turn).
SCHEDULER = "extensions.scheduler.HarvestScheduler"
_SCHEDULER_DOWNLOADER_MIDDLEWARES: dict[str, int] = {
    # final response / final exception of each request (below Retry 550 and Redirect 600)
    "extensions.outcome.OutcomeDownloaderMiddleware": 20,
    # requests stay on the court (first process_request of all); TLS failures said clearly
    "extensions.guard.CourtGuardMiddleware": 30,
    # a redirect loop fails its row with the chain (just above Redirect 600)
    "extensions.guard.RedirectLoopMiddleware": 605,
    # every HTTP exchange (each attempt) to url_log, next to the downloader
    "extensions.urllog.UrlLogMiddleware": 950,
}
_SCHEDULER_SPIDER_MIDDLEWARES: dict[str, int] = {
    # outermost: a request is ok once its callback output is committed and its items stored
    "extensions.outcome.OutcomeSpiderMiddleware": 10,
    # list rows the spider reports (malformed, clashing numbers): logged, counted, recorded
    "extensions.notices.NoticeSpiderMiddleware": 15,
}

# A progress line every HARVEST_PROGRESS_INTERVAL seconds (float, default 60 in
# extensions/progress.py; 0 = none) and a summary at the end, whose verdict is the exit status of
# `scrapy crawl` (harvest/exit_status.py, README "Exit status").
_SCHEDULER_EXTENSIONS: dict[str, int | None] = {
    "extensions.progress.ProgressReporter": 0,
    # a refused start closes a spider that never opened: no AssertionError traceback for it
    "scrapy.extensions.corestats.CoreStats": None,
    "extensions.expected_failures.CoreStats": 0,
}

# --- item pipeline (pipelines/) -------------------------------------------------------------
# Every case part is upserted into <HARVEST_WORKSPACE>/items.sqlite (docs/pipeline.md).
# DEDUPE_ENABLED (bool, default True, pipelines.dedupe.DEFAULT_DEDUPE_ENABLED): off = no storing.
_PIPELINES: dict[str, int] = {"pipelines.dedupe.DedupePipeline": 300}

# --- SIPP sessions and page validation (harvest/) -------------------------------------------
_SIPP_DOWNLOADER_MIDDLEWARES: dict[str, int | None] = {
    # one cookie jar per case, bounded, warmed with a full page when cold
    "scrapy.downloadermiddlewares.cookies.CookiesMiddleware": None,
    "harvest.sessions.SippSessionMiddleware": 700,
    # error pages served with 200 and wrong-case pages: retried like a 5xx (between Retry 550
    # and Redirect 600, so it judges the final page of a redirect chain)
    "harvest.validation.SippValidationMiddleware": 580,
    # JavaScript challenges: pass them in a browser, copy the clearance into every request
    # (after HttpCompression 590 decodes the body, before validation 580; before sessions 700)
    "harvest.clearance.ClearanceMiddleware": 585,
    # a court's own proxy (its court list's proxy column; credentials from the environment
    # only, taken off each request when it comes back): just before HttpProxyMiddleware 750
    "harvest.court_proxy.CourtProxyMiddleware": 745,
}
# SIPP_SESSION_MAX_JARS (int, default 256 in harvest/sessions.py): cookie jars kept at once.
# Browser for JavaScript challenges (docs/browser.md; defaults in harvest/clearance.py):
# SIPP_BROWSER (str, default "off"): "challenge" = pass a detected challenge in Chromium, then
#   crawl by plain HTTP with its clearance cookies; "off" = a challenge fails the court's requests.
# SIPP_BROWSER_TIMEOUT (float seconds, default 30): wait for the clearance cookie (and navigation).
# SIPP_BROWSER_EXECUTABLE (str, default "/usr/bin/chromium"): the Chromium binary to launch.
# SIPP_BROWSER_COOKIES (list, default ["cf_clearance"]): clearance cookie names.

# --- page archive (harvest/archive/, docs/archive.md) ----------------------------------------
# HARVEST_ARCHIVE (bool, default True): every parsed page as WARC in <HARVEST_WORKSPACE>/archive.
# HARVEST_ARCHIVE_MAX_FILE_BYTES (int, default 256 MiB): a WARC file is rotated past this size.
# HARVEST_ARCHIVE_WRITER (str, default "thread"): where pages are encoded and written: a thread
#   of the crawl ("thread") or a process of its own ("process").
# HARVEST_ARCHIVE_RETENTION_DAYS (float, default 0): `scrapy archive --prune` also keeps the
#   superseded records fetched within this many days (0: the latest record of each key only).
_ARCHIVE_DOWNLOADER_MIDDLEWARES: dict[str, int | None] = {
    # each request's final response and every warm-up (below Retry 550 and Redirect 600)
    "harvest.archive.middleware.ArchiveMiddleware": 30,
    # a pending request whose page an earlier run of this generation archived is answered
    # from the archive (a resumed or upgraded crawl asks the court once): after the court
    # guard 30, before validation 580 and the session warm-ups 700
    "harvest.archive.replay.ArchiveReplayMiddleware": 40,
}

# --- assembled (do not edit: add to the section of your component above) --------------------
DOWNLOADER_MIDDLEWARES: dict[str, int | None] = {
    **_SCHEDULER_DOWNLOADER_MIDDLEWARES,
    **_SIPP_DOWNLOADER_MIDDLEWARES,
    **_ARCHIVE_DOWNLOADER_MIDDLEWARES,
}
SPIDER_MIDDLEWARES = {**_SCHEDULER_SPIDER_MIDDLEWARES}
EXTENSIONS = {**_SCHEDULER_EXTENSIONS, **_PACING_EXTENSIONS}
ITEM_PIPELINES = {**_PIPELINES}
