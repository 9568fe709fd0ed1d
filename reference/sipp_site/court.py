"""The replica's courts: PN (general), PA (religious), PTUN (administrative) and military
variants, their case flows and menus.

A case flow ("alur perkara", docs/sipp.md §1.3) fixes the case-number code, the party labels,
the list-page menu entry and which tabs a case can show.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

Kind = Literal[
    "pidana", "anak", "tilang", "gugatan", "permohonan", "sederhana", "jinayat", "tun",
    "praperadilan", "pendapat", "pailit",
]  # fmt: skip
Variant = Literal["pn", "pa", "ptun", "militer"]
VARIANTS: tuple[Variant, ...] = ("pn", "pa", "ptun", "militer")
#: ``sys_config`` 83, ``jenispengadilan`` in the session (header.php:33-38): what data_umum.php
#: and detil_perkara.php branch on.
JENIS_PENGADILAN: dict[Variant, int] = {"pn": 1, "militer": 2, "ptun": 3, "pa": 4}

#: The site's "today": the last sync date. Fixed so that the same seed always gives the same data.
TODAY = dt.date(2024, 6, 19)
#: First registration date of a generated court (cases are spread from here to TODAY).
FIRST_DAY = dt.date(2019, 7, 1)

#: The party-label text a SIPP prints when its label table has no row for a role.
LABEL_ERROR = "Error, Pihak Not Found!!!"


@dataclass(frozen=True)
class Alur:
    """One case flow: its SIPP id, menu title, case-number code and party labels."""

    id: int
    kind: Kind
    menu: str
    code: str
    weight: int
    pihak_1: str
    pihak_2: str
    kuasa_1: str = ""
    kuasa_2: str = ""
    #: ``getStatusPihak(10, alur, 4)`` / ``(.., 10)``: the fourth party and its lawyers (alur 1)
    pihak_4: str = ""
    kuasa_4: str = ""
    #: ``getStatusPihak(10, alur, 14)``: the suspects of alur 124
    pihak_14: str = ""

    @property
    def criminal(self) -> bool:
        """SIPP's own rule: alur > 100 is criminal (pidana)."""
        return self.id > 100

    @property
    def list_title(self) -> str:
        return "DAFTAR PERKARA " + self.menu.upper()


@dataclass(frozen=True)
class MenuEntry:
    """A menu link: a case flow (``alur`` set), a fixed page (``path``), or a group of entries."""

    title: str
    alur: int | None = None
    path: str | None = None
    children: tuple[MenuEntry, ...] = ()
    #: the PA quirk of docs/sipp.md §1.2: a top-level entry linked as ``/list_perkara/<enc>``
    top_level_quirk: bool = False


PN_ALUR = (
    Alur(111, "pidana", "Pidana Biasa", "Pid.B", 30, "Penuntut Umum", "Terdakwa",
         kuasa_2="Penasihat Hukum Terdakwa"),
    Alur(118, "anak", "Pidana Anak", "Pid.Sus-Anak", 5, "Penuntut Umum", "Anak",
         kuasa_2="Penasihat Hukum Anak"),
    Alur(114, "tilang", "Perkara Lalu Lintas", "Pid.C", 22, "Penuntut Umum", "Terdakwa"),
    Alur(119, "praperadilan", "Praperadilan", "Pid.Pra", 1, "Pemohon", "Termohon",
         kuasa_2="Kuasa Hukum Termohon"),
    Alur(
        1, "gugatan", "Perdata Gugatan", "Pdt.G", 20, "Penggugat", "Tergugat",
        "Kuasa Hukum Penggugat", "Kuasa Hukum Tergugat", "Turut Tergugat",
        "Kuasa Hukum Turut Tergugat",
    ),
    Alur(2, "permohonan", "Perdata Permohonan", "Pdt.P", 14, "Pemohon", "Termohon",
         "Kuasa Hukum Pemohon", "Kuasa Hukum Termohon"),
    Alur(
        8, "sederhana", "Perdata Gugatan Sederhana", "Pdt.G.S", 9, "Penggugat", "Tergugat",
        "Kuasa Hukum Penggugat", "Kuasa Hukum Tergugat",
    ),
    # weight 0: never drawn directly (adding weight would re-deal every case's flow); the
    # model turns a small share of alur 1 registrations into bankruptcy petitions, as at a
    # district court with a commercial chamber (Pengadilan Niaga)
    Alur(3, "pailit", "Kepailitan", "Pdt.Sus-Pailit", 0, "Pemohon", "Termohon",
         "Kuasa Hukum Pemohon", "Kuasa Hukum Termohon"),
)  # fmt: skip

