"""Pages the SIPP app cuts short: a PHP fatal error inside a view stops the output.

A fatal error in a view (the military Informasi grid's ``$$this->tanggalhelper``,
``perkara_tab/data_umum.php:130``) ends the output at the same byte on every request. PHP
flushes what the view had printed: the page head, the menu, the detail header, the tab anchors
(printed before Data Umum) and the Data Umum rows up to the cut; the rest of the view, the
footer and the page script (with every tab's ``.load`` URL) never come. The status is 200
(``display_errors`` on: PHP's own ``Fatal error`` line at the end, or nothing when CodeIgniter's
``error_reporting(0)`` hides it) or 500 (``display_errors`` off). There is no CodeIgniter error
block.

Such a cut is data, not a transient fault: retrying never helps. This module tells the shape
(:func:`detail_skeleton`, :func:`fatal_message`) and gives a digest that ignores the per-render
tokens (:func:`cut_digest`), so a caller can tell a deterministic cut (the same bytes on a second
fetch) from a truncation on the network (which stays a retry).
"""

from __future__ import annotations

import hashlib
import re

#: The reason-like name of a cut, for warnings and stats.
CUT_KIND = "cut"

# PHP's own fatal error line (html_errors on: ``<b>Fatal error</b>:``; off: ``Fatal error:``;
# CLI-style logs to the output: ``PHP Fatal error:``), at the end of the body.
_FATAL = re.compile(
    r"(?:<br\s*/?>\s*)?(?:<b>\s*)?(?:php\s+)?fatal\s+error(?:\s*</b>)?\s*:.{0,600}$",
    re.IGNORECASE | re.DOTALL,
)
_HEADER_TABLE = re.compile(r"""<table[^>]*\bid\s*=\s*["']?tableinfo\b""", re.IGNORECASE)
_TAB_LIST = re.compile(r"""<div[^>]*\bid\s*=\s*["']?usual2\b""", re.IGNORECASE)
_DATA_UMUM = re.compile(r"""<table[^>]*\bid\s*=\s*["']?infoPerkara\b""", re.IGNORECASE)
_HTML_END = re.compile(r"</html\s*>\s*$", re.IGNORECASE)
_LOAD_SCRIPT = re.compile(r"""\.load\(\s*['"][^'"]*show_""", re.IGNORECASE)
#: Tokens differ on every render (random IV): masked before two bodies are compared.
_TOKEN = re.compile(r"[A-Za-z0-9+/_-]{40,}={0,2}")
#: How much of a body's end is searched for PHP's fatal error line.
_TAIL = 800


def fatal_message(html: str) -> str | None:
    """PHP's ``Fatal error: ...`` line ending ``html`` (tags stripped), or ``None``."""
    body = html.rstrip()
    m = _FATAL.search(body, max(len(body) - _TAIL, 0))
    if m is None:
        return None
    return " ".join(re.sub(r"<[^>]+>", " ", m.group(0)).split())


def strip_fatal(html: str) -> str:
    """``html`` without PHP's fatal error line at its end (it is no data of the page)."""
    body = html.rstrip()
    start = max(len(body) - _TAIL, 0)
    m = _FATAL.search(body, start)
    return body[: m.start()] if m else body


def detail_skeleton(html: str) -> bool:
    """``html`` is a detail page cut inside Data Umum: it has the header table, the tab list and
    the start of Data Umum, but neither the page's end (``</html>``) nor its tab script."""
    if _HTML_END.search(html[-400:]):
        return False
    return bool(
        _HEADER_TABLE.search(html)
        and _TAB_LIST.search(html)
        and _DATA_UMUM.search(html)
        and not _LOAD_SCRIPT.search(html)
    )


def cut_digest(html: str) -> str:
    """A digest of ``html`` that is the same for two renders of one cut page (tokens masked)."""
    return hashlib.sha256(_TOKEN.sub("<token>", html.rstrip()).encode("utf-8")).hexdigest()
