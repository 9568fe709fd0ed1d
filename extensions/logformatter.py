"""Log lines about items that never carry an item's data (case data names real people).

``LOG_FORMATTER = "extensions.logformatter.PartLogFormatter"`` (harvest/settings.py). Scrapy's
own formatter writes the whole item into "Scraped from", "Dropped" and "Error processing" lines
(a full case document, at ERROR level when the disk is full). This one writes the item's keys
instead: its class, the identifying fields of a case part (court, case number, part) and the
names of the other fields, never their values, at every level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter, is_item
from scrapy.logformatter import LogFormatter

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.http import Response
    from scrapy.logformatter import LogFormatterResult
    from twisted.python.failure import Failure

__all__ = ["IDENTIFYING_FIELDS", "PartLogFormatter", "item_summary"]

#: Fields whose values identify an item without being its content (they make the dedupe key).
IDENTIFYING_FIELDS = ("court", "nomor_perkara", "part")
_MAX_VALUE = 120


def item_summary(item: Any) -> str:
    """``CasePart(court='pn-x', nomor_perkara='1/Pid.B/2024/PN X', part='case'; data, url, ...)``.

    Identifying values are cut to 120 characters; every other field is named, never shown.
    """
    name = type(item).__name__
    if not is_item(item):
        return f"{name}(...)"
    adapter = ItemAdapter(item)
    shown = []
    for key in IDENTIFYING_FIELDS:
        if key in adapter:
            value = adapter.get(key)
            text = repr(value if not isinstance(value, str) else value[:_MAX_VALUE])
            shown.append(f"{key}={text}")
    others = sorted(str(k) for k in adapter.field_names() if k not in IDENTIFYING_FIELDS)
    return f"{name}({', '.join(shown)}; fields {', '.join(others) or '-'})"


class PartLogFormatter(LogFormatter):
    """Scrapy's :class:`~scrapy.logformatter.LogFormatter` with items replaced by their keys."""

    def scraped(
        self, item: Any, response: Response | Failure | None, spider: Spider
    ) -> LogFormatterResult:
        result = super().scraped(item, response, spider)
        result["args"] = {**dict(result["args"]), "item": item_summary(item)}  # type: ignore[call-overload]
        return result

    def dropped(
        self,
        item: Any,
        exception: BaseException,
        response: Response | Failure | None,
        spider: Spider,
    ) -> LogFormatterResult:
        result = super().dropped(item, exception, response, spider)
        result["args"] = {**dict(result["args"]), "item": item_summary(item)}  # type: ignore[call-overload]
        return result

    def item_error(
        self,
        item: Any,
        exception: BaseException,
        response: Response | Failure | None,
        spider: Spider,
    ) -> LogFormatterResult:
        result = super().item_error(item, exception, response, spider)
        result["args"] = {**dict(result["args"]), "item": item_summary(item)}  # type: ignore[call-overload]
        return result