PA_ALUR = (
    Alur(
        15, "gugatan", "Perdata Gugatan", "Pdt.G", 62, LABEL_ERROR, LABEL_ERROR,
        LABEL_ERROR, LABEL_ERROR,
    ),
    Alur(16, "permohonan", "Perdata Permohonan", "Pdt.P", 34, LABEL_ERROR, LABEL_ERROR,
         LABEL_ERROR, LABEL_ERROR),
    Alur(122, "jinayat", "Register Perkara Jinayat", "JN", 4, LABEL_ERROR, LABEL_ERROR,
         kuasa_2=LABEL_ERROR),
)  # fmt: skip

PTUN_ALUR = (
    Alur(9, "tun", "Gugatan", "G", 1, "Penggugat", "Tergugat", "Kuasa Hukum Penggugat",
         "Kuasa Hukum Tergugat"),
)  # fmt: skip

#: A military court (Dilmil) uses the general criminal flow for its cases (the same templates,
#: with its own labels) and alur 124 for requests for a legal opinion (Pendapat Ormil &
#: Pappera); the case numbers are the military form ``12-K/PM.III-16/AD/IV/2024``.
MILITER_ALUR = (
    Alur(111, "pidana", "Pidana Militer", "K", 9, "Oditur Militer", "Terdakwa",
         kuasa_2="Penasihat Hukum"),
    Alur(124, "pendapat", "Pendapat Hukum", "PH", 1, "Oditur Militer", "Terdakwa",
         pihak_14="Tersangka"),
)  # fmt: skip

PN_MENU = (
    MenuEntry("Beranda", path="list_perkara"),
    MenuEntry(
        "Perdata",
        children=(
            MenuEntry("Perdata Gugatan", alur=1),
            MenuEntry("Perdata Permohonan", alur=2),
            MenuEntry("Perdata Gugatan Sederhana", alur=8),
            MenuEntry("Perdata Gugatan Bantahan", alur=7),
        ),
    ),
    MenuEntry(
        "Pidana",
        children=(
            MenuEntry("Pidana Biasa", alur=111),
            MenuEntry("Pidana Singkat", alur=112),
            MenuEntry("Pidana Anak", alur=118),
            MenuEntry("Perkara Lalu Lintas", alur=114),
            MenuEntry("Praperadilan", alur=119),
        ),
    ),
    MenuEntry("Jadwal Sidang", path="list_jadwal_sidang"),
    MenuEntry("Laporan", children=(MenuEntry("Statistik Perkara", path="statistik_perkara"),)),
)

PA_MENU = (
    MenuEntry("Beranda", path="list_perkara"),
    MenuEntry("Perdata Gugatan", alur=15, top_level_quirk=True),
    MenuEntry("Perdata Permohonan", alur=16, top_level_quirk=True),
    MenuEntry(
        "Jinayat",
        children=(
            MenuEntry("Praperadilan Jinayat", alur=123),
            MenuEntry("Register Perkara Jinayat", alur=122),
        ),
    ),
    MenuEntry("Jinayat Anak", children=(MenuEntry("Register Perkara Jinayat Anak", alur=125),)),
    MenuEntry("Jadwal Sidang", path="list_jadwal_sidang"),
    MenuEntry("Laporan", children=(MenuEntry("Statistik Perkara", path="statistik_perkara"),)),
)

PTUN_MENU = (
    MenuEntry("Beranda", path="list_perkara"),
    MenuEntry("Tata Usaha Negara", children=(MenuEntry("Gugatan", alur=9),)),
    MenuEntry("Jadwal Sidang", path="list_jadwal_sidang"),
    MenuEntry("Laporan", children=(MenuEntry("Statistik Perkara", path="statistik_perkara"),)),
)

