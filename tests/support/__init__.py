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
(the previous release's tree), ``scrapyd`` (scrapyd's API, the egg, a host interpreter).

A test module never imports a private (``_x``) name of another module, nor a helper from a
module in another test directory: what more than one directory needs is here.
"""
