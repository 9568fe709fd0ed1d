"""Court lists for multi-court crawls: ``-a courts=FILE`` and ``scrapy courts add FILE``.

A court list is a CSV file with a header row naming its columns: ``base_url`` (required),
``court_id`` (default: derived from the URL, as ``-a base_url`` does), ``listing`` and ``tabs``
(optional, as ``-a listing`` / ``-a tabs``; empty: the crawl's own value). Lines whose first
cell starts with ``#`` and blank lines are skipped. docs/multi-court.md.
"""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

from harvest.spider_args import SippArgs, SpiderArgumentError

__all__ = ["COLUMNS", "REGISTERED", "CourtEntry", "CourtListError", "read_courts"]

#: ``-a courts=registered``: the courts registered in the state (``scrapy courts add FILE``).
REGISTERED = "registered"
#: The columns of a court list (``base_url`` required).
COLUMNS = ("base_url", "court_id", "listing", "tabs")


class CourtListError(SpiderArgumentError):
    """A court list cannot be read or has a bad line; the message names the file and line."""


@dataclasses.dataclass(frozen=True)
class CourtEntry:
    """One court of a list (also a ``courts`` row of the request state)."""

    court_id: str
    base_url: str
    listing: str | None = None
    tabs: str | None = None


def read_courts(path: str | Path) -> list[CourtEntry]:
    """The courts of the CSV file at ``path``, in file order (a court id twice is an error)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise CourtListError(
            f"cannot read the court list {str(file)!r} ({exc.strerror or exc}); give a CSV file "
            "with the columns base_url, court_id, listing, tabs (docs/multi-court.md)"
        ) from None
    rows = [r for r in csv.reader(text.splitlines()) if r and not r[0].lstrip().startswith("#")]
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise CourtListError(f"the court list {str(file)!r} is empty: no header, no court")
    header = [h.strip().lower() for h in rows[0]]
    unknown = [h for h in header if h not in COLUMNS]
    if "base_url" not in header or unknown:
        raise CourtListError(
            f"the court list {str(file)!r} has the header {','.join(header)!r}: its first row "
            f"must name the columns, base_url required, among {', '.join(COLUMNS)}"
        )
    out: list[CourtEntry] = []
    seen: dict[str, int] = {}
    for number, row in enumerate(rows[1:], start=2):
        cells = {name: (row[i].strip() if i < len(row) else "") for i, name in enumerate(header)}
        try:
            args = SippArgs.parse(
                base_url=cells.get("base_url") or None,
                court_id=cells.get("court_id") or None,
                listing=cells.get("listing") or None,
                tabs=cells.get("tabs") or None,
            )
        except SpiderArgumentError as exc:
            raise CourtListError(f"{file}, court {number - 1}: {exc}") from None
        if args.court_id in seen:
            raise CourtListError(
                f"{file}, court {number - 1}: court id {args.court_id!r} is already court "
                f"{seen[args.court_id]}; give each court once (or a court_id column)"
            )
        seen[args.court_id] = number - 1
        out.append(
            CourtEntry(
                court_id=args.court_id,
                base_url=args.base_url,
                listing=cells.get("listing") or None,
                tabs=cells.get("tabs") or None,
            )
        )
    return out
