"""Parse warnings: what a parser kept generically because it did not know the shape.

A parser never raises on a shape it does not know and never drops it: it keeps the text in a
generic record (``lainnya`` label/value rows, or table rows) and calls :func:`warn`. The caller
(the spider) collects the warnings of one page with :func:`collect_warnings`, counts them in
stats and records them in the state, so ``scrapy status`` shows them per page kind and label.

The collector is a context variable, so the parsers stay pure functions with their plain
signatures: outside :func:`collect_warnings`, :func:`warn` does nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["ParseWarning", "collect_warnings", "warn"]


@dataclass(frozen=True, slots=True)
class ParseWarning:
    """One shape a parser kept generically.

    ``page``: what was parsed (``"detail"``, ``"list"``, or ``"tab:<slug>"``); ``label``: the
    row label, block heading or column name as shown on the page (whitespace collapsed);
    ``kind``: what was unknown (``"row"``, ``"block"``, ``"column"``, ``"value"``,
    ``"page"``), so the same label in two roles is two warnings.
    """

    page: str
    label: str
    kind: str


_collector: ContextVar[list[ParseWarning] | None] = ContextVar("sipp_parse_warnings", default=None)


def warn(page: str, label: str, kind: str) -> None:
    """Record that ``label`` on ``page`` was kept generically (no-op outside a collector)."""
    found = _collector.get()
    if found is not None:
        found.append(ParseWarning(page, " ".join(label.split()), kind))


@contextmanager
def collect_warnings() -> Iterator[list[ParseWarning]]:
    """Collect the warnings raised inside the block into the yielded list (nesting-safe)."""
    found: list[ParseWarning] = []
    token = _collector.set(found)
    try:
        yield found
    finally:
        _collector.reset(token)
