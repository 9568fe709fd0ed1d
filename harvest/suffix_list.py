"""Scrapy's cookie handling, offline: the public suffix list bundled with ``tldextract``.

Scrapy's ``CookiesMiddleware`` (which :class:`harvest.sessions.SippSessionMiddleware` extends)
asks ``tldextract`` whether a cookie's domain is a public suffix. Scrapy's extractor fetches the
list from publicsuffix.org (then GitHub) on its first use and caches it under
``~/.cache/python-tldextract``: a crawl would connect to hosts other than the court and write
outside its workspace. :func:`install` replaces it with an extractor that reads the snapshot
shipped inside ``tldextract`` (no network, no cache). Idempotent; done when
:mod:`harvest.sessions` is imported.
"""

from __future__ import annotations

import scrapy.downloadermiddlewares.cookies as scrapy_cookies
from tldextract import TLDExtract

__all__ = ["OFFLINE_EXTRACT", "install"]

#: Private domains included, as Scrapy's own extractor does.
OFFLINE_EXTRACT = TLDExtract(
    cache_dir=None,
    suffix_list_urls=(),
    fallback_to_snapshot=True,
    include_psl_private_domains=True,
)


def install() -> None:
    """Make Scrapy's cookie middleware use :data:`OFFLINE_EXTRACT`."""
    scrapy_cookies._split_domain = OFFLINE_EXTRACT
