"""Secrets kept out of every text the project stores, logs or prints, said once (issue 20).

A base module (standard library only). Every place a secret could leak goes through it:

* a URL's ``user:password@``: cut out of stored and logged URLs (:func:`strip_userinfo`),
  shown as ``***@`` in a refused spider argument (:func:`mask_userinfo`);
* ``Authorization``/``Proxy-Authorization`` values and ``token=``-like query parameters in a
  reason text (:func:`scrub_credentials`, which also strips the userinfo);
* a database URL's password, in the URL (:func:`redact_url`) and in a driver's message
  (:func:`hide`);
* the ingest API's token in ``ship.py``'s output, as is and percent-encoded
  (:func:`token_pattern`, :data:`TOKEN_MASK`);
* cookie and credential headers of an archived page (:data:`SECRET_HEADERS`,
  :data:`REDACTED_HEADER`).

The replica and the ingest API under ``reference/`` play outside parties: they import nothing
of the product and keep their own texts.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

__all__ = [
    "MASK",
    "REDACTED_HEADER",
    "SECRET_HEADERS",
    "TOKEN_MASK",
    "hide",
    "mask_userinfo",
    "redact_url",
    "scrub_credentials",
    "strip_userinfo",
    "token_pattern",
]

#: What a password or a credential is replaced by.
MASK: Final = "***"
#: What the ingest API's token is replaced by in ``ship.py``'s messages and ship log.
TOKEN_MASK: Final = "<token>"
#: What the value of a :data:`SECRET_HEADERS` header is replaced by in the page archive.
REDACTED_HEADER: Final = "REDACTED"
#: Headers (lower case) whose values are credentials: never archived as they are.
SECRET_HEADERS: Final = frozenset({"cookie", "set-cookie", "authorization", "proxy-authorization"})

#: ``scheme://user:password@`` anywhere in a text.
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]+@")
#: The userinfo of a value that is one URL, with or without its scheme.
_LEADING_USERINFO = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)?[^/?#@]*@")
_AUTH_HEADER = re.compile(r"(?i)\b((?:proxy-)?authorization)(['\"]?\s*[:=]\s*)\S+(\s+\S+)?")
_SECRET_PARAM = re.compile(
    r"(?i)\b(token|access_token|api_key|apikey|password|passwd|secret)=([^&\s'\"]+)"
)


def strip_userinfo(url: str) -> str:
    """``url`` without ``user:password@`` (URLs are stored and logged only this way)."""
    return _USERINFO.sub(r"\1", url) if "@" in url else url


def mask_userinfo(value: str) -> str:
    """``value`` (one URL, maybe without its scheme) stripped, its ``user:password@`` part
    replaced by ``***@``: how a message may show a URL the user gave."""
    return _LEADING_USERINFO.sub(lambda m: (m.group(1) or "") + MASK + "@", value.strip(), count=1)


def scrub_credentials(text: str) -> str:
    """``text`` without the userinfo of its URLs, and with its ``Authorization`` values and
    ``token=``-like parameters as :data:`MASK`."""
    text = strip_userinfo(text)
    text = _AUTH_HEADER.sub(r"\1\2" + MASK, text)
    return _SECRET_PARAM.sub(r"\1=" + MASK, text)


def hide(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` (a password) replaced by :data:`MASK`."""
    return text.replace(secret, MASK) if secret else text


def redact_url(url: str) -> str:
    """``url`` with its password (in the user part or a ``password=`` parameter) as ``***``."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, _, hostport = netloc.rpartition("@")
            if ":" in userinfo:
                userinfo = userinfo.split(":", 1)[0] + ":" + MASK
            netloc = f"{userinfo}@{hostport}"
        query = parts.query
        if query:
            pairs = parse_qsl(query, keep_blank_values=True)
            query = urlencode(
                [(k, MASK if k.lower() == "password" else v) for k, v in pairs], safe="*/"
            )
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:
        return "(a database URL that cannot be parsed)"


def token_pattern(secret: str) -> tuple[tuple[str, ...], re.Pattern[str]]:
    """The forms of a token a text may carry (as is, and percent-encoded), longest first, and
    the pattern of their whole occurrences: one inside a longer run of letters and digits (the
    token ``abc123`` in ``xabc1234``) is another word, so no message is garbled by a partial
    match."""
    forms = {secret, quote(secret, safe=""), quote(secret), quote(secret, safe="").lower()}
    ordered = tuple(sorted(forms, key=lambda form: (-len(form), form)))
    pattern = re.compile(
        "(?<![A-Za-z0-9])(?:" + "|".join(map(re.escape, ordered)) + ")(?![A-Za-z0-9])"
    )
    return ordered, pattern
