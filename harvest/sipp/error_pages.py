"""Recognising error pages that a SIPP site serves with status 200.

:func:`page_error` answers one question: is this body the page we asked for, or an error page
in disguise? It returns a short, stable reason (stored as the request's last error) or ``None``.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Sequence

from harvest.base.identity import normalise_case_number

#: The page kinds ``page_error`` judges (a plain ``str`` parameter, checked at run time, so
#: callers may pass a value read from request meta).
EXPECT_KINDS = frozenset({"list", "detail", "tab"})

# Reasons (stable strings: the scheduler stores them, operators grep for them).
EMPTY_BODY = "empty body"
JS_CHALLENGE = "js challenge"
DATABASE_ERROR = "database error"
PHP_ERROR = "php error"
PARAMETER_ERROR = "parameter url error"
APPLICATION_ERROR = "application error"
PERKARA_NOT_FOUND = "perkara not found"
NOT_FOUND_PAGE = "404 page"
LIST_INSTEAD_OF_DETAIL = "list page instead of detail"
LIST_INSTEAD_OF_TAB = "full page instead of tab"
NOT_A_LIST_PAGE = "not a list page"
NOT_A_DETAIL_PAGE = "not a detail page"
SESSION_NOT_WARMED = "session not warmed: party labels missing"
TRUNCATED = "truncated page"
WRONG_CASE = "wrong case"

# Everything is matched on the lower-cased body; fixed markers are plain substring tests.
# A WAF / Cloudflare browser check: these never appear on a SIPP page.
_CHALLENGE_STRONG = (
    "/cdn-cgi/challenge-platform/",
    "cf-browser-verification",
    "cf_chl_opt",
    "checking your browser before accessing",
    "enable javascript and cookies to continue",
)
_CHALLENGE_TITLE = re.compile(r"<title>\s*just a moment\.\.\.\s*</title>")
# reCAPTCHA gates: only a challenge when the page has none of SIPP's own structure (a site may
# embed a captcha in an otherwise good page).
_CHALLENGE_WEAK = ("g-recaptcha", "grecaptcha", "google.com/recaptcha")
_SIPP_MARKERS = ("tableperkaraall", "tableinfo", "infoperkara", "closeloading")
# CodeIgniter's error templates (errors/error_db.php, error_php.php, error_general.php,
# error_404.php) and the app's own messages.
_DATABASE = "a database error occurred"
_PHP = "a php error was encountered"
_PARAMETER = "parameter url not setup correctly"
_GENERAL = "an error was encountered"
_PERKARA_NOT_FOUND = re.compile(r"error\s+perkara\s+not\s+found\s*!")
_404 = re.compile(r"<title>\s*404 page not found\s*</title>|<h1>\s*404 page not found")
_PIHAK_NOT_FOUND = re.compile(r"error,\s*pihak\s+not\s+found")
_LIST_TABLE = re.compile(r"""id\s*=\s*["']?tableperkaraall""")
_DETAIL_TITLE = re.compile(r"informasi\s+detail\s+perkara")
_HEADER_TABLE = re.compile(r"""<table[^>]*\bid\s*=\s*["']?tableinfo\b""")
_HTML_END = re.compile(r"</html\s*>\s*$")
_HTML_START = re.compile(r"^\s*(?:<!doctype[^>]*>\s*)?<html")
# (pasca_pailit/sub_pemberesan.php ends with one more line: ``$("#penjualan").click();``)
_FRAGMENT_END = re.compile(
    r"closeloading\(\)\s*;?\s*(?:\$\(\"#penjualan\"\)\.click\(\);?\s*)?</script>\s*$"
)
_HEADER_CASE = re.compile(
    r"""<table[^>]*\bid\s*=\s*["']?tableinfo\b.*?</tr>.*?<tr[^>]*>\s*<td[^>]*>(.*?)</td>""",
    re.IGNORECASE | re.DOTALL,
)
_TAGS = re.compile(r"<[^>]+>")
#: How much of a body's end is searched for its closing tag / closeLoading script.
_TAIL = 400


