"""Helpers shared by the tests, the benchmarks and scripts/demo.py: each defined once, here.

Never imported by the product. ``paths`` (where the checkout is, how to run its commands),
``waiting`` (waits on observable state, with a deadline), ``harvest_run`` (crawls and commands as
subprocesses, the settings for crawling the replica), ``scheduler`` (state queries and the mini
spider's crawls), ``ingest`` (workspaces to ship and the reference ingest API as a subprocess),
``items`` (parts of made-up cases), ``pages`` (saved pages, replica page patterns), ``net``
(a port that refuses connections), ``browser`` (Chromium or skip), ``replica_pages`` (every
page of a replica crawl, for the text-coverage test), ``text_coverage`` (visible text a parse
left out of the item), ``archive`` (archive exchanges and warcio as the oracle), ``servers``
(a rewriting proxy, a TLS terminator, counting and catch-all servers), ``clearance`` (a stand-in
browser for the clearance middleware), ``gatecrawl`` (a crawl behind the replica's gate, run as
``python -m tests.support.gatecrawl``), ``minisite`` / ``minispider`` (the scheduler's tiny site
and spider), ``missing_parts`` (requests whose parts the item store lacks), ``previous_release``
(the previous release's tree), ``scrapyd`` (scrapyd's API, the egg, a host interpreter),
``store`` (a run, a new request, a row's events in any request store), ``parts_spider`` /
``warn_spider`` (spiders the pipeline and parse-warning tests run).

A test module imports helpers from here only, never from another test module, and no private
(``_x``) name of another module; a module a test runs (a spider, a crawl script) lives here too.
"""
