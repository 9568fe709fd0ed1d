"""The ``sipp`` spider's arguments (``-a name=value``), parsed and validated before any request."""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from harvest.base.identity import IdentityError, court_id_from_url, validate_court_id
from harvest.base.scrubbing import mask_userinfo
from harvest.sipp.detail_page import TAB_DIV_SLUGS

ALL_CASES = "all"
#: The ``-a`` names the sipp spider takes (README, "Spider arguments").
ARGUMENT_NAMES = (
    "base_url",
    "court_id",
    "listing",
    "max_cases",
    "since",
    "until",
    "tabs",
    "refresh",
)
#: The ``-a`` names of a multi-court crawl (docs/multi-court.md), read by the spider itself.
MULTI_ARGUMENTS = ("courts", "max_courts")
#: ``-a refresh=``: ``none`` (default: finish pending work, resume an unfinished refresh, do
#: nothing new on a finished court), ``due`` and ``all`` (docs/refresh.md).
REFRESH_POLICIES = ("none", "due", "all")
#: Every tab slug a SIPP detail page can list (``-a tabs`` takes a subset).
TAB_SLUGS: frozenset[str] = frozenset(TAB_DIV_SLUGS.values())


class SpiderArgumentError(ValueError):
    """A ``-a`` argument of the sipp spider is missing or malformed; the message says the fix."""


@dataclass(frozen=True)
class SippArgs:
    base_url: str
    court_id: str
    listing: str = ALL_CASES
    max_cases: int | None = None
    since: str | None = None
    until: str | None = None
    tabs: frozenset[str] | None = None
    refresh: str = "none"

    @classmethod
    def parse(
        cls,
        *,
        base_url: str | None = None,
        court_id: str | None = None,
        listing: str | None = None,
        max_cases: str | int | None = None,
        since: str | None = None,
        until: str | None = None,
        tabs: str | None = None,
        refresh: str | None = None,
    ) -> SippArgs:
        if not base_url:
            raise SpiderArgumentError(
                "missing -a base_url=<court SIPP root>, e.g. "
                "-a base_url=https://sipp.pn-jakartapusat.go.id/"
            )
        base = _normalise_base_url(base_url)
        try:
            cid = validate_court_id(court_id) if court_id else court_id_from_url(base)
        except IdentityError as exc:
            raise SpiderArgumentError(str(exc)) from exc
        since_d = _iso_date("since", since)
        until_d = _iso_date("until", until)
        if since_d and until_d and since_d > until_d:
            raise SpiderArgumentError(f"-a since={since_d} is after -a until={until_d}")
        return cls(
            base_url=base,
            court_id=cid,
            listing=(listing or ALL_CASES).strip() or ALL_CASES,
            max_cases=_positive_int("max_cases", max_cases),
            since=since_d,
            until=until_d,
            tabs=_tab_set(tabs),
            refresh=_refresh(refresh),
        )

    @classmethod
    def from_arguments(cls, given: Mapping[str, object]) -> SippArgs:
        """Parse the ``-a`` arguments as the spider receives them, refusing unknown names.

        Names starting with ``_`` are the runner's own (scrapyd's ``_job``) and are skipped.
        """
        unknown = sorted(
            k
            for k in given
            if k not in ARGUMENT_NAMES and k not in MULTI_ARGUMENTS and not k.startswith("_")
        )
        if unknown:
            raise SpiderArgumentError("; ".join(_unknown_name(name) for name in unknown))
        values = {
            k: (None if v is None else str(v)) for k, v in given.items() if k in ARGUMENT_NAMES
        }
        return cls.parse(**values)  # type: ignore[arg-type]

    @staticmethod
    def positive(name: str, value: object) -> int | None:
        """``-a <name>``: a whole number >= 1, or None when not given."""
        return _positive_int(name, None if value is None else str(value))

    @staticmethod
    def tab_set(value: str | None) -> frozenset[str] | None:
        """``-a tabs`` (or a court list's ``tabs`` column) as a set of slugs."""
        return _tab_set(value)

    def wants_tab(self, slug: str) -> bool:
        return self.tabs is None or slug in self.tabs


