"""Recognising error pages that a SIPP site serves with status 200.

:func:`page_error` answers one question: is this body the page we asked for, or an error page
in disguise? It returns a short, stable reason (stored as the request's last error) or ``None``.
"""

from __future__ import annotations

import html as html_lib
import re

from harvest.identity import normalise_case_number

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

_CHALLENGE_MARKERS = (
    re.compile(r"<title>\s*Just a moment\.\.\.\s*</title>", re.IGNORECASE),
    re.compile(r"/cdn-cgi/challenge-platform/", re.IGNORECASE),
    re.compile(r"cf-browser-verification|cf_chl_opt|challenge-form", re.IGNORECASE),
    re.compile(r"Checking your browser before accessing", re.IGNORECASE),
    re.compile(r"g-recaptcha|grecaptcha|www\.google\.com/recaptcha", re.IGNORECASE),
    re.compile(r"Enable JavaScript and cookies to continue", re.IGNORECASE),
)
# CodeIgniter's error templates (errors/error_db.php, error_php.php, error_general.php,
# error_404.php) and the app's own messages.
_DATABASE = re.compile(r"A Database Error Occurred", re.IGNORECASE)
_PHP = re.compile(r"A PHP Error was encountered", re.IGNORECASE)
_PARAMETER = re.compile(r"Parameter URL Not Setup Correctly", re.IGNORECASE)
_GENERAL = re.compile(r"An Error Was Encountered", re.IGNORECASE)
_PERKARA_NOT_FOUND = re.compile(r"ERROR\s+PERKARA\s+NOT\s+FOUND\s*!", re.IGNORECASE)
_404 = re.compile(
    r"<title>\s*404 Page Not Found\s*</title>|<h1>\s*404 Page Not Found", re.IGNORECASE
)
_PIHAK_NOT_FOUND = re.compile(r"Error,\s*Pihak\s+Not\s+Found", re.IGNORECASE)
_LIST_TABLE = re.compile(r"""id\s*=\s*["']?tablePerkaraAll""", re.IGNORECASE)
_DETAIL_TITLE = re.compile(r"INFORMASI\s+DETAIL\s+PERKARA", re.IGNORECASE)
_HEADER_TABLE = re.compile(r"""<table[^>]*\bid\s*=\s*["']?tableinfo\b""", re.IGNORECASE)
_HTML_END = re.compile(r"</html\s*>\s*$", re.IGNORECASE)
_HTML_START = re.compile(r"^\s*(?:<!DOCTYPE[^>]*>\s*)?<html", re.IGNORECASE)
_FRAGMENT_END = re.compile(r"closeLoading\(\)\s*;?\s*</script>\s*$", re.IGNORECASE)
_HEADER_CASE = re.compile(
    r"""<table[^>]*\bid\s*=\s*["']?tableinfo\b.*?</tr>.*?<tr[^>]*>\s*<td[^>]*>(.*?)</td>""",
    re.IGNORECASE | re.DOTALL,
)
_TAGS = re.compile(r"<[^>]+>")


def page_error(
    html: str,
    *,
    expect: str,
    case_number: str | None = None,
    party_labels_missing: bool = False,
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
    """
    if expect not in EXPECT_KINDS:
        raise ValueError(f"expect must be 'list', 'detail' or 'tab', not {expect!r}")
    body = html.strip()
    if not body:
        return EMPTY_BODY
    if any(marker.search(body) for marker in _CHALLENGE_MARKERS):
        return JS_CHALLENGE
    if _DATABASE.search(body):
        return DATABASE_ERROR
    if _PHP.search(body):
        return PHP_ERROR
    if _PARAMETER.search(body):
        return PARAMETER_ERROR
    if _404.search(body):
        return NOT_FOUND_PAGE
    if _GENERAL.search(body):
        return APPLICATION_ERROR
    if _PERKARA_NOT_FOUND.search(body):
        return PERKARA_NOT_FOUND
    if expect == "list":
        return _list_error(body)
    if expect == "detail":
        return _detail_error(body, case_number)
    return _tab_error(body, party_labels_missing)


def _list_error(body: str) -> str | None:
    if not _LIST_TABLE.search(body):
        return TRUNCATED if not _HTML_END.search(body) else NOT_A_LIST_PAGE
    if not _HTML_END.search(body):
        return TRUNCATED
    return None


def _detail_error(body: str, case_number: str | None) -> str | None:
    is_detail = bool(_DETAIL_TITLE.search(body) or _HEADER_TABLE.search(body))
    if not is_detail:
        if _LIST_TABLE.search(body):
            return LIST_INSTEAD_OF_DETAIL
        return TRUNCATED if not _HTML_END.search(body) else NOT_A_DETAIL_PAGE
    if not _HTML_END.search(body):
        return TRUNCATED
    if not _HEADER_TABLE.search(body):
        return NOT_A_DETAIL_PAGE
    if case_number is not None:
        m = _HEADER_CASE.search(body)
        shown = normalise_case_number(html_lib.unescape(_TAGS.sub(" ", m.group(1)))) if m else ""
        if shown != normalise_case_number(case_number):
            return WRONG_CASE
    return None


def _tab_error(body: str, party_labels_missing: bool) -> str | None:
    if _HTML_START.search(body) or _LIST_TABLE.search(body) or _DETAIL_TITLE.search(body):
        return LIST_INSTEAD_OF_TAB
    if not party_labels_missing and _PIHAK_NOT_FOUND.search(body):
        return SESSION_NOT_WARMED
    if not _FRAGMENT_END.search(body):
        return TRUNCATED
    return None
