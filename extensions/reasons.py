"""Short, secret-free reason texts for a request's ``last_error`` and the URL log.

A reason never carries credentials: ``user:password@`` in any URL is cut out, as are
``Proxy-Authorization``/``Authorization`` values and ``token=``-like query parameters
(:func:`harvest.base.scrubbing.scrub_credentials`).
"""

from __future__ import annotations

from scrapy.exceptions import IgnoreRequest

from harvest.base.scrubbing import scrub_credentials
from harvest.errors import PageError

__all__ = ["MAX_REASON", "reason_for_exception", "reason_for_status", "scrub"]

#: Longest reason stored (characters); longer texts are cut with an ellipsis.
MAX_REASON = 500


def scrub(text: str, *, keep_spacing: bool = False) -> str:
    """``text`` without credentials, on one line, at most :data:`MAX_REASON` characters.

    Runs of whitespace become one space, unless ``keep_spacing`` (a notice about numbers that
    differ only in whitespace): then only line breaks and tabs are escaped (``\\n``, ``\\t``).
    """
    text = scrub_credentials(text)
    if keep_spacing:
        text = text.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")
    else:
        text = " ".join(text.split())
    if len(text) > MAX_REASON:
        text = text[: MAX_REASON - 1] + "…"
    return text


def reason_for_status(status: int) -> str:
    return f"HTTP {status}"


def reason_for_exception(exc: BaseException) -> str:
    """The stored reason for a final download failure or a callback error.

    ``PageError`` -> its ``reason``; other ``IgnoreRequest`` -> ``ignored: <message>``; anything
    else ``<Class>: <message>``.
    """
    if isinstance(exc, PageError):
        return scrub(exc.reason)
    message = str(exc).strip()
    if isinstance(exc, IgnoreRequest):
        return scrub(f"ignored: {message or type(exc).__name__}")
    name = type(exc).__name__
    return scrub(f"{name}: {message}" if message else name)