def _unknown_name(name: str) -> str:
    close = difflib.get_close_matches(name, ARGUMENT_NAMES, n=1, cutoff=0.6)
    names = ", ".join(ARGUMENT_NAMES + MULTI_ARGUMENTS)
    if close:
        return f"unknown spider argument -a {name}: did you mean -a {close[0]}=...? ({names})"
    return f"unknown spider argument -a {name}: the sipp spider takes {names}"


def _normalise_base_url(value: str) -> str:
    url = value.strip()
    shown = mask_userinfo(url)
    example = "e.g. https://sipp.pn-jakartapusat.go.id/ or https://pn-sleman.go.id/sipp/"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:  # a port out of 0-65535 or not a number, a broken [IPv6] literal
        raise SpiderArgumentError(
            f"-a base_url={shown!r} is not a valid URL ({exc}); give the court's SIPP root, "
            f"{example}"
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SpiderArgumentError(
            f"-a base_url={shown!r} is not an http(s) URL; give the court's SIPP root, {example}"
        )
    if "@" in parts.netloc:
        raise SpiderArgumentError(
            f"-a base_url={shown!r} has a user name or password in it: a court's SIPP is public, "
            "and credentials in a URL end up in logs and in the state; give the URL without them"
        )
    if port == 0:
        raise SpiderArgumentError(
            f"-a base_url={shown!r} has port 0; give the court's real port (1-65535) or none"
        )
    if any(c.isspace() for c in url):
        raise SpiderArgumentError(f"-a base_url={shown!r} contains spaces; give the SIPP root")
    if parts.query or parts.fragment:
        raise SpiderArgumentError(
            f"-a base_url={shown!r} has a query or fragment; give the SIPP root only "
            "(SIPP routes are path segments)"
        )
    return url if url.endswith("/") else url + "/"


def _iso_date(name: str, value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    try:
        return dt.date.fromisoformat(value.strip()).isoformat()
    except ValueError as exc:
        raise SpiderArgumentError(
            f"-a {name}={value!r} is not a date; use YYYY-MM-DD (registration date)"
        ) from exc


def _positive_int(name: str, value: str | int | None) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        number = int(value)
    except ValueError as exc:
        raise SpiderArgumentError(f"-a {name}={value!r} is not a whole number") from exc
    if number < 1:
        raise SpiderArgumentError(f"-a {name}={value!r} must be at least 1")
    return number


def _refresh(value: str | None) -> str:
    if value is None or not value.strip():
        return "none"
    policy = value.strip().lower()
    if policy not in REFRESH_POLICIES:
        raise SpiderArgumentError(
            f"-a refresh={value!r} is not a refresh policy; use none (default: finish what is "
            "pending), due (new, changed and due cases) or all (every case again)"
        )
    return policy


def _tab_set(value: str | None) -> frozenset[str] | None:
    if value is None or not value.strip():
        return None
    if value.strip().lower() == "none":
        return frozenset()  # list pages and case details only
    slugs = frozenset(s.strip().lower() for s in value.split(",") if s.strip())
    bad = sorted(slugs - TAB_SLUGS)
    if bad:
        hints = []
        for slug in bad:
            close = difflib.get_close_matches(slug, sorted(TAB_SLUGS), n=1, cutoff=0.6)
            hints.append(f"{slug} (did you mean {close[0]}?)" if close else slug)
        raise SpiderArgumentError(
            f"-a tabs: {', '.join(hints)} "
            f"{'is not a tab slug' if len(bad) == 1 else 'are not tab slugs'}; "
            f"give comma-separated slugs among: {', '.join(sorted(TAB_SLUGS))}"
        )
    return slugs