def page_error(
    html: str,
    *,
    expect: str,
    case_number: str | None = None,
    party_labels_missing: bool = False,
    shown_labels: Sequence[str] = (),
) -> str | None:
    """Why ``html`` is not a good ``expect`` page, or ``None`` when it is one.

    ``expect`` is ``"list"``, ``"detail"`` or ``"tab"`` (a ``.load()`` fragment). Reasons:
    ``empty body``, ``js challenge``, ``database error``, ``php error`` (also a notice block
    injected into an otherwise good page), ``parameter url error``, ``application error``,
    ``perkara not found``, ``404 page``, ``list page instead of detail``, ``full page instead of
    tab``, ``not a list page``, ``not a detail page``, ``truncated page``, ``session not warmed:
    party labels missing`` (tabs only: a full page may legitimately show ``Error, Pihak Not
    Found!!!`` when the court's label table lacks a role), and ``wrong case`` when
    ``case_number`` is given and a detail page's header shows another number.

    ``party_labels_missing``: the case's own detail page showed ``Error, Pihak Not Found!!!``
    as a party label (:attr:`DetailPage.party_labels_missing`, e.g. every PA court). Its tab
    fragments then print that text in every party-label cell whatever the session, so it is not
    a sign of a cold session and is not reported.

    ``shown_labels``: the party labels the case's detail header showed (``Penggugat``,
    ``Tergugat``). A cold session prints the error text for *every* role, so a fragment that
    also shows one of them as a label cell (``<td>Penggugat 1</td>``, ``Kepada Penggugat``) is
    warm: its error text is a role the court's label table lacks (a Turut Tergugat, pihakke 4),
    kept as the court printed it.
    """
    if expect not in EXPECT_KINDS:
        raise ValueError(f"expect must be 'list', 'detail' or 'tab', not {expect!r}")
    body = html.strip()
    if not body:
        return EMPTY_BODY
    low = body.lower()
    head, tail = low[:_TAIL], low[-_TAIL:]
    if _challenge(low, head):
        return JS_CHALLENGE
    if _DATABASE in low:
        return DATABASE_ERROR
    if _PHP in low:
        return PHP_ERROR
    if _PARAMETER in low:
        return PARAMETER_ERROR
    if _404.search(low):
        return NOT_FOUND_PAGE
    if _GENERAL in low:
        return APPLICATION_ERROR
    if _PERKARA_NOT_FOUND.search(low):
        return PERKARA_NOT_FOUND
    if expect == "list":
        return _list_error(low, tail)
    if expect == "detail":
        return _detail_error(body, low, tail, case_number)
    return _tab_error(low, head, tail, party_labels_missing, shown_labels)


def _shows_a_label(low: str, labels: Sequence[str]) -> bool:
    """``low`` (a lower-cased fragment) shows one of ``labels`` as a party-label cell: the
    whole text of a cell (``label`` or ``label <urutan>``, putusan_akhir.php:223) or after
    ``Kepada [Pihak]`` (putusan_sela.php:72-80). A label inside running text (an amar naming
    the Tergugat) does not count."""
    for label in labels:
        words = r"\s+".join(re.escape(w) for w in label.lower().split())
        if not words or _PIHAK_NOT_FOUND.search(label.lower()):
            continue
        cell = rf"<td[^>]*>\s*(?:<font[^>]*>\s*)?{words}(?:\s+\d+)?\s*(?:</font>\s*)?</td>"
        notice = rf"kepada\s+(?:pihak\s+)?{words}\s*(?:</font>\s*)?</td>"
        if re.search(cell, low) or re.search(notice, low):
            return True
    return False


def _challenge(low: str, head: str) -> bool:
    if any(marker in low for marker in _CHALLENGE_STRONG) or _CHALLENGE_TITLE.search(head):
        return True
    if any(marker in low for marker in _CHALLENGE_WEAK):
        return not any(marker in low for marker in _SIPP_MARKERS)
    return False


def _list_error(low: str, tail: str) -> str | None:
    complete = bool(_HTML_END.search(tail))
    if not _LIST_TABLE.search(low):
        return NOT_A_LIST_PAGE if complete else TRUNCATED
    return None if complete else TRUNCATED


def _detail_error(body: str, low: str, tail: str, case_number: str | None) -> str | None:
    complete = bool(_HTML_END.search(tail))
    has_header = bool(_HEADER_TABLE.search(low))
    if not (has_header or _DETAIL_TITLE.search(low)):
        if _LIST_TABLE.search(low):
            return LIST_INSTEAD_OF_DETAIL
        return NOT_A_DETAIL_PAGE if complete else TRUNCATED
    if not complete:
        return TRUNCATED
    if not has_header:
        return NOT_A_DETAIL_PAGE
    if case_number is not None:
        m = _HEADER_CASE.search(body)
        shown = normalise_case_number(html_lib.unescape(_TAGS.sub(" ", m.group(1)))) if m else ""
        if shown != normalise_case_number(case_number):
            return WRONG_CASE
    return None


def _tab_error(
    low: str, head: str, tail: str, party_labels_missing: bool, shown_labels: Sequence[str]
) -> str | None:
    if _HTML_START.search(head) or _LIST_TABLE.search(low) or _DETAIL_TITLE.search(low):
        return LIST_INSTEAD_OF_TAB
    if (
        not party_labels_missing
        and _PIHAK_NOT_FOUND.search(low)
        and not _shows_a_label(low, shown_labels)
    ):
        return SESSION_NOT_WARMED
    if not _FRAGMENT_END.search(tail):
        return TRUNCATED
    return None
