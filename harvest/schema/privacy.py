"""Which fields of the case document name people (docs/privacy.md), and the redaction of
natural persons' names in exports (``scrapy export --redact-names``).

A field names people when its key is in :data:`PERSON_KEYS` (parties, defendants, witnesses,
lawyers, judges, clerks, bailiffs, mediators, applicants). Redaction replaces every string in
such a field by :data:`REDACTED`, except what the court itself already anonymised
(``Disamarkan``, ``Disamarkan 1``) and the names of public officials acting in office
(:data:`OFFICIAL_KEYS`: judges, clerks, bailiffs), which the courts publish on purpose.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["OFFICIAL_KEYS", "PERSON_KEYS", "REDACTED", "names_people", "redact_names"]

#: Keys whose strings are names of parties or other private persons.
PARTY_KEYS = frozenset(
    {
        "para_pihak",
        "pihak",
        "pihak_1",
        "pihak_2",
        "kuasa",
        "nama_pihak",
        "pemohon",
        "termohon",
        "nama_pemohon",
        "nama_terdakwa",
        "pelanggar",
        "saksi",
        "pembimbing_kemasyarakatan",
        "nama_penerima",
        "pemberitahuan_putusan",
        "menerima_putusan",
        "kirim_salinan_putusan",
        "status_putusan_terdakwa",
        "pemberitahuan_permohonan",
        "penerimaan_memori",
        "penyerahan_memori",
        "penerimaan_kontra_memori",
        "penyerahan_kontra_memori",
        "pemberitahuan_inzage",
        "alamat_pemohon",
        "pekerjaan_pemohon",
        "kurator",
        "pengurus",
        "mediator",
    }
)
#: Keys naming court officials in office (published by the court on purpose).
OFFICIAL_KEYS = frozenset(
    {
        "majelis_hakim",
        "hakim",
        "hakim_pengawas",
        "panitera_pengganti",
        "jurusita",
        "jurusita_pengganti",
    }
)
#: Every key naming people.
PERSON_KEYS = PARTY_KEYS | OFFICIAL_KEYS
#: What a redacted name reads.
REDACTED = "[disamarkan]"
#: A name the court already anonymised.
_ANONYMISED = re.compile(r"^\s*disamarkan\b", re.IGNORECASE)
#: Inside a party field, these keys are labels or dates, not names.
_NOT_NAMES = frozenset({"label", "status", "tanggal", "tanggal_permohonan", "jabatan", "aktif"})


def names_people(key: str) -> bool:
    return key in PERSON_KEYS


def redact_names(value: Any, *, inside: bool = False) -> Any:
    """A copy of ``value`` (a document or any part of it) with the strings of party fields
    replaced by :data:`REDACTED` (officials' names and the court's own ``Disamarkan`` kept)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in PARTY_KEYS:
                out[key] = redact_names(item, inside=True)
            elif inside and key in _NOT_NAMES:
                out[key] = item
            else:
                out[key] = redact_names(item, inside=inside)
        return out
    if isinstance(value, list):
        return [redact_names(item, inside=inside) for item in value]
    if inside and isinstance(value, str) and not _ANONYMISED.match(value):
        return REDACTED
    return value