MILITER_MENU = (
    MenuEntry("Beranda", path="list_perkara"),
    MenuEntry(
        "Pidana Militer",
        children=(MenuEntry("Pidana Militer", alur=111), MenuEntry("Pendapat Hukum", alur=124)),
    ),
    MenuEntry("Jadwal Sidang", path="list_jadwal_sidang"),
    MenuEntry("Laporan", children=(MenuEntry("Statistik Perkara", path="statistik_perkara"),)),
)

#: Menu titles of case flows that exist in the menu but never have cases here.
EMPTY_FLOWS = {
    7: "Perdata Gugatan Bantahan",
    112: "Pidana Singkat",
    123: "Praperadilan Jinayat",
    125: "Register Perkara Jinayat Anak",
}


@dataclass(frozen=True)
class Court:
    """A replica court: variant, id, name, case-number court code, case flows and menu."""

    variant: Variant
    court_id: str
    name: str
    code: str
    alur: tuple[Alur, ...]
    menu: tuple[MenuEntry, ...]
    #: the town in addresses, offices and rooms
    town: str

    @property
    def jenis(self) -> int:
        """``jenispengadilan``: 1 general, 2 military, 3 administrative, 4 religious."""
        return JENIS_PENGADILAN[self.variant]

    @property
    def military(self) -> bool:
        return self.variant == "militer"

    def case_number(self, seq: int, alur: Alur, day: dt.date) -> str:
        """The case number as registered: ``12/Pid.B/2024/PN Rpk``, the military
        ``12-K/PM.III-16/AD/IV/2024``."""
        if self.military:
            return f"{seq}-{alur.code}/{self.code}/AD/{_ROMAN[day.month - 1]}/{day.year}"
        return f"{seq}/{alur.code}/{day.year}/{self.code}"

    def alur_by_id(self, alur_id: int) -> Alur:
        for alur in self.alur:
            if alur.id == alur_id:
                return alur
        raise KeyError(f"court {self.court_id} has no case flow {alur_id}")

    def flow_title(self, alur_id: int) -> str:
        for alur in self.alur:
            if alur.id == alur_id:
                return alur.menu
        return EMPTY_FLOWS[alur_id]

    def menu_flows(self) -> list[int]:
        """Every case-flow id linked from the menu, in menu order."""
        out: list[int] = []

        def walk(entries: tuple[MenuEntry, ...]) -> None:
            for entry in entries:
                if entry.alur is not None:
                    out.append(entry.alur)
                walk(entry.children)

        walk(self.menu)
        return out


_ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")


def make_court(variant: Variant, court_id: str | None = None) -> Court:
    """A replica court of ``variant`` (pn, pa, ptun, militer); ``court_id`` defaults to
    ``<variant>-replika``."""
    if variant == "pn":
        return Court(
            variant="pn",
            court_id=court_id or "pn-replika",
            name="PENGADILAN NEGERI REPLIKA",
            code="PN Rpk",
            alur=PN_ALUR,
            menu=PN_MENU,
            town="Replika",
        )
    if variant == "pa":
        return Court(
            variant="pa",
            court_id=court_id or "pa-replika",
            name="PENGADILAN AGAMA REPLIKA",
            code="PA.Rpk",
            alur=PA_ALUR,
            menu=PA_MENU,
            town="Replika",
        )
    if variant == "ptun":
        return Court(
            variant="ptun",
            court_id=court_id or "ptun-replika",
            name="PENGADILAN TATA USAHA NEGARA REPLIKA",
            code="PTUN.RPK",
            alur=PTUN_ALUR,
            menu=PTUN_MENU,
            town="Replika",
        )
    if variant == "militer":
        return Court(
            variant="militer",
            court_id=court_id or "militer-replika",
            name="PENGADILAN MILITER III-16 REPLIKA",
            code="PM.III-16",
            alur=MILITER_ALUR,
            menu=MILITER_MENU,
            town="Replika",
        )
    raise ValueError(f"unknown court variant {variant!r}: use one of {', '.join(VARIANTS)}")
