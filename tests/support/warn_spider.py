"""The ``sipp`` spider on a court whose Saksi tab has no parser: every Saksi page is kept by the
generic parser with a ``tab:saksi`` / ``saksi`` / ``page`` parse warning.

``scrapy crawl sipp -s SPIDER_MODULES=tests.support.warn_spider ...`` (the spider keeps its name).
"""

from __future__ import annotations

from harvest.sipp.tabs import TAB_PARSERS
from harvest.spiders.sipp import SippSpider

TAB_PARSERS.pop("saksi", None)


class SaksiUnknownSpider(SippSpider):
    """The ``sipp`` spider itself (Scrapy finds only classes defined in the module)."""

    name = "sipp"
