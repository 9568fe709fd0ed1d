"""The page archive (docs/archive.md): every parsed response as WARC, indexed per request key.

:mod:`harvest.archive.store` writes and reads the WARC files and the SQLite index (no Scrapy);
:mod:`harvest.archive.middleware` feeds it during a crawl; :mod:`harvest.archive.reparse`
rebuilds the item store from it (``scrapy reparse``).
"""
