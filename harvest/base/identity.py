"""Stable identities (docs/contracts.md): court id, case number, dedupe key, request keys, groups.

Every key here is a plain string built from data a court shows; none is ever used as a file path
(case numbers contain ``/``).
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

SOURCE_TYPE_PREFIX = "sipp."


class IdentityError(ValueError):
    """A base URL, court id or case number that cannot identify anything."""


def court_id_from_url(base_url: str) -> str:
    """The court id of a SIPP base URL.

    ``https://sipp.pn-jakartapusat.go.id/`` -> ``pn-jakartapusat``; a sub-path install
    ``https://pn-sleman.go.id/sipp/`` -> ``pn-sleman``; ``http://sipp.pn-painan.info/`` ->
    ``pn-painan``. A loopback address or IP (the local replica) gives ``<host>-<port>`` with dots
    as dashes, e.g. ``127-0-0-1-8800``; pass ``court_id`` explicitly to name it.
    """
    parts = urlsplit(base_url.strip())
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host:
        raise IdentityError(
            f"base_url {base_url!r} is not an http(s) URL; give the court's SIPP root, "
            "e.g. https://sipp.pn-jakartapusat.go.id/"
        )
    if _is_ip_or_localhost(host):
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return f"{host.replace('.', '-').replace(':', '-')}-{port}"
    host = host.removeprefix("sipp.")
    label = host.split(".", 1)[0]
    if not label:
        raise IdentityError(f"cannot derive a court id from base_url {base_url!r}")
    return label


def _is_ip_or_localhost(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def validate_court_id(court_id: str) -> str:
    """Return ``court_id`` if usable as a key component, else raise :class:`IdentityError`."""
    cid = court_id.strip()
    if not cid or any(c in cid for c in "|:/ \t\n") or len(cid) > 100:
        raise IdentityError(
            f"court_id {court_id!r} is not usable: give a short name without '|', ':', '/' "
            "or spaces, e.g. pn-jakartapusat"
        )
    return cid


def normalise_case_number(raw: str) -> str:
    """Strip and collapse runs of whitespace to one space; nothing else changes."""
    return " ".join(raw.split())


def source_type(court_id: str) -> str:
    return SOURCE_TYPE_PREFIX + court_id


def dedupe_key(court_id: str, case_number: str) -> str:
    """``sipp.<court>:<normalised case number>``, the item key of docs/contracts.md."""
    number = normalise_case_number(case_number)
    if not number:
        raise IdentityError("empty case number")
    return f"{source_type(court_id)}:{number}"


def list_key(court_id: str, listing: str, page: int) -> str:
    return f"list|{court_id}|{listing}|{page}"


def case_key(court_id: str, case_number: str) -> str:
    return f"case|{court_id}|{normalise_case_number(case_number)}"


def tab_key(court_id: str, case_number: str, slug: str) -> str:
    return f"tab|{court_id}|{normalise_case_number(case_number)}|{slug}"


def case_group(court_id: str, case_number: str) -> str:
    """All requests of one case share this group (and one cookie jar)."""
    return f"{court_id}|{normalise_case_number(case_number)}"
