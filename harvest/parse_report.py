"""Parse warnings of the page a spider callback parses: counted in stats, handed to the state.

The spider wraps each parse in :func:`parsed`: the warnings the parsers raise
(:mod:`harvest.sipp.warnings`) are counted in Scrapy stats (``harvest/parse_warnings/count``
and ``harvest/parse_warnings/<page>/<label>``), the first of each page/label/kind in a run is
logged, and the list is left in ``response.meta`` (:data:`META_PARSE_WARNINGS`), from where the
scheduler records it with the request's ``ok`` (``parse_warnings`` in ``state.sqlite``, shown
by ``scrapy status``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from scrapy import Spider
from scrapy.http import Response

from harvest.base.meta import META_PARSE_WARNINGS
from harvest.sipp.warnings import collect_warnings

__all__ = ["STAT_PREFIX", "parsed"]

logger = logging.getLogger(__name__)

STAT_PREFIX = "harvest/parse_warnings"

T = TypeVar("T")


def parsed(spider: Spider, response: Response, parse: Callable[[], T]) -> T:
    """``parse()``, with the parse warnings it raised counted and left in ``response.meta``.

    The warnings replace any an earlier parse of the same response left (one page, one list).
    """
    with collect_warnings() as found:
        result = parse()
    response.meta[META_PARSE_WARNINGS] = [[w.page, w.label, w.kind] for w in found]
    crawler = getattr(spider, "crawler", None)
    stats = crawler.stats if crawler is not None else None
    if found and stats is not None:
        stats.inc_value(f"{STAT_PREFIX}/count", len(found))
        for w in found:
            name = f"{STAT_PREFIX}/{w.page}/{w.label}"
            if not stats.get_value(name):
                logger.warning(
                    "parse warning: %s kept %s %r generically (first in this run: %s)",
                    w.page,
                    w.kind,
                    w.label,
                    response.url,
                )
            stats.inc_value(name)
    return result
