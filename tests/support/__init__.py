"""Helpers shared by the tests, the benchmarks and scripts/demo.py: each defined once, here.

Never imported by the product. ``paths`` (where the checkout is, how to run its commands),
``waiting`` (waits on observable state, with a deadline), ``harvest_run`` (crawls and commands as
subprocesses, the settings for crawling the replica), ``scheduler`` (state queries and the mini
spider's crawls), ``ingest`` (workspaces to ship and the reference ingest API as a subprocess),
``items`` (parts of made-up cases), ``pages`` (saved pages, replica page patterns), ``net``
(a port that refuses connections), ``browser`` (Chromium or skip), ``replica_pages`` (every
page of a replica crawl, for the text-coverage test), ``text_coverage`` (visible text a parse
left out of the item).
"""
