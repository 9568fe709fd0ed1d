"""An older SIPP web version's words (``--views 2021``; default ``2025``, the copy courts run).

``MuhammadIsmailHasan/backup_sip`` at ``ec80b0c`` is the app as of 2021. Where its views label
the same stored value differently, a court still running it serves those words; the ground
truth is what a reader stores from them, the same typed fields as on a 2025 court:

- ``perkara_tab/dismissal.php:79-92``: the PTUN (alur 9) branch prints ``hasil`` as
  ``Diterima`` / ``Ditolak`` (2025: ``Lolos`` / ``Tidak Lolos``; stored as the 2025 words) and
  has **no amar row** (so the truth has no ``amar``); alur 8 heads its amar row ``Amar
  Penetapan`` (2025: ``Pertimbangan Hukum dan Amar``; stored as ``amar``).

Off (2025), nothing here runs and the replica serves what it served before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Case

#: The versions ``--views`` accepts (the first is the default)
VERSIONS = ("2025", "2021")


def apply(case: Case, views: str) -> Case:
    """Give ``case`` the pages and truth of the ``views`` version (in place)."""
    if views == "2025":
        return case
    case.extra["views"] = views
    if case.alur.id == 9 and case.tabs.get("dismissal"):
        records = [{k: v for k, v in r.items() if k != "amar"} for r in case.tabs["dismissal"]]
        case.tabs = {**case.tabs, "dismissal": records}
    return case
