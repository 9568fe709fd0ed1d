"""Court lists for multi-court crawls: ``-a courts=FILE`` and ``scrapy courts add FILE``.

A court list is a CSV file with a header row naming its columns: ``base_url`` (required),
``court_id`` (default: derived from the URL, as ``-a base_url`` does), ``listing`` and ``tabs``
(optional, as ``-a listing`` / ``-a tabs``; empty: the crawl's own value). Lines whose first
cell starts with ``#`` and blank lines are skipped. A file that is not UTF-8 text, a line with
more cells than the header, an unterminated quote, a court id or a ``base_url`` given twice, a
``base_url`` with credentials in it: each is refused with one line naming the file and court.
docs/multi-court.md.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from pathlib import Path
from urllib.parse import urlsplit

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
    except UnicodeDecodeError:
        text = "\x00"
    if "\x00" in text:
        raise CourtListError(
            f"the court list {str(file)!r} is not a UTF-8 text file (binary data); give a CSV "
            "file with the columns base_url, court_id, listing, tabs (docs/multi-court.md)"
        )
    # comment lines are blanked (not dropped: the reader's line numbers stay the file's)
    lines = ["" if line.lstrip().startswith("#") else line for line in text.splitlines()]
    reader = csv.reader(io.StringIO("\n".join(lines) + "\n"), strict=True)
    rows: list[tuple[int, list[str]]] = []
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                rows.append((reader.line_num, row))
    except csv.Error as exc:
        raise CourtListError(
            f"{file}, line {reader.line_num}: not valid CSV ({exc}: an unterminated quote?)"
        ) from None
    if not rows:
        raise CourtListError(f"the court list {str(file)!r} is empty: no header, no court")
    header = [h.strip().lower() for h in rows[0][1]]
    unknown = [h for h in header if h not in COLUMNS]
    if "base_url" not in header or unknown:
        raise CourtListError(
            f"the court list {str(file)!r} has the header {','.join(header)!r}: its first row "
            f"must name the columns, base_url required, among {', '.join(COLUMNS)}"
        )
    out: list[CourtEntry] = []
    seen: dict[str, int] = {}
    urls: dict[tuple[str, str, int, str], tuple[int, str]] = {}
    for number, (line, row) in enumerate(rows[1:], start=2):
        extra = [cell for cell in row[len(header) :] if cell.strip()]
        if extra:
            raise CourtListError(
                f"{file}, court {number - 1} (line {line}): {len(row)} cells, but the header "
                f"names {len(header)} columns ({','.join(header)}); quote a cell that holds a "
                "comma"
            )
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
        parts = urlsplit(args.base_url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        site = (parts.scheme, (parts.hostname or "").lower(), port, parts.path.rstrip("/"))
        if site in urls:
            first, first_id = urls[site]
            raise CourtListError(
                f"{file}, court {number - 1}: base_url {args.base_url} is already court {first} "
                f"({first_id!r}); a court listed twice would be crawled twice as fast as its "
                "polite rate: give each court once"
            )
        urls[site] = (number - 1, args.court_id)
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
