"""Court lists for multi-court crawls: ``-a courts=FILE`` and ``scrapy courts add FILE``.

A court list is a CSV file with a header row naming its columns: ``base_url`` (required),
``court_id`` (default: derived from the URL, as ``-a base_url`` does), ``listing`` and ``tabs``
(optional, as ``-a listing`` / ``-a tabs``; empty: the crawl's own value), ``proxy`` (optional:
a proxy URL without credentials, or ``env:NAME``, the environment variable that holds the proxy
URL with its credentials) and the court directory's facts ``kind`` (pn, pa, ptun, militer;
default from the court id), ``name``, ``city``, ``province``, ``high_court`` (``snapshot`` is
read and ignored). Lines whose first cell starts with ``#`` and blank lines are skipped. A file
that is not UTF-8 text, a line with more cells than the header, an unterminated quote, a court
id or a ``base_url`` given twice, a ``base_url`` with credentials in it: each is refused with one
line naming the file and court. docs/multi-court.md, docs/national.md.

The court directory shipped with the project (:data:`DIRECTORY`) is such a list.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from harvest.spider_args import SippArgs, SpiderArgumentError

__all__ = [
    "COLUMNS",
    "DIRECTORY",
    "KINDS",
    "REGISTERED",
    "CourtEntry",
    "CourtListError",
    "kind_of",
    "read_courts",
    "read_directory",
    "resolve_proxy",
]

#: ``-a courts=registered``: the courts registered in the state (``scrapy courts add FILE``).
REGISTERED = "registered"
#: The columns of a court list (``base_url`` required).
COLUMNS = (
    "base_url", "court_id", "listing", "tabs", "proxy",
    "kind", "name", "city", "province", "high_court", "snapshot",
)  # fmt: skip
#: The court kinds: district (pn), religious (pa), administrative (ptun), military courts.
KINDS = ("pn", "pa", "ptun", "militer")
#: The court directory shipped with the project (docs/national.md names its sources).
DIRECTORY = Path(__file__).with_name("court_directory.csv")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class CourtListError(SpiderArgumentError):
    """A court list cannot be read or has a bad line; the message names the file and line."""


@dataclasses.dataclass(frozen=True)
class CourtEntry:
    """One court of a list (also a ``courts`` row of the request state)."""

    court_id: str
    base_url: str
    listing: str | None = None
    tabs: str | None = None
    proxy: str | None = None
    kind: str | None = None
    name: str | None = None
    city: str | None = None
    province: str | None = None
    high_court: str | None = None


def kind_of(court_id: str) -> str | None:
    """The kind a court id's prefix names (``pn-bandung``: pn; ``dilmil-...``: militer)."""
    prefix = court_id.split("-", 1)[0].lower()
    if prefix in ("dilmil", "pm", "militer"):
        return "militer"
    return prefix if prefix in KINDS else None


def _check_proxy(value: str) -> str:
    """A ``proxy`` cell: ``env:NAME`` or a proxy URL without credentials (why: they would be
    stored in the state); raises ``ValueError`` saying what to give."""
    if value.lower().startswith("env:"):
        name = value[4:].strip()
        if not _ENV_NAME.fullmatch(name):
            raise ValueError(f"proxy {value!r}: env: must name an environment variable")
        return f"env:{name}"
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"proxy {value!r} is not an http(s):// proxy URL; give http://HOST:PORT or env:NAME"
        )
    if parts.username or parts.password:
        raise ValueError(
            "a proxy URL with credentials is refused (it would be stored): put the URL in an "
            "environment variable and give env:NAME"
        )
    return value


def resolve_proxy(value: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The proxy URL a court's ``proxy`` names (``env:NAME``: that variable's value, which may
    carry credentials); ``None`` for no proxy. Raises :class:`CourtListError` when the variable
    is not set. The value is never logged nor stored."""
    if not value:
        return None
    if not value.startswith("env:"):
        return value
    env = os.environ if environ is None else environ
    name = value[4:]
    url = env.get(name, "").strip()
    if not url:
        raise CourtListError(
            f"proxy env:{name}: the environment variable {name} is not set; export it with the "
            "proxy URL (http://user:password@host:port) before the crawl"
        )
    return url


def read_courts(path: str | Path) -> list[CourtEntry]:
    """The courts of the CSV file at ``path``, in file order (a court id twice is an error)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise CourtListError(
            f"cannot read the court list {str(file)!r} ({exc.strerror or exc}); give a CSV file "
            "with the columns base_url, court_id, listing, tabs, proxy (docs/multi-court.md)"
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
        kind = (cells.get("kind") or "").lower() or None  # status derives it: kind_of
        if kind is not None and kind not in KINDS:
            raise CourtListError(
                f"{file}, court {number - 1}: kind {cells.get('kind')!r} is not one of "
                f"{', '.join(KINDS)}"
            )
        proxy = cells.get("proxy") or None
        try:
            proxy = _check_proxy(proxy) if proxy else None
        except ValueError as exc:
            raise CourtListError(f"{file}, court {number - 1}: {exc}") from None
        out.append(
            CourtEntry(
                court_id=args.court_id,
                base_url=args.base_url,
                listing=cells.get("listing") or None,
                tabs=cells.get("tabs") or None,
                proxy=proxy,
                kind=kind,
                name=cells.get("name") or None,
                city=cells.get("city") or None,
                province=cells.get("province") or None,
                high_court=cells.get("high_court") or None,
            )
        )
    return out


def read_directory(
    path: str | Path | None = None, *, kind: str | None = None, province: str | None = None
) -> list[CourtEntry]:
    """The courts of the court directory (``path``, default :data:`DIRECTORY`), those of
    ``kind`` and ``province`` only when given (case-insensitive); a filter that keeps no court
    is an error naming the values there are."""
    entries = read_courts(DIRECTORY if path is None else path)
    if kind is not None:
        wanted = kind.strip().lower()
        if wanted not in KINDS:
            raise CourtListError(f"--kind {kind!r} is not one of {', '.join(KINDS)}")
        entries = [e for e in entries if e.kind == wanted]
    if province is not None:
        provinces = sorted({e.province for e in entries if e.province})
        wanted = province.strip().casefold()
        kept = [e for e in entries if (e.province or "").casefold() == wanted]
        if not kept:
            raise CourtListError(
                f"--province {province!r} names no court of the directory"
                + (" (of that kind)" if kind else "")
                + f"; provinces: {', '.join(provinces)}"
            )
        entries = kept
    return entries
