"""The replica's data: a seeded, deterministic court whose generated data IS the item format.

``CourtData(court, seed=1, cases=N)`` keeps only a compact index (case flow, registration day and
sequence number per case) and generates any case on demand with :meth:`CourtData.case`. Each
:class:`Case` carries exactly what a harvest of that case must produce (docs/item-format.md):
``case_data`` (the ``case`` part) and ``tabs`` (``{slug: data}`` of every available tab), plus a
few values only the renderers need (ids, detention flags).

Determinism: the same court variant, court id, ``seed``, ``cases`` and as-of day always give the
same data. ``cases`` cases are spread evenly over :data:`FIRST_DAY` .. :data:`TODAY` by index and
the index goes on at the same rate after TODAY, so case ``i`` is registered no earlier than case
``i - 1``; the court as of a day holds the cases registered by then, each showing the events of
its (as-of independent) life that have happened by then. Cases registered while serving
(``--live``) continue the same index and are registered on the as-of day.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import sys
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO, Any

from . import _vocab as V
from . import render_broken, render_pailit, views_2021
from .court import FIRST_DAY, TODAY, Alur, Court
from .formats import date_id, iso, thousands
from .keys import canonical_json, dedupe_key, normalise_case_number, source_type

JSON = dict[str, Any]

#: Tab slugs (``show_<slug>`` routes) in the order the detail page lists them, with ``#tabsN``.
TAB_ORDER: tuple[tuple[str, str], ...] = (
    ("dismissal", "tabs20"),
    ("penetapan", "tabs2"),
    ("diversi", "tabs3"),
    ("jadwal_sidang", "tabs4"),
    ("saksi", "tabs26"),
    ("mediasi", "tabs6"),
    ("intervensi", "tabs7"),
    ("rekonvensi", "tabs22"),
    ("penuntutan", "tabs8"),
    ("putusan_sela", "tabs9"),
    ("putusan", "tabs10"),
    ("setelah_putusan_pernyataan_pailit", "tabs31"),
    ("verzet", "tabs5"),
    ("penetapan_gugur", "tabs21"),
    ("banding", "tabs13"),
    ("kasasi", "tabs14"),
    ("pk", "tabs15"),
    ("grasi", "tabs16"),
    ("biaya_perkara", "tabs11"),
    ("ikrar_talak", "tabs24"),
    ("barang_bukti", "tabs18"),
    ("riwayat_perkara", "tabs12"),
)
TAB_DIV = dict(TAB_ORDER)
TAB_LABELS = {
    "dismissal": "Penetapan Dismissal",
    "penetapan": "Penetapan",
    "diversi": "Diversi",
    "jadwal_sidang": "Jadwal Sidang",
    "saksi": "Saksi",
    "mediasi": "Mediasi",
    "penuntutan": "Penuntutan",
    "putusan_sela": "Putusan Sela",
    "intervensi": "Intervensi",
    "rekonvensi": "Rekonvensi",
    "putusan": "Putusan",
    "setelah_putusan_pernyataan_pailit": "Setelah Putusan Pernyataan Pailit",
    "verzet": "Verzet",
    "penetapan_gugur": "Penetapan Gugur",
    "ikrar_talak": "Ikrar Talak",
    "banding": "Banding",
    "kasasi": "Kasasi",
    "pk": "Peninjauan Kembali",
    "grasi": "Grasi",
    "biaya_perkara": "Biaya Perkara",
    "barang_bukti": "Barang Bukti",
    "riwayat_perkara": "Riwayat Perkara",
}
#: the bankruptcy follow-up menu tab (render_pailit.py)
PAILIT_TAB = "setelah_putusan_pernyataan_pailit"
#: Stock SIPP routes that 404: ``show_we_kppu`` routes to ``redirect_page/redir_we_kppu``,
#: which does not exist. (``show_diversi`` works: ``redir_diversi`` -> ``/diversi``.)
UNAVAILABLE_TABS = frozenset({"we_kppu"})

#: data_umum.php:246: the flows whose second-party table has the Penahanan column
PENAHANAN_ALUR = frozenset({111, 112, 113, 115, 116, 117, 118})
#: data_umum.php:440: the flows that print the Anak Korban row
ANAK_KORBAN_ALUR = frozenset({111, 112, 113, 118, 125})
#: data_umum.php:476: the flows that print Nilai Sengketa(Rp)
NILAI_SENGKETA_ALUR = frozenset({1, 7, 8})
#: Klasifikasi of an administrative court's (PTUN) cases.
TUN_KLASIFIKASI = (
    "Pertanahan", "Kepegawaian", "Perizinan", "Lingkungan Hidup", "Pengadaan Barang dan Jasa",
    "Tindakan Administrasi Pemerintahan",
)  # fmt: skip

JAM = "09:00 s/d Selesai"
PIDANA_SUFFIX = " tersebut di atas"
_SMALL = (
    "nol", "satu", "dua", "tiga", "empat", "lima", "enam", "tujuh", "delapan", "sembilan",
    "sepuluh", "sebelas", "dua belas",
)  # fmt: skip


def terbilang(n: int) -> str:
    """Indonesian number words for 0..12 (sentences in amar/tuntutan)."""
    return _SMALL[n] if 0 <= n < len(_SMALL) else str(n)


class ModelError(ValueError):
    """A court that cannot be generated (bad case count, seed, case index)."""


@dataclass
class Case:
    """One generated case: its ground-truth parts plus what only the renderers need."""

    index: int
    id_perkara: int
    alur: Alur
    nomor_perkara: str
    nomor_perkara_raw: str
    registered: dt.date
    case_data: JSON
    tabs: dict[str, Any]
    #: render-only: tilang list columns (alur 114), detention link flags
    extra: JSON = field(default_factory=dict)

    def document(self, court_id: str) -> JSON:
        """The ground-truth document of docs/contracts.md (without ``content_hash``)."""
        return {
            "dedupe_key": dedupe_key(court_id, self.nomor_perkara),
            "source_type": source_type(court_id),
            "source_id": self.nomor_perkara,
            "schema_version": 2,  # the item format (docs/item-format.md, "Versions")
            "complete": True,
            "case": self.case_data,
            "tabs": self.tabs,
        }

    @property
    def tab_list(self) -> list[JSON]:
        tabs: list[JSON] = self.case_data["tabs"]
        return tabs


class CourtData:
    """The compact index of a generated court as it stands on ``as_of``; generates cases on
    demand.

    ``cases`` is how many cases are registered from :data:`FIRST_DAY` to :data:`TODAY`. The
    index stream goes on at the same rate after TODAY (from TODAY + 1), so on a later
    ``as_of`` the court also has the cases registered in TODAY + 1 .. as_of, and on an earlier
    one only the cases registered by then; case ``i`` is the same case whatever the day. Each
    case's whole life is drawn from the seed and its index; ``as_of`` only decides which of
    its events have happened.

    Memory is a few bytes per case (three ``array`` columns), so 100,000 cases start in well
    under a second. :meth:`register` appends one case registered on ``as_of`` (``--live``).
    """

    def __init__(
        self,
        court: Court,
        *,
        seed: int,
        cases: int,
        as_of: dt.date = TODAY,
        broken_pages: bool = False,
        views: str = "2025",
        same_day: int = 0,
    ) -> None:
        #: ``--broken-pages``: the pages the real app breaks (reference/sipp_site/render_broken.py)
        self.broken_pages = broken_pages
        if views not in views_2021.VERSIONS:
            raise ModelError(f"--views {views} is unknown: give one of {views_2021.VERSIONS}")
        #: ``--views``: the app version whose words the pages use (views_2021.py)
        self.views = views
        if not 0 <= same_day <= 1000:
            raise ModelError(f"--same-day {same_day} is out of range: give 0 .. 1000")
        #: ``--same-day N``: cases registered in blocks of N on one day (0: spread over the
        #: span); the list's tie order then varies per request (site.Site._tie_order)
        self.same_day = same_day
        if not 1 <= cases <= 1_000_000:
            raise ModelError(
                f"--cases {cases} is out of range: give 1 .. 1000000 (10 .. 100000 tested)"
            )
        if as_of < FIRST_DAY:
            raise ModelError(
                f"as-of day {as_of.isoformat()} is before the court's first registration day "
                f"{FIRST_DAY.isoformat()}: give a day from {FIRST_DAY.isoformat()} on"
            )
        self.court = court
        self.seed = seed
        self.initial = cases
        #: the court's "today": events after it have not happened yet
        self.as_of = as_of
        self._alur_ids = array("H")
        self._days = array("I")
        self._seqs = array("I")
        self._counters: dict[tuple[str, int], int] = {}
        self._weights = [a.weight for a in court.alur]
        # one sequential stream: case i's flow and day depend only on the seed and cases 0..i,
        # so registering more cases (--live) never changes earlier ones
        self._stream = random.Random(f"index:{seed}")
        #: flows drawn by conversion (weight 0: kepailitan from alur 1), on their own stream
        self._convert_stream = random.Random(f"convert:{seed}")
        self._converted = {a.id: a for a in court.alur if a.weight == 0}
        self._span = (TODAY - FIRST_DAY).days
        #: the next case of the index stream, drawn but registered after ``as_of``
        self._next: tuple[Alur, int] = self._draw(0)
        last = as_of.toordinal()
        while self._next[1] <= last:
            if len(self) >= 1_000_000:
                raise ModelError(
                    f"as-of day {as_of.isoformat()} with --cases {cases} gives more than "
                    "1000000 cases: give an earlier day or fewer cases"
                )
            self._append(*self._next)
            self._next = self._draw(len(self))

    def _draw(self, i: int) -> tuple[Alur, int]:
        """Flow and registration day (ordinal) of case ``i`` of the index stream: cases
        0 .. N-1 spread over FIRST_DAY .. TODAY - 1, then on at the same rate from TODAY + 1
        (TODAY itself only gets ``--live`` registrations, as before the as-of day existed)."""
        alur = self._stream.choices(self.court.alur, self._weights)[0]
        u = self._stream.random()
        n, first = self.initial, FIRST_DAY.toordinal()
        if self.same_day:
            # blocks of same_day cases share one day: the block's first case's day
            k = self.same_day
            if i < n:
                return alur, first + int(self._span * (i // k * k) / n)
            return alur, first + self._span + 1 + int(self._span * ((i - n) // k * k) / n)
        if i < n:
            return alur, first + int(self._span * (i + u) / n)
        return alur, first + self._span + 1 + int(self._span * (i - n + u) / n)

    def _append(self, alur: Alur, day: int) -> None:
        if alur.id == 1 and 3 in self._converted and self._convert_stream.random() < 0.05:
            alur = self._converted[3]
        year = dt.date.fromordinal(day).year
        key = (alur.code, year)
        seq = self._counters.get(key, 0) + 1
        self._counters[key] = seq
        self._alur_ids.append(alur.id)
        self._days.append(day)
        self._seqs.append(seq)

    def __len__(self) -> int:
        return len(self._alur_ids)

    def register(self) -> int:
        """Register the index stream's next case on the as-of day (``--live``); return its
        index."""
        index = len(self)
        self._append(self._next[0], self.as_of.toordinal())
        self._next = self._draw(len(self))
        return index

    def alur_id(self, index: int) -> int:
        return self._alur_ids[index]

    def day(self, index: int) -> int:
        """Registration day of case ``index`` (a date ordinal; non-decreasing in the index)."""
        return self._days[index]

    def indices_newest_first(self, alur_id: int | None = None) -> list[int]:
        """Case indices in list order: registration day descending, newest index first."""
        if alur_id is None:
            return list(range(len(self) - 1, -1, -1))
        ids = self._alur_ids
        return [i for i in range(len(self) - 1, -1, -1) if ids[i] == alur_id]

    def count(self, alur_id: int | None = None) -> int:
        if alur_id is None:
            return len(self)
        return self._alur_ids.count(alur_id)

    def id_perkara(self, index: int) -> int:
        """The numeric ``IDPerkara`` hidden in tokens."""
        return 1000 + index

    def index_of_id(self, id_perkara: int) -> int | None:
        index = id_perkara - 1000
        return index if 0 <= index < len(self) else None

    def case(self, index: int) -> Case:
        """Generate case ``index`` (pure function of court, seed and the index built so far)."""
        if not 0 <= index < len(self):
            raise ModelError(f"no case {index}: the court has {len(self)} cases")
        registered = dt.date.fromordinal(self._days[index])
        if self.as_of == TODAY:
            return self._build(index, TODAY, None)
        # Any other day: the case's life is the one it shows on TODAY (every draw the TODAY
        # build makes, recorded by call site) and, for what has not happened by TODAY, draws
        # derived from the seed, the index and the call site alone. A build as of any day then
        # makes the same draws for the same events, whatever was cut off before them.
        tape = _Tape(f"life:{self.seed}:{index}")
        if registered <= TODAY:
            self._build(index, TODAY, tape)
        tape.replaying = True
        return self._build(index, self.as_of, tape)

    def _build(self, index: int, today: dt.date, tape: _Tape | None) -> Case:
        alur = self.court.alur_by_id(self._alur_ids[index])
        registered = dt.date.fromordinal(self._days[index])
        seed = f"case:{self.seed}:{index}"
        rng = random.Random(seed) if tape is None else _TapeRandom.make(seed, "main", tape)
        builder = _CaseBuilder(self.court, alur, index, self._seqs[index], registered, rng, today)
        case = builder.build(self.id_perkara(index))
        if self.broken_pages:
            render_broken.apply(case, seed=self.seed, jenis_pengadilan=self.court.jenis)
        views_2021.apply(case, self.views)
        return case

    def detention(self, index: int, defendant: int) -> list[JSON]:
        """The detention periods of one defendant (the Penahanan popup; not part of the truth)."""
        case = self.case(index)
        rng = random.Random(f"penahanan:{self.seed}:{index}:{defendant}")
        start = case.registered - dt.timedelta(days=rng.randint(30, 60))
        out: list[JSON] = []
        for by, days in (("Penyidik", 20), ("Penuntut Umum", 20), ("Hakim PN", 30),
                         ("Perpanjangan Ketua PN", 60)):  # fmt: skip
            if start > self.as_of:
                break
            end = start + dt.timedelta(days=days - 1)
            out.append(
                {
                    "ditahan_oleh": by,
                    "jenis_tahanan": "Rutan",
                    "nomor_surat": f"PRINT-{rng.randint(10, 999)}/{start.month:02d}/{start.year}",
                    "tanggal_surat": start,
                    "mulai": start,
                    "sampai": end,
                    "status": "Ditahan" if end >= self.as_of else "Selesai",
                }
            )
            start = end + dt.timedelta(days=1)
        return out

    def iter_cases(self) -> Iterator[Case]:
        """Every case, by dedupe key order is not guaranteed: index order."""
        for index in range(len(self)):
            yield self.case(index)


def write_truth(data: CourtData, out: IO[str]) -> int:
    """Write one ground-truth document per line, sorted by dedupe key; return the count.

    Each line is :func:`harvest.base.canonical.canonical_json`, the form
    ``scrapy export --no-hash`` writes, so a complete harvest's export equals this file byte
    for byte.
    """
    n = 0
    docs = sorted(
        (dedupe_key(data.court.court_id, number_of(data, i)), i) for i in range(len(data))
    )
    for _key, index in docs:
        doc = data.case(index).document(data.court.court_id)
        out.write(canonical_json(doc) + "\n")
        n += 1
    return n


def write_truth_file(data: CourtData, path: Path) -> int:
    with path.open("w", encoding="utf-8") as out:
        return write_truth(data, out)


def number_of(data: CourtData, index: int) -> str:
    """The normalised case number of case ``index`` without generating the case."""
    alur = data.court.alur_by_id(data.alur_id(index))
    day = dt.date.fromordinal(data._days[index])
    return data.court.case_number(data._seqs[index], alur, day)


# --------------------------------------------------------------------------------------------
# the generator of one case

_HERE = __file__
#: (id of the code, instruction offset) -> (function, line within it) of a call site
_SITES: dict[tuple[int, int], tuple[str, int]] = {}


class _Tape:
    """The random draws of one case's builds, keyed by stream and call site.

    Recording (the build as of TODAY) stores every draw; replaying (the build as of another
    day) returns the recorded draw of the same call site and occurrence, and for a call site
    the TODAY build never reached (an event after TODAY) a draw derived from ``salt`` and the
    key alone, so it is the same on every later day.
    """

    def __init__(self, salt: str) -> None:
        self.salt = salt
        self.replaying = False
        self.values: dict[tuple[Any, ...], float | int] = {}


class _TapeRandom(random.Random):
    """A case stream that records (or replays) its draws on a :class:`_Tape`.

    Only the two primitives are overridden; ``choice``, ``randint``, ``choices``, ``sample``
    ... are built on them, so a recording stream draws exactly what :class:`random.Random`
    draws from the same seed.
    """

    name: str
    tape: _Tape
    counts: dict[tuple[Any, ...], int]

    @classmethod
    def make(cls, seed: int | str, name: str, tape: _Tape) -> _TapeRandom:
        r = cls(seed)
        r.name, r.tape, r.counts = name, tape, {}
        return r

    def _key(self, kind: int, row: tuple[Any, ...] = ()) -> tuple[Any, ...]:
        """The call site: each model.py frame as (function, line within it), innermost first,
        and ``row`` (:func:`_chance`), plus how often this site drew before (loops draw at one
        site many times)."""
        f: FrameType | None = sys._getframe(2)
        while f is not None and f.f_code.co_filename != _HERE:
            f = f.f_back  # random.py's own frames (choice -> _randbelow -> getrandbits)
        sites: list[Any] = [self.name, kind]
        # up to the builder (CourtData.case calls it from two lines: TODAY's build, the day's)
        while (
            f is not None and (code := f.f_code) is not _BUILD_CODE and code.co_filename == _HERE
        ):
            at = (id(code), f.f_lasti)  # (a code object hashes its whole body)
            site = _SITES.get(at)
            if site is None:  # f_lineno scans the line table: once per instruction
                site = _SITES[at] = (code.co_qualname, f.f_lineno - code.co_firstlineno)
            sites += site
            f = f.f_back
        key = (*sites, *row)
        n = self.counts.get(key, 0)
        self.counts[key] = n + 1
        return (*key, n)

    def random(self) -> float:
        return self._random(self._key(-1))

    def keyed(self, row: tuple[Any, ...]) -> float:
        """``random()`` keyed by the call site and ``row`` (see :func:`_chance`)."""
        return self._random(self._key(-2, ("row", *row)))

    def _random(self, key: tuple[Any, ...]) -> float:
        tape = self.tape
        if not tape.replaying:
            value = super().random()
            tape.values[key] = value
            return value
        got = tape.values.get(key)
        if got is None:
            return random.Random(f"{tape.salt}:{key}").random()
        return float(got)

    def getrandbits(self, k: int, /) -> int:
        key = self._key(k)
        tape = self.tape
        if not tape.replaying:
            bits = super().getrandbits(k)
            tape.values[key] = bits
            return bits
        got = tape.values.get(key)
        if got is None:
            return random.Random(f"{tape.salt}:{key}").getrandbits(k)
        return int(got)


class _Clock:
    """Dates of one case's events; anything after ``today`` (the court's as-of day) has not
    happened yet."""

    def __init__(self, rng: random.Random, today: dt.date) -> None:
        self.rng = rng
        self.today = today

    def after(self, day: dt.date, lo: int, hi: int) -> dt.date:
        return day + dt.timedelta(days=self.rng.randint(lo, hi))

    def happened(self, day: dt.date | None) -> bool:
        return day is not None and day <= self.today


_ROMAN_MONTHS = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")


#: ``dihadiri oleh`` of a held hearing (jadwal_sidang.php prints it in brackets under the room)
ATTENDANCE_CIVIL = ("Para Pihak", "Penggugat Saja", "Para Pihak", "Kuasa Para Pihak")
ATTENDANCE_CRIMINAL = ("Penuntut Umum dan Terdakwa",)
#: the room SIPP prints when none is set (upcoming hearings, now and then)
NO_ROOM = "Belum Ditentukan"


def hearing_row(
    day: dt.date,
    agenda: str,
    room: str,
    alasan: str | None,
    attendance: tuple[str, ...] | None,
    *,
    upcoming: bool = False,
    jenis: str | None = None,
) -> JSON:
    """One Jadwal Sidang row. Attendance and an unset room are a function of the day, so the
    rows draw nothing from the case's random stream."""
    n = day.toordinal()
    return {
        "tanggal": iso(day),
        "jam": JAM,
        "agenda": agenda,
        "jenis_sidang": jenis,
        "ruangan": NO_ROOM if upcoming and n % 3 == 0 else room,
        "dihadiri_oleh": None if attendance is None else attendance[n % len(attendance)],
        "alasan_ditunda": alasan,
    }


def _workday(day: dt.date) -> dt.date:
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    return day


class _CaseBuilder:
    def __init__(
        self,
        court: Court,
        alur: Alur,
        index: int,
        seq: int,
        registered: dt.date,
        rng: random.Random,
        today: dt.date = TODAY,
    ) -> None:
        self.court = court
        #: the court's as-of day: events after it have not happened yet
        self.today = today
        self.alur = alur
        self.index = index
        self.rng = rng
        #: verdict and appeal details (tabs putusan/banding/kasasi/pk) draw from their own
        #: stream, derived from the case's without consuming it (a tuple of ints hashes the
        #: same in every process; the whole state holds None, whose hash does not)
        self.vrng = self._stream(hash(rng.getstate()[1]), "verdict")
        #: the rarer branches (status_putusan 91, ...) draw from a third stream, so taking one
        #: leaves every other case's data as it was
        self.grng = self._stream(f"branch:{hash(rng.getstate()[1])}", "branch")
        self.clock = _Clock(rng, today)
        self.reg = registered
        self.number = court.case_number(seq, alur, registered)
        raw = self.number
        if rng.random() < 0.04:
            raw = raw.replace(" ", "  ", 1) if " " in court.code else raw + " "
        self.raw = raw
        self.pa = court.variant == "pa"
        self.riwayat: list[tuple[dt.date, str, str]] = []
        self.status = "Pendaftaran Perkara"
        self.tabs: dict[str, Any] = {}
        self.shown: list[str] = []
        self.extra: JSON = {}
        self.putusan_day: dt.date | None = None
        self.mediasi_days = 0
        self.judges: list[str] = []
        self.clerk = ""
        self.klasifikasi = ""
        self.header_parties: list[JSON] = []
        self.data_umum: JSON = {}
        self.disamarkan = False

    def _stream(self, seed: int | str, name: str) -> random.Random:
        """A side stream of this case: plain, or on the case's tape when the main one is."""
        if isinstance(self.rng, _TapeRandom):
            return _TapeRandom.make(seed, name, self.rng.tape)
        return random.Random(seed)

    # ---------------------------------------------------------------- names
    def person(self, female: bool | None = None) -> str:
        r = self.rng
        if female is None:
            female = r.random() < 0.4
        first = r.choice(V.FIRST_NAMES_F if female else V.FIRST_NAMES_M)
        return f"{first} {r.choice(V.LAST_NAMES)}"

    def hidden(self, name: str) -> str:
        return "Disamarkan" if self.pa else name

    def defendant(self) -> str:
        r = self.rng
        name = self.person(female=r.random() < 0.15)
        if r.random() < 0.5:
            name += f" Bin {r.choice(V.FATHER_NAMES)}"
        if r.random() < 0.2:
            name += f" Als. {r.choice(V.FIRST_NAMES_M).split()[0].capitalize()}"
        return self.hidden(name)

    def jaksa(self) -> str:
        return f"{self.person()}, {self.rng.choice(V.TITLES_JAKSA)}"

    def lawyer(self) -> str:
        return f"{self.person()}, {self.rng.choice(V.TITLES_LAWYER)}"

    def civil_party(self) -> str:
        if self.rng.random() < 0.25 and not self.pa:
            return self.rng.choice(V.COMPANIES)
        return self.hidden(self.person())

    # ---------------------------------------------------------------- data umum party rows
    def party_rows(self, du: JSON, rows: list[tuple[str, str, list[Any]]]) -> None:
        """Data Umum's party and lawyer rows in page order (data_umum.php:171-473).

        ``rows``: ``("pihak", label, names)`` or ``("kuasa", label, [{"nama", "nama_pihak"}])``;
        the renderer prints them in this order (``extra["party_rows"]``), the truth keeps the
        ``pihak`` and ``kuasa`` lists in the same order.
        """
        self.extra["party_rows"] = rows
        du["pihak"] = [{"label": label, "nama": list(v)} for k, label, v in rows if k == "pihak"]
        kuasa = [{"label": label, "rows": list(v)} for k, label, v in rows if k == "kuasa"]
        if kuasa:
            du["kuasa"] = kuasa

    def victims(self) -> list[str]:
        """Anak Korban names (``nama urutan``, data_umum.php:461); mostly none."""
        n = self.rng.choice((0, 0, 0, 0, 0, 0, 1, 2)) if self.alur.kind == "anak" else 0
        if self.alur.kind != "anak" and self.rng.random() < 0.03:
            n = 1
        return [f"Disamarkan {k + 1}" for k in range(n)]

    # ---------------------------------------------------------------- riwayat / status
    def event(self, day: dt.date | None, tahapan: str, proses: str, status: str | None) -> bool:
        if not self.clock.happened(day):
            return False
        assert day is not None
        self.riwayat.append((day, tahapan, proses))
        if status is not None:
            self.status = status
        return True

    # ---------------------------------------------------------------- build
    def build(self, id_perkara: int) -> Case:
        kind = self.alur.kind
        self.event(self.reg, "Pendaftaran", "Pendaftaran Perkara", "Pendaftaran Perkara")
        if kind in ("pidana", "anak", "jinayat"):
            self.build_criminal()
        elif kind == "tilang":
            self.build_tilang()
        elif kind in ("praperadilan", "pendapat"):
            self.build_pretrial()
        else:
            self.build_civil()
        if self.disamarkan:
            self.anonymise()
        self.tabs["riwayat_perkara"] = [
            {"tanggal": iso(d), "tahapan": t, "proses": p}
            for d, t, p in sorted(self.riwayat, key=lambda e: e[0])
        ]
        self.shown.append("riwayat_perkara")
        tab_list: list[JSON] = []
        if self.alur.id in (118, 125) and "diversi" in self.shown:
            # detil_perkara.php:2-7/96: a child case with diversi data lists no Jadwal Sidang
            self.shown = [slug for slug in self.shown if slug != "jadwal_sidang"]
        order = [slug for slug, _div in TAB_ORDER]
        if self.alur.id == 9:
            # detil_perkara.php:66-70: PTUN lists its Perlawanan right after the dismissal
            order.remove("verzet")
            order.insert(order.index("dismissal") + 1, "verzet")
        for slug in order:
            if slug in self.shown:
                label = TAB_LABELS[slug]
                if slug == "verzet" and self.alur.id == 9:
                    label = "Perlawanan"
                if slug == "putusan" and self.alur.id == 2:
                    label = "Penetapan"
                elif slug == "putusan" and self.alur.id == 124:
                    label = "Penetapan ( Putusan Akhir )"
                tab_list.append(
                    {"slug": slug, "label": label, "available": slug not in UNAVAILABLE_TABS}
                )
        tabs = {t["slug"]: self.tabs[t["slug"]] for t in tab_list if t["available"]}
        if PAILIT_TAB in tabs:
            # the menu's sub pages, one part each (tab:pailit-sub_<x>; render_pailit.py)
            for page in render_pailit.sub_pages(self.tabs.get("putusan")):
                tabs[render_pailit.SUB_SLUG_PREFIX + page.route] = render_pailit.sub_page_truth(
                    page
                )
        end = self.putusan_day if self.clock.happened(self.putusan_day) else self.today
        assert end is not None
        # "Lama Proses" (days since registration) grows every day an open case waits: shown on
        # the list, but volatile, so it is not part of the item (it would re-hash and re-ship
        # every open case daily); it is derivable from the dates the item keeps.
        self.extra["lama_proses"] = max(0, (end - self.reg).days - self.mediasi_days)
        para_pihak = [dict(p) for p in self.header_parties]
        if self.alur.kind == "permohonan":
            para_pihak = para_pihak[:1]
        case_data: JSON = {
            "court": self.court.court_id,
            "nomor_perkara": normalise_case_number(self.raw),
            "nomor_perkara_raw": self.raw,
            "list_row": {
                "nomor_perkara": self.raw,
                "tanggal_register": iso(self.reg),
                "klasifikasi_perkara": self.klasifikasi,
                "para_pihak": para_pihak,
                "status_perkara": self.status,
            },
            "header": {
                "nomor_perkara": self.raw,
                # detil_perkara.php:35/41: a tilang header prints no first party at all
                "pihak_1": None if self.alur.id == 114 else dict(self.header_parties[0]),
                "pihak_2": dict(self.header_parties[1]),
                "status_perkara": self.status,
            },
            "data_umum": self.data_umum,
            "tabs": tab_list,
        }
        return Case(
            index=self.index,
            id_perkara=id_perkara,
            alur=self.alur,
            nomor_perkara=normalise_case_number(self.raw),
            nomor_perkara_raw=self.raw,
            registered=self.reg,
            case_data=case_data,
            tabs=tabs,
            extra=self.extra,
        )

    def grasi(self, d_put: dt.date, convict: str) -> None:
        """detil_grasi.php: a clemency request once the judgment is final (UU 22/2002: a
        sentence of two years or more); one label/value table. Y/N rows print YA/Tidak, the
        MA letter number is never printed (line 187), Keterangan goes through the date
        formatter (line 41) and so prints ' - '."""
        g, has = self.grng, self.clock.happened
        final = d_put
        levels: dict[str, tuple[str | None, str | None]] = {}
        for level in ("banding", "kasasi"):
            if level in self.tabs:
                rec = self.tabs[level]
                if rec["tanggal_putusan"] is None:
                    return  # still on appeal (or withdrawn before a decision)
                levels[level] = (rec["nomor_putusan"], rec["tanggal_putusan"])
                final = dt.date.fromisoformat(rec["tanggal_putusan"])
        told = _workday(final + dt.timedelta(g.randint(14, 40)))
        asked = _workday(told + dt.timedelta(g.randint(5, 60)))
        if not has(asked):
            return

        def after(day: dt.date | None, lo: int, hi: int) -> dt.date | None:
            if day is None:
                return None
            nxt = _workday(day + dt.timedelta(g.randint(lo, hi)))
            return nxt if has(nxt) else None

        to_jaksa = after(asked, 3, 10)
        to_ma = to_jaksa and after(to_jaksa, 0, 5)
        hakim = to_ma and after(to_ma, 3, 14)
        pert = hakim and after(hakim, 20, 60)
        presiden = pert and after(pert, 60, 150)
        back = presiden and after(presiden, 10, 40)
        notified = back and after(back, 1, 7)
        relative = self.grng.random() < 0.6
        granted = g.random() < 0.2

        def d(day: dt.date | None) -> str | None:
            return iso(day) if day else None

        banding = levels.get("banding", (None, None))
        kasasi = levels.get("kasasi", (None, None))
        self.tabs["grasi"] = {
            "nomor_perkara_pn": self.number,
            "tanggal_putusan_pn": iso(d_put),
            "nomor_perkara_banding": banding[0],
            "tanggal_putusan_banding": banding[1],
            "nomor_perkara_kasasi": kasasi[0],
            "tanggal_putusan_kasasi": kasasi[1],
            "nomor_perkara_pk": None,
            "tanggal_putusan_pk": None,
            "tanggal_permohonan_grasi": iso(asked),
            "tanggal_permohonan_penundaan_pidana": iso(asked) if g.random() < 0.1 else None,
            "nama_terdakwa": convict,
            "nama_pemohon": f"{g.choice(V.FIRST_NAMES_F)} {g.choice(V.LAST_NAMES)}"
            if relative
            else convict,
            "pekerjaan_pemohon": g.choice(("Ibu Rumah Tangga", "Wiraswasta", "Petani", "Buruh"))
            if relative
            else "Narapidana",
            "alamat_pemohon": f"Jl. {g.choice(('Melati', 'Kenanga', 'Merdeka'))} No. "
            f"{g.randint(1, 99)}, {self.court.town}",
            "tanggal_pemberitahuan_putusan_tetap": iso(told),
            "menjalani_pidana_pengganti": "Tidak",
            "terpidana_dalam_tahanan": "YA",
            "denda_dibayar": g.choice(("YA", "Tidak")),
            "barang_rampasan": "Tidak",
            "tanggal_pertimbangan_ma": d(pert),
            "isi_pertimbangan_ma": None
            if pert is None
            else "Terdapat cukup alasan untuk mengabulkan permohonan grasi Terpidana"
            if granted
            else "Tidak terdapat cukup alasan untuk mengabulkan permohonan grasi Terpidana",
            "tanggal_pengiriman_berkas_kejaksaan": d(to_jaksa),
            "nomor_surat_pengiriman_berkas_kejaksaan": None
            if to_jaksa is None
            else f"W{g.randint(1, 30)}.U{g.randint(1, 20)}/{g.randint(100, 9999)}/HK.07"
            f"/{to_jaksa.month}/{to_jaksa.year}",
            "tanggal_pengiriman_berkas_ma": d(to_ma),
            "nomor_surat_pengiriman_berkas_ma": None,
            "tanggal_pengiriman_pertimbangan_hakim": d(hakim),
            "tanggal_putusan_presiden": d(presiden),
            "nomor_putusan_presiden": None
            if presiden is None
            else f"Keppres No. {g.randint(1, 150)}/G Tahun {presiden.year}",
            "isi_keputusan_presiden": None
            if presiden is None
            else "Mengabulkan permohonan grasi"
            if granted
            else "Menolak permohonan grasi",
            "tanggal_penerimaan_kembali_berkas": d(back),
            "tanggal_pemberitahuan_putusan": d(notified),
            "tanggal_penerimaan_tembusan_ba_pelaksanaan": None,
            "keterangan": None,
        }
        self.shown.append("grasi")
        self.event(asked, "Upaya Hukum", "Permohonan Grasi", "Grasi")

    def putusan_sela(self, day: dt.date, objector: str, party: str) -> None:
        """putusan_sela.php outside alur 3..6: date, amar and three notice rows that all carry
        the first party's label (lines 72-81: ``Kepada <label>`` twice, then ``Kepada Pihak
        <label>``), whoever they went to."""
        g, has = self.grng, self.clock.happened
        civil = not self.alur.criminal
        amar = (
            [f"Menolak eksepsi {objector};",
             (f"Menyatakan Pengadilan Negeri {self.court.town} berwenang memeriksa dan mengadili "
             "perkara ini;"),
             "Memerintahkan kedua belah pihak untuk melanjutkan pemeriksaan perkara;",
             "Menangguhkan biaya perkara sampai dengan putusan akhir;"]
            if civil
            else [f"Menolak keberatan {objector};",
                  f"Menyatakan surat dakwaan {self.alur.pihak_1} sah menurut hukum;",
                  f"Memerintahkan pemeriksaan perkara atas nama {party} dilanjutkan;",
                  "Menangguhkan biaya perkara sampai dengan putusan akhir;"]
        )  # fmt: skip
        label = self.alur.pihak_1
        notices = []
        for k, kepada in enumerate((label, label, f"Pihak {label}")):
            told = _workday(day + dt.timedelta(g.randint(0, 6)))
            notices.append(
                {
                    "kepada": kepada,
                    "tanggal": iso(told) if has(told) and _chance(g, k) < 0.85 else None,
                }
            )
        self.tabs["putusan_sela"] = {
            "tanggal_putusan_sela": iso(day),
            "amar_putusan_sela": "\n".join(["MENGADILI:", *amar]),
            "pemberitahuan": notices,
        }
        self.shown.append("putusan_sela")

    def anonymise(self) -> None:
        """What the views print for jenis perkara 282/13: every name of the Penetapan tab and
        of the Saksi tab, and the first side's names in the putusan notice tables."""
        hidden = "Data disamarkan"
        pen = self.tabs.get("penetapan") or {}
        for key in ("hakim", "panitera_pengganti", "jurusita_pengganti"):
            for row in pen.get(key, []):
                row["nama"] = hidden
        if "saksi" in self.tabs:
            self.tabs["saksi"] = [hidden for _ in self.tabs["saksi"]]
        put = self.tabs.get("putusan")
        if not put:
            return
        meta = self.extra.get("putusan_notices", [])
        for key, limit in (("pemberitahuan_putusan", 4), ("menerima_putusan", 2),
                           ("kirim_salinan_putusan", 2)):  # fmt: skip
            sides = [m["pihakke"] for m in meta if m["pihakke"] <= limit]
            for row, side in zip(put.get(key, []), sides, strict=False):
                if side == 1:
                    row["nama"] = hidden

    # ---------------------------------------------------------------- shared parts
    def penetapan(
        self, start: dt.date, judges: int, jurusita: bool
    ) -> tuple[dt.date | None, dt.date | None]:
        """Penetapan tab; returns (day of the hearing-date decision, first hearing day)."""
        r = self.rng
        d_pmh = _workday(self.clock.after(start, 1, 3))
        if not self.event(
            d_pmh, "Penetapan", "Penetapan Majelis Hakim", "Penetapan Majelis Hakim"
        ):
            return None, None
        names = r.sample(V.JUDGES, judges)
        positions = ["Hakim Ketua"] + ["Hakim Anggota"] * (judges - 1) if judges > 1 else ["Hakim"]
        hakim: list[JSON] = [
            {"tanggal_penetapan": iso(d_pmh), "nama": n, "posisi": p, "aktif": "Ya"}
            for n, p in zip(names, positions, strict=True)
        ]
        d_new = _workday(self.clock.after(d_pmh, 10, 30))
        if r.random() < 0.06 and self.clock.happened(d_new):
            old = hakim[-1]
            old["aktif"] = "Tidak"
            replacement = next(j for j in V.JUDGES if j not in names)
            hakim.append(
                {
                    "tanggal_penetapan": iso(d_new),
                    "nama": replacement,
                    "posisi": old["posisi"],
                    "aktif": "Ya",
                }
            )
        if self.alur.id == 9:  # PTUN: penetapan.php adds a Jenis Acara column
            for h in hakim:
                h["jenis_acara"] = "Acara Biasa"
        self.judges = [h["nama"] for h in hakim if h["aktif"] == "Ya"]
        self.event(d_pmh, "Penetapan", "Penunjukan Panitera Pengganti", None)
        clerk = r.choice(V.CLERKS)
        self.clerk = clerk
        data: JSON = {
            "hakim": hakim,
            "panitera_pengganti": [
                {"tanggal_penetapan": iso(d_pmh), "nama": clerk, "aktif": "Ya"}
            ],
        }
        if jurusita:
            d_js = d_pmh if r.random() < 0.7 else None
            data["jurusita_pengganti"] = (
                [{"tanggal_penetapan": iso(d_js), "nama": r.choice(V.BAILIFFS), "aktif": "Ya"}]
                if d_js
                else []
            )
            if d_js:
                self.event(d_js, "Penetapan", "Penunjukan Jurusita", None)
        d_phs = _workday(self.clock.after(d_pmh, 0, 3))
        first = _workday(self.clock.after(d_phs, 5, 21 if self.alur.kind == "gugatan" else 10))
        if self.event(d_phs, "Penetapan", "Penetapan Hari Sidang", "Penetapan Hari Sidang"):
            data["sidang_pertama"] = [
                {"tanggal_penetapan": iso(d_phs), "tanggal_sidang": iso(first)}
            ]
        else:
            data["sidang_pertama"] = []
        self.tabs["penetapan"] = data
        self.shown.append("penetapan")
        if not self.clock.happened(d_phs):
            return None, None
        return d_phs, first

    def hearings(
        self,
        first: dt.date,
        agendas: list[str],
        gap: tuple[int, int],
        prefix: list[JSON] | None = None,
    ) -> list[dt.date]:
        """Jadwal Sidang; returns the day each agenda was held (stops at the as-of day).

        ``prefix`` rows (a first hearing that opened mediation) come first; without them the
        first held hearing is the case's "Sidang Pertama".
        """
        r = self.rng
        rows: list[JSON] = list(prefix or [])
        held: list[dt.date] = []
        day = first
        room = r.choice(V.ROOMS if self.alur.kind == "anak" else V.ROOMS[:3])
        upcoming = False
        for agenda in agendas:
            while True:
                postponed = r.random() < 0.18
                if day > self.today:
                    if not upcoming and (day - self.today).days <= 14:
                        rows.append(hearing_row(day, agenda, room, None, None, upcoming=True))
                    upcoming = True
                    break
                rows.append(
                    hearing_row(
                        day,
                        agenda,
                        room,
                        (
                            r.choice(
                                V.POSTPONE_CRIMINAL if self.alur.criminal else V.POSTPONE_CIVIL
                            )
                            if postponed
                            else None
                        ),
                        ATTENDANCE_CRIMINAL if self.alur.criminal else ATTENDANCE_CIVIL,
                    )
                )
                held_today = day
                day = _workday(self.clock.after(day, *gap))
                if not postponed:
                    held.append(held_today)
                    break
            if upcoming:
                break
        if rows:
            self.tabs["jadwal_sidang"] = rows
            self.shown.append("jadwal_sidang")
        if held and not prefix:
            self.event(held[0], "Persidangan", "Sidang Pertama", "Sidang pertama")
        if len(held) > 1 or (held and prefix):
            self.status = "Persidangan"
        return held

    def saksi(self, n: int) -> None:
        names = [self.hidden(self.person()) for _ in range(n)]
        self.tabs["saksi"] = names
        self.shown.append("saksi")

    def appeal(self, putusan: dt.date, criminal: bool, appellant: str, opponent: str) -> None:
        """Banding, then perhaps Kasasi and PK (detil_banding/kasasi/pk.php)."""
        r = self.rng
        # a gugatan sederhana has no banding (its remedy is Keberatan, another tab)
        if r.random() >= (0.18 if criminal else 0.12) or self.alur.kind == "sederhana":
            return
        d_req = _workday(self.clock.after(putusan, 2, 7))
        if not self.event(d_req, "Upaya Hukum", "Permohonan Banding", "Banding"):
            return
        self.tabs["banding"] = self.appeal_data("Banding", d_req, appellant, opponent, 30, 80)
        self.shown.append("banding")
        back = self.tabs["banding"]["tanggal_penerimaan_kembali_berkas"]
        if back is None or r.random() >= 0.35:
            return
        d_kas = _workday(self.clock.after(dt.date.fromisoformat(back), 3, 14))
        if not self.event(d_kas, "Upaya Hukum", "Permohonan Kasasi", "Kasasi"):
            return
        self.tabs["kasasi"] = self.appeal_data("Kasasi", d_kas, appellant, opponent, 60, 200)
        self.shown.append("kasasi")
        decided = self.tabs["kasasi"]["tanggal_putusan"]
        if decided is None or self.vrng.random() >= 0.25:
            return
        d_pk = _workday(dt.date.fromisoformat(decided) + dt.timedelta(self.vrng.randint(40, 300)))
        if not self.event(d_pk, "Upaya Hukum", "Permohonan PK", "PK"):
            return
        self.tabs["pk"] = self.appeal_data("PK", d_pk, appellant, opponent, 60, 240)
        self.shown.append("pk")

    def appeal_data(
        self, level: str, d_req: dt.date, appellant: str, opponent: str, lo: int, hi: int
    ) -> JSON:
        """One appeal tab's truth: the sections of detil_<level>.php, in item format."""
        r, v = self.rng, self.vrng
        sent = _workday(self.clock.after(d_req, 10, 30))
        decided = _workday(self.clock.after(sent, lo, hi))
        back = _workday(self.clock.after(decided, 10, 30))
        archived = _workday(self.clock.after(back, 5, 40))
        happened = self.clock.happened  # (the main stream draws as before withdrawals)
        court = "PT Replika" if level == "Banding" else level.replace("Kasasi", "K")
        year = decided.year
        nomor = (
            f"{r.randint(10, 900)}/{'PID' if self.alur.criminal else 'PDT'}/{year}/{court}"
            if level == "Banding"
            else f"{r.randint(100, 5000)} {court}/{'Pid' if self.alur.criminal else 'Pdt'}/{year}"
        )
        outcome = r.choice(
            ("Menguatkan Putusan Pengadilan Negeri", "Memperbaiki Putusan Pengadilan Negeri",
             "Membatalkan Putusan Pengadilan Negeri")
            if level == "Banding"
            else ("Tolak", "Kabul", "Tolak Perbaikan")
        )  # fmt: skip
        majelis = r.sample(V.JUDGES, 3)
        clerk = r.choice(V.CLERKS) if happened(decided) else None
        letter = (
            f"W{r.randint(1, 30)}.U{r.randint(1, 20)}/{r.randint(100, 9999)}"
            f"/HK.01/{sent.month}/{sent.year}"
            if happened(sent)
            else None
        )

        # a few appeals are withdrawn (tglCabut): nothing after that day happens
        cabut = _workday(d_req + dt.timedelta(v.randint(7, 60)))
        withdrawn = level != "PK" and v.random() < 0.05 and self.clock.happened(cabut)
        # a few civil appeals end in a peace agreement reached in mediation at the appeal
        # level (PERMA 1/2016 art. 33): DATA MEDIASI is filled, the appeal withdrawn
        peace = (
            level != "PK"
            and self.alur.id in (1, 8, 15)
            and self.clock.happened(cabut)
            and self.grng.random() < (0.05 if level == "Banding" else 0.15)
        )
        withdrawn = withdrawn or peace

        def has(day: dt.date | None) -> bool:
            return self.clock.happened(day) and not (
                withdrawn and day is not None and day >= cabut
            )

        if not has(decided):
            clerk = None
        if not has(sent):
            letter = None

        def day(start: dt.date | None, lo: int, hi: int, p: float = 0.9) -> dt.date | None:
            if start is None or v.random() >= p:
                return None
            found = _workday(start + dt.timedelta(v.randint(lo, hi)))
            return found if has(found) else None

        pk = level == "PK"
        st_app, st_opp = {
            "Banding": ("Pembanding", "Terbanding"),
            "Kasasi": ("Pemohon Kasasi", "Termohon Kasasi"),
            "PK": ("Pemohon PK", "Termohon PK"),
        }[level]
        # IDStatusPihak: 1 appellant, 4 opponent (the views filter sections on it)
        parties = [(1, st_app, appellant), (4, st_opp, opponent)]
        out: JSON = {}
        para: list[JSON] = []
        for _sid, status, name in parties:
            row: JSON = {"status": status, "nama": name}
            if not pk:
                lawyer = (
                    self.hidden(
                        f"{v.choice(V.FIRST_NAMES_M)} {v.choice(V.LAST_NAMES)}, "
                        f"{v.choice(V.TITLES_LAWYER)}"
                    )
                    if v.random() < 0.25
                    else None
                )
                row["diwakili"] = "Ya" if lawyer else "Tidak"
                row["diwakili_oleh"] = lawyer
            para.append(row)
        out["para_pihak"] = para
        keterangan = {"Banding": None, "Kasasi": "Keterangan:", "PK": st_app}[level]
        if peace and keterangan:
            keterangan += " Para pihak berdamai"
        if withdrawn:  # detil_banding.php:76-78 / detil_kasasi.php:72-81
            lv = "Banding" if level == "Banding" else "kasasi"
            keterangan = "\n".join(
                x
                for x in (f"Permohonan {lv} Telah Dicabut Pada {date_id(cabut)}", keterangan)
                if x
            )
        out["pemohon"] = [
            {"tanggal_permohonan": iso(d_req), "nama": appellant, "keterangan": keterangan}
        ]
        if self.alur.id in (1, 8, 15) and peace:
            g = self.grng
            agreed = _workday(cabut - dt.timedelta(g.randint(4, 12)))
            filed = _workday(agreed + dt.timedelta(g.randint(1, 3)))
            out["mediasi"] = {
                "tanggal_kesepakatan": iso(agreed),
                "tanggal_pengajuan_kesepakatan": iso(filed) if filed <= cabut else None,
                "mediator": [
                    {"nama": g.choice(V.MEDIATORS_NON_HAKIM), "status": "Non-Hakim"},
                    {"nama": g.choice(V.JUDGES), "status": "Hakim"},
                ][: g.choice((1, 1, 2))],
                "tanggal_pengiriman_kesepakatan": iso(cabut),
            }
        elif self.alur.id in (1, 8, 15):
            out["mediasi"] = {
                "tanggal_kesepakatan": None,
                "tanggal_pengajuan_kesepakatan": None,
                "mediator": [],
                "tanggal_pengiriman_kesepakatan": None,
            }
        memori = day(d_req, 3, 20, 0.8)
        kontra = day(memori, 7, 14, 0.7)
        # which IDStatusPihak each section lists (detil_banding.php lines 214, 251, 288, 325, 362)
        dates: list[tuple[str, frozenset[int], dt.date | None]] = [
            ("pemberitahuan_permohonan", frozenset({4}), day(d_req, 1, 5, 0.95)),
            ("penerimaan_memori", frozenset({1}), memori),
            ("penyerahan_memori", frozenset({4}), day(memori, 1, 6)),
            ("penerimaan_kontra_memori", frozenset({4}), kontra),
            ("penyerahan_kontra_memori", frozenset({1}), day(kontra, 1, 6)),
        ]
        if not pk:
            dates.append(("pemberitahuan_inzage", frozenset({1, 4}), day(d_req, 8, 25, 0.8)))
        for key, shown, when in dates:
            out[key] = [
                {"status": status, "nama": name, "tanggal": iso(when) if when else None}
                for sid, status, name in parties
                if sid in shown
            ]
        out["tanggal_pengiriman_berkas"] = iso(sent) if has(sent) else None
        out["nomor_surat_pengiriman_berkas"] = letter
        out["tanggal_putusan"] = iso(decided) if has(decided) else None
        out["nomor_putusan"] = nomor if has(decided) else None
        out["amar_putusan"] = outcome if has(decided) else None
        if not has(decided):
            out["majelis_hakim"] = []
        elif pk:
            out["majelis_hakim"] = [{"jabatan": None, "nama": n} for n in majelis]
        else:
            out["majelis_hakim"] = [
                {"jabatan": j, "nama": n}
                for j, n in zip(
                    ("Hakim Ketua", "Hakim Anggota 1", "Hakim Anggota 2"), majelis, strict=True
                )
            ]
        out["panitera_pengganti"] = clerk
        if not pk:
            out["tanggal_penerimaan_kembali_berkas"] = iso(back) if has(back) else None
        out["tanggal_pengarsipan"] = iso(archived) if has(archived) else None
        told = day(back if has(back) else None, 1, 12, 0.95)
        out["pemberitahuan_putusan"] = [
            {"status": status, "nama": name, "tanggal": iso(told) if told else None}
            for sid, status, name in parties
            if not pk or sid > 1
        ]
        return out

    def notices(
        self, d_put: dt.date, sides: list[tuple[int, str, list[str]]], p: float
    ) -> list[JSON]:
        """The putusan_akhir.php notice rows of every party: ``pihakke``/``urutan`` (render
        only) and the dates of Pemberitahuan, Menerima and Kirim Salinan Putusan."""
        v, has = self.vrng, self.clock.happened
        if v.random() >= p:
            return []
        out: list[JSON] = []
        for pihakke, label, names in sides:
            for urutan, name in enumerate(names, 1):
                told = _workday(d_put + dt.timedelta(v.randint(0, 8)))
                took = _workday(told + dt.timedelta(v.randint(0, 7)))
                copy = _workday(told + dt.timedelta(v.randint(3, 20)))
                out.append(
                    {
                        "pihakke": pihakke,
                        "urutan": urutan,
                        "status": f"{label} {urutan}",
                        "nama": name,
                        "tanggal": iso(told) if has(told) else None,
                        "menerima": (
                            iso(took)
                            if has(took) and _chance(v, "menerima", pihakke, urutan) < 0.9
                            else None
                        ),
                        "kirim": (
                            iso(copy)
                            if has(copy) and _chance(v, "kirim", pihakke, urutan) < 0.8
                            else None
                        ),
                    }
                )
        return out

    def putusan_parties(self, put: JSON, rows: list[JSON], criminal: bool) -> None:
        """Fill the notice rows of ``put`` (truth) and keep their sides for the renderer."""
        tilang = self.alur.id == 114

        def pick(key: str, sides: tuple[int, ...]) -> list[JSON]:
            return [
                {"status": r["status"], "nama": r["nama"], "tanggal": r[key]}
                for r in rows
                if r["pihakke"] in sides and not (tilang and r["pihakke"] == 1)
            ]

        put["pemberitahuan_putusan"] = pick("tanggal", (1, 2, 3, 4))
        if criminal:
            put["menerima_putusan"] = pick("menerima", (1, 2))
            # the view's pihakke 2 table under Kirim Salinan prints tglMenerimaPutusan (l. 504)
            put["kirim_salinan_putusan"] = [
                {"status": r["status"], "nama": r["nama"],
                 "tanggal": r["kirim"] if r["pihakke"] == 1 else r["menerima"]}
                for r in rows
                if r["pihakke"] in (1, 2) and not (tilang and r["pihakke"] == 1)
            ]  # fmt: skip
        self.extra["putusan_notices"] = [
            {"pihakke": r["pihakke"], "urutan": r["urutan"]} for r in rows
        ]

    # ---------------------------------------------------------------- criminal
    def build_criminal(self) -> None:
        r = self.rng
        kind = self.alur.kind
        pool = {"pidana": V.PIDANA_B + V.PIDANA_SUS, "anak": V.PIDANA_ANAK, "jinayat": V.JINAYAT}[
            kind
        ]
        offence, pasal, act = r.choice(pool)
        self.klasifikasi = offence
        # the replica files its child-protection cases under a jenis perkara the views
        # anonymise (282/13): penetapan.php:37-42,87-91,133-137, saksi.php:25-29,
        # putusan_akhir.php:224-228,378-382,463-467 print 'Data disamarkan'
        self.disamarkan = offence == "Perlindungan Anak"
        jaksa = [self.jaksa() for _ in range(1 if r.random() < 0.7 else 2)]
        if self.pa:
            jaksa = [self.jaksa()]
        n_def = 1 if r.random() < 0.82 else 2
        anak = kind == "anak"
        defendants = ["Disamarkan" if anak else self.defendant() for _ in range(n_def)]
        self.header_parties = [
            {"label": self.alur.pihak_1, "nama": jaksa},
            {"label": self.alur.pihak_2, "nama": defendants},
        ]
        letter_day = self.clock.after(self.reg, -6, -1)
        month = letter_day.month
        du: JSON = {
            "tanggal_pendaftaran": iso(self.reg),
            "klasifikasi_perkara": offence,
            "nomor_perkara": self.raw,
            "tanggal_surat": iso(letter_day),
            "nomor_surat": (
                f"B-{r.randint(100, 4999)}/L.4.{r.randint(10, 30)}/Eku.2/{month:02d}"
                f"/{letter_day.year}"
            ),
        }
        if self.court.military:
            du["informasi"] = self.informasi(letter_day)
        counsel = (
            [{"nama": self.hidden(self.lawyer()), "nama_pihak": defendants[0]}]
            if r.random() < 0.3
            else []
        )
        rows: list[tuple[str, str, list[Any]]] = [
            ("pihak", self.alur.pihak_1, jaksa),
            ("pihak", self.alur.pihak_2, defendants),
            ("kuasa", self.alur.kuasa_2, counsel),
        ]
        if self.alur.id in ANAK_KORBAN_ALUR:
            rows.append(("pihak", "Anak Korban", self.victims()))
        self.party_rows(du, rows)
        place = f"Kecamatan {r.choice(('Sukamaju', 'Mekarsari', 'Tanjung Harapan', 'Sidorejo'))}"
        crime_day = self.clock.after(self.reg, -120, -20)
        subject = "Anak" if anak else "Terdakwa"
        who = ", ".join(defendants)
        du["dakwaan"] = "\n".join(
            [
                "PERTAMA:",
                (
                    f"Bahwa {subject} {who} pada hari {_day_name(crime_day)} tanggal "
                    f"{_long_date(crime_day)} sekitar pukul {r.randint(1, 23):02d}.00 WIB atau "
                    f"setidak-tidaknya pada suatu waktu dalam tahun {crime_day.year}, bertempat "
                    "di "
                    f"{place}, {self.court.town}, "
                    f"telah {act}, perbuatan mana dilakukan dengan cara sebagai berikut:"
                ),
                f"Bahwa berawal ketika {subject} bertemu dengan saksi di {place};",
                f"Perbuatan {subject} sebagaimana diatur dan diancam pidana dalam {pasal}.",
            ]
        )
        du["pihak_dipublikasikan"] = "Tidak" if anak or self.pa else "Ya"
        self.data_umum = du

        # barang bukti register (criminal flows except tilang)
        items = []
        for _ in range(r.choice((0, 1, 1, 2, 3))):
            handed = None
            items.append(
                {
                    "tanggal_penerimaan": iso(self.reg),
                    "uraian": r.choice(V.EVIDENCE),
                    "tempat_penyimpanan": r.choice(
                        ("Rupbasan Replika", "Kejaksaan Negeri Replika", "Gudang Barang Bukti")
                    ),
                    "tempat_penyerahan": None,
                    "nama_penerima": None,
                    "tanggal_penyerahan": handed,
                    "catatan": None,
                }
            )
        self.tabs["barang_bukti"] = items
        self.shown.append("barang_bukti")

        _d_phs, first = self.penetapan(self.reg, 1 if anak else 3, jurusita=False)
        if anak and r.random() < 0.5 and self.diversi():
            return  # agreed: the case ends with the agreement's penetapan, no trial
        if first is None:
            return
        n_saksi = r.randint(2, 5)
        agendas = ["Pembacaan Surat Dakwaan"]
        agendas += ["Pemeriksaan Saksi-saksi"] * r.randint(1, 3)
        agendas += [
            "Pemeriksaan " + subject,
            "Pembacaan Tuntutan",
            "Pembelaan",
            "Pembacaan Putusan",
        ]
        gap = (2, 4) if anak else (6, 8)
        held = self.hearings(first, agendas, gap)
        if len(held) >= 2:
            self.saksi(n_saksi)
            if not anak and self.alur.id == 111 and self.grng.random() < 0.08:
                # the defence's objection (eksepsi) ruled on by an interlocutory judgment
                self.putusan_sela(held[1], self.alur.kuasa_2, "Terdakwa")
        tuntutan_at = len(agendas) - 3
        months = r.choice((4, 6, 8, 10, 12, 18, 24, 30, 36, 48, 60))
        if len(held) > tuntutan_at:
            d_t = held[tuntutan_at]
            self.tabs["penuntutan"] = [
                {
                    "tanggal_tuntutan": iso(d_t),
                    "isi_tuntutan": "\n".join(
                        [
                            (
                                f"Menyatakan {subject} {who} bersalah melakukan tindak pidana "
                                f'"{offence}" sebagaimana diatur dalam {pasal};'
                            ),
                            (
                                f"Menjatuhkan pidana terhadap {subject} dengan pidana penjara "
                                "selama "
                                f"{_months(months + 6)} dikurangi selama {subject} berada dalam "
                                "tahanan;"
                            ),
                            "Menyatakan barang bukti dirampas untuk dimusnahkan;",
                            (
                                f"Menetapkan agar {subject} dibebani membayar biaya perkara "
                                "sebesar "
                                "Rp5.000,00 (lima ribu rupiah)."
                            ),
                        ]
                    ),
                }
            ]
            self.shown.append("penuntutan")
        if len(held) < len(agendas):
            return
        d_put = held[-1]
        self.putusan_day = d_put
        self.event(d_put, "Putusan", "Putusan", "Putusan")
        # putusan_akhir.php fetchStatusPutusanText: "<status> (<n> Tahun <n> Bulan )" per line
        sentence = (
            f"Pidana Pembinaan dalam Lembaga ({_months_short(months)})"
            if anak
            else f"Pidana Penjara Waktu Tertentu ({_months_short(months)})"
        )
        if not anak and r.random() < 0.25:
            sentence += f"\nPidana Denda Rp.{r.choice((1, 5, 10, 800))}.000.000,00"
        minutasi = _workday(self.clock.after(d_put, 1, 14))
        put: JSON = {
            "tanggal_label": "Tanggal Putusan",
            "tanggal_putusan": iso(d_put),
            "status_putusan_terdakwa": [
                {"nama": d, "tanggal_putusan": iso(d_put), "putusan": sentence} for d in defendants
            ],
            "amar_putusan": "Disamarkan"
            if anak
            else "\n".join(
                [
                    (
                        f"Menyatakan {subject} {who}{PIDANA_SUFFIX} terbukti secara sah dan "
                        "meyakinkan "
                        f'bersalah melakukan tindak pidana "{offence}" sebagaimana dalam dakwaan '
                        "Pertama;"
                    ),
                    (
                        f"Menjatuhkan pidana kepada {subject} oleh karena itu dengan pidana "
                        "penjara "
                        f"selama {_months(months)};"
                    ),
                    (
                        "Menetapkan masa penangkapan dan penahanan yang telah dijalani Terdakwa "
                        "dikurangkan seluruhnya dari pidana yang dijatuhkan;"
                    ),
                    "Menetapkan Terdakwa tetap ditahan;",
                    (
                        "Membebankan kepada Terdakwa membayar biaya perkara sejumlah Rp5.000,00 "
                        "(lima ribu rupiah);"
                    ),
                ]
            ),
            "tanggal_minutasi": iso(minutasi) if self.clock.happened(minutasi) else None,
            "keterangan": None,
        }
        put["amar_label"] = "Amar Putusan"
        sides = [(k + 1, p["label"], p["nama"]) for k, p in enumerate(self.header_parties)]
        self.putusan_parties(put, self.notices(d_put, sides, 0.92), criminal=True)
        penyidik = _workday(d_put + dt.timedelta(self.vrng.randint(3, 30)))
        put["kirim_salinan_putusan_penyidik"] = (
            iso(penyidik) if self.clock.happened(penyidik) and self.vrng.random() < 0.6 else None
        )
        ended = not anak and self.grng.random() < 0.04
        if ended:
            self.penetapan_91(put, subject, who)
        self.tabs["putusan"] = put
        self.shown.append("putusan")
        if self.event(minutasi, "Minutasi", "Minutasi", "Minutasi"):
            handover = _workday(self.clock.after(minutasi, 3, 40))
            for item in items:
                if self.clock.happened(handover) and r.random() < 0.7:
                    item["tempat_penyerahan"] = "Kejaksaan Negeri Replika"
                    item["nama_penerima"] = self.person()
                    item["tanggal_penyerahan"] = iso(handover)
                    item["catatan"] = r.choice(
                        ("Dirampas untuk dimusnahkan", "Dikembalikan kepada saksi", None)
                    )
        if not anak and not ended:
            self.appeal(d_put, True, defendants[0], jaksa[0])
            if months >= 24 and self.grng.random() < 0.06:
                self.grasi(d_put, defendants[0])

    def penetapan_91(self, put: JSON, subject: str, who: str) -> None:
        """A criminal case ended by a penetapan (status_putusan_id 91: withdrawn by the
        prosecutor, or the right to prosecute lapsed): putusan_akhir.php:50-58 prints
        "Penetapan" labels, no Status Putusan (line 90) and no Menerima Putusan (line 352), but
        still the Kirim Salinan Penetapan tables and Kepada Penyidik row."""
        g = self.grng
        withdrawn = g.random() < 0.7
        prosecutor = "Oditur Militer" if self.court.military else "Penuntut Umum"
        put["tanggal_label"] = "Tanggal Penetapan"
        put["amar_label"] = "Amar Penetapan"
        del put["status_putusan_terdakwa"]
        put.pop("menerima_putusan", None)
        if withdrawn:
            put["amar_putusan"] = (
                f"MENETAPKAN:\nMengabulkan permohonan {prosecutor} untuk mencabut perkara "
                f"atas nama {subject} {who};\nMemerintahkan {subject} dikeluarkan dari tahanan;"
                "\nMembebankan biaya perkara kepada negara;"
            )
            put["keterangan"] = "Perkara dicabut"
        else:
            put["amar_putusan"] = (
                f"MENETAPKAN:\nMenyatakan kewenangan menuntut pidana terhadap {subject} {who} "
                f"gugur karena {subject} meninggal dunia;\nMembebankan biaya perkara kepada "
                "negara;"
            )
            put["keterangan"] = f"{subject} meninggal dunia"

    # ---------------------------------------------------------------- military
    def informasi(self, letter: dt.date) -> JSON:
        """The military Informasi grid (data_umum.php:119-167). Tanggal Kejadian is always
        empty here: a filled one reaches the template's ``$$this`` slip (line 130), a fatal
        error that ends the page, which no court serves as a working page."""
        r = self.rng
        skep = self.clock.after(letter, -20, -8)
        bap = self.clock.after(skep, -40, -10)
        dakwaan = self.clock.after(letter, -3, 0)
        return {
            "tanggal_kejadian": None,
            "nomor_surat_dakwaan": f"Sdak/{r.randint(10, 199)}/{_ROMAN_MONTHS[dakwaan.month - 1]}"
            f"/{dakwaan.year}",
            "tempat_kejadian": f"Asrama {r.choice(('Yonif 700', 'Kodim 1408', 'Lanal'))} "
            f"{self.court.town}",
            "pasal_dakwaan": r.choice(("Pasal 86 ke-1 KUHPM", "Pasal 87 ayat (1) ke-2 KUHPM",
                                       "Pasal 351 ayat (1) KUHP")),
            "tanggal_skeppera": iso(skep),
            "penyidik_militer": "POMDAM XIV/HSN",
            "nomor_skeppera": f"Kep/{r.randint(10, 199)}/{_ROMAN_MONTHS[skep.month - 1]}"
            f"/{skep.year}",
            "nomor_bap_penyidik_militer": f"BP-{r.randint(10, 99)}/A-{r.randint(10, 99)}"
            f"/{_ROMAN_MONTHS[bap.month - 1]}/{bap.year}/Idik",
            "pejabat_skeppera": "Danrem 141/Tp",
            "tanggal_bap_penyidik": iso(bap),
            "tanggal_surat_dakwaan": iso(dakwaan),
        }  # fmt: skip

    # ---------------------------------------------------------------- 119 and 124
    def build_pretrial(self) -> None:
        """Praperadilan (alur 119) and the military legal-opinion request (alur 124): Data
        Umum, Penetapan, hearings and the verdict (putusan_akhir.php: 119 prints its Status
        Putusan as text, 124 "Tanggal Penetapan" / "Petikan Penetapan"; neither prints the
        criminal Menerima / Kirim Salinan / Penyidik rows, line 351)."""
        r = self.rng
        pra = self.alur.kind == "praperadilan"
        letter = self.clock.after(self.reg, -5, -1)
        du: JSON = {
            "tanggal_pendaftaran": iso(self.reg),
            "nomor_perkara": self.raw,
            "tanggal_surat": iso(letter) if pra else None,
            "nomor_surat": f"{r.randint(1, 40):02d}/PRA/{letter.month:02d}/{letter.year}"
            if pra
            else None,
        }
        rows: list[tuple[str, str, list[Any]]]
        what, suspects = "", []
        if pra:
            self.klasifikasi = r.choice(
                ("Sah atau tidaknya penetapan tersangka", "Sah atau tidaknya penahanan",
                 "Sah atau tidaknya penghentian penyidikan")
            )  # fmt: skip
            pemohon = [self.defendant()]
            termohon = [f"KEPALA KEPOLISIAN RESOR {self.court.town.upper()}"]
            lawyer = [{"nama": self.lawyer(), "nama_pihak": termohon[0]}]
            if r.random() < 0.5:
                lawyer = []
            self.header_parties = [
                {"label": self.alur.pihak_1, "nama": pemohon},
                {"label": self.alur.pihak_2, "nama": termohon},
            ]
            rows = [("pihak", self.alur.pihak_1, pemohon), ("pihak", self.alur.pihak_2, termohon),
                    ("kuasa", self.alur.kuasa_2, lawyer)]  # fmt: skip
            what = self.klasifikasi.lower().replace("sah atau tidaknya ", "")
            du["petitum_permohonan"] = (
                f"Menyatakan {what} atas diri Pemohon tidak sah;\n"
                "Membebankan biaya perkara kepada negara."
            )
        else:
            self.klasifikasi = "Permohonan Pendapat Hukum"
            oditur = [f"LETKOL CHK {self.person(female=False).upper()}, S.H."]
            suspects = [
                f"SERKA {self.person(female=False).upper()}" for _ in range(r.randint(1, 2))
            ]
            self.header_parties = [
                {"label": self.alur.pihak_1, "nama": oditur},
                {"label": self.alur.pihak_2, "nama": []},
            ]
            du["berkas_dari"] = "POMDAM XIV/HSN"
            du["tanggal_kejadian"] = iso(self.clock.after(self.reg, -90, -20))
            du["tempat_kejadian"] = f"Jalan Poros {self.court.town} Km {r.randint(2, 40)}"
            rows = [("pihak", self.alur.pihak_1, oditur), ("pihak", self.alur.pihak_2, []),
                    ("pihak", self.alur.pihak_14, suspects)]  # fmt: skip
            du["pendapat_ormil_pappera"] = "Perkara dilimpahkan ke Pengadilan Militer."
        du["klasifikasi_perkara"] = self.klasifikasi
        self.party_rows(du, rows)
        du["pihak_dipublikasikan"] = "Ya"
        self.data_umum = du
        _d_phs, first = self.penetapan(self.reg, 1, jurusita=False)
        if first is None:
            return
        agendas = (
            ["Pembacaan Permohonan", "Jawaban Termohon", "Pembuktian", "Kesimpulan",
             "Pembacaan Putusan"]
            if pra
            else ["Pemeriksaan Berkas", "Pendapat Oditur", "Pembacaan Penetapan"]
        )  # fmt: skip
        held = self.hearings(first, agendas, (1, 3))
        if len(held) < len(agendas):
            return
        d_put = held[-1]
        self.putusan_day = d_put
        self.event(d_put, "Putusan", "Putusan", "Putusan")
        g = self.grng
        minutasi = _workday(self.clock.after(d_put, 1, 7))
        put: JSON
        if pra:
            status = g.choice(
                ("Permohonan Ditolak", "Permohonan Ditolak", "Permohonan Dikabulkan",
                 "Permohonan Tidak Dapat Diterima", "Gugur")
            )  # fmt: skip
            amar = {
                "Permohonan Ditolak": "Menolak permohonan Praperadilan Pemohon untuk seluruhnya;",
                "Permohonan Dikabulkan": "Mengabulkan permohonan Praperadilan Pemohon;\n"
                f"Menyatakan {what} atas diri Pemohon tidak sah;",
                "Permohonan Tidak Dapat Diterima": "Menyatakan permohonan Praperadilan Pemohon "
                "tidak dapat diterima;",
                "Gugur": "Menyatakan permohonan Praperadilan Pemohon gugur;",
            }[status]
            put = {
                "tanggal_label": "Tanggal Putusan",
                "tanggal_putusan": iso(d_put),
                "status_putusan": status,
                "amar_label": "Amar Putusan",
                "amar_putusan": "MENGADILI:\n" + amar + "\nMembebankan biaya perkara kepada "
                "Pemohon sejumlah nihil;",
            }
        else:
            put = {
                "tanggal_label": "Tanggal Penetapan",
                "tanggal_putusan": iso(d_put),
                "amar_label": "Petikan Penetapan",
                "amar_putusan": "MENETAPKAN:\n"
                + g.choice(
                    ("Menyatakan perkara {} diselesaikan menurut hukum disiplin prajurit;",
                     ("Menyatakan perkara {} diserahkan kepada Oditurat Militer untuk "
                      "dilimpahkan ke Pengadilan Militer;"))
                ).format(f"{self.alur.pihak_14} {', '.join(suspects)}"),
            }  # fmt: skip
        put["tanggal_minutasi"] = iso(minutasi) if self.clock.happened(minutasi) else None
        put["keterangan"] = None
        sides = [(k + 1, p["label"], p["nama"]) for k, p in enumerate(self.header_parties)]
        self.putusan_parties(put, self.notices(d_put, sides, 0.9), criminal=False)
        self.tabs["putusan"] = put
        self.shown.append("putusan")
        self.event(minutasi, "Minutasi", "Minutasi", "Minutasi")

    # ---------------------------------------------------------------- tilang
    def build_tilang(self) -> None:
        r = self.rng
        self.klasifikasi = "Lalu Lintas"
        vehicle, bukti = r.choice(V.VEHICLES)
        jaksa = [self.jaksa()]
        offender = self.person(female=r.random() < 0.2)
        self.header_parties = [
            {"label": self.alur.pihak_1, "nama": jaksa},
            {"label": self.alur.pihak_2, "nama": [offender]},
        ]
        region, digits = r.choice(V.PLATES), r.randint(1000, 9999)
        letters = "".join(r.choices("ABCDEFGHJKLMNPRSTUVWXYZ", k=r.randint(1, 3)))
        plate = f"{region} {digits} {letters}"
        seri = f"{r.choice('ABCDEFG')} {r.randint(10000000, 99999999)}"
        bayar = "".join(str(r.randint(0, 9)) for _ in range(15))
        d_surat = self.clock.after(self.reg, -21, -5)
        # data_umum.php:65-97 with detil_perkara.php:37-44: the controller never sets
        # Tanggal Penindakan, Jenis Surat Tilang or Nomor Pembayaran, so they print empty
        self.data_umum = {
            "tanggal_pendaftaran": iso(self.reg),
            "klasifikasi_perkara": "Lalu Lintas",
            "nomor_perkara": self.raw,
            "tanggal_surat": iso(d_surat),
            "tanggal_penindakan": None,
            "ditindak_oleh": f"Sat Lantas Polres {self.court.town}",
            "jenis_surat_tilang": None,
            "nomor_seri_surat_tilang": seri,
            "nomor_pembayaran": None,
            "jenis_kendaraan": vehicle,
            "tanda_nomor_kendaraan": plate,
            "bukti": bukti,
            "dakwaan": None,
            "pihak_dipublikasikan": "Ya",
        }
        self.party_rows(self.data_umum, [("pihak", self.alur.pihak_2, [offender])])
        self.extra["tilang"] = {"seri": seri, "bayar": bayar, "plate": plate, "offender": offender}
        d_pmh = _workday(self.clock.after(self.reg, 0, 2))
        if self.event(d_pmh, "Penetapan", "Penetapan Hakim", "Penetapan Majelis Hakim"):
            self.tabs["penetapan"] = {
                "hakim": [{"tanggal_penetapan": iso(d_pmh), "nama": r.choice(V.JUDGES),
                           "posisi": "Hakim", "aktif": "Ya"}],
                "panitera_pengganti": [{"tanggal_penetapan": iso(d_pmh),
                                        "nama": r.choice(V.CLERKS), "aktif": "Ya"}],
                "sidang_pertama": [],
            }  # fmt: skip
            self.shown.append("penetapan")
        d_sid = _workday(self.clock.after(self.reg, 2, 9))
        room = "Ruang Sidang Tilang"
        self.extra["tilang"]["sidang"] = d_sid
        self.extra["tilang"]["ruang"] = room
        if not self.clock.happened(d_pmh):
            return
        self.tabs["jadwal_sidang"] = [
            {"tanggal": iso(d_sid), "jam": "08:00 s/d Selesai", "agenda": "Sidang Tilang",
             "jenis_sidang": None, "ruangan": room, "dihadiri_oleh": None,
             "alasan_ditunda": None}
        ]  # fmt: skip
        self.shown.append("jadwal_sidang")
        if not self.event(d_sid, "Persidangan", "Sidang Pertama", "Sidang pertama"):
            return
        fine = r.choice((50, 75, 100, 150, 250, 500)) * 1000
        verdict = f"Denda Rp.{fine // 1000}.000,00 subsidair 1 (satu) hari kurungan"
        self.extra["tilang"]["putusan"] = verdict
        self.putusan_day = d_sid
        self.event(d_sid, "Putusan", "Putusan", "Putusan")
        self.tabs["putusan"] = {
            "tanggal_label": "Tanggal Putusan",
            "tanggal_putusan": iso(d_sid),
            "status_putusan_terdakwa": [
                {"nama": offender, "tanggal_putusan": iso(d_sid), "putusan": verdict}
            ],
            "amar_putusan": f"Menjatuhkan pidana denda sebesar Rp{thousands(fine)},00 subsidair "
            "1 (satu) hari kurungan; Membebankan biaya perkara sebesar Rp1.000,00",
            "tanggal_minutasi": iso(d_sid),
            "keterangan": "Verstek" if r.random() < 0.6 else None,
        }
        put = self.tabs["putusan"]
        put["amar_label"] = "Amar Putusan"
        put["putusan_verstek"] = "Ya" if put["keterangan"] == "Verstek" else "Tidak"
        sides = [(k + 1, p["label"], p["nama"]) for k, p in enumerate(self.header_parties)]
        self.putusan_parties(put, self.notices(d_sid, sides, 0.15), criminal=True)
        put["kirim_salinan_putusan_penyidik"] = None
        self.shown.append("putusan")
        self.event(d_sid, "Minutasi", "Minutasi", "Minutasi")

    # ---------------------------------------------------------------- civil
    def build_civil(self) -> None:
        r = self.rng
        kind = self.alur.kind
        tun = kind == "tun"
        if tun:
            kind = "gugatan"
        pa = self.pa
        if tun:
            self.klasifikasi = r.choice(TUN_KLASIFIKASI)
        elif kind == "gugatan":
            self.klasifikasi = r.choice(V.PA_G if pa else V.PERDATA_G)
        elif kind == "permohonan":
            self.klasifikasi = r.choice(V.PA_P if pa else V.PERDATA_P)
        elif kind == "pailit":
            r.choice(V.PERDATA_GS)  # (the stream draws as for the alur 1 case it replaced)
            self.klasifikasi = "Kepailitan"
        else:
            self.klasifikasi = r.choice(V.PERDATA_GS)
        p1 = [self.civil_party() for _ in range(1 if r.random() < 0.8 else 2)]
        if kind == "permohonan":
            p2: list[str] = []
        else:
            p2 = [self.civil_party() for _ in range(r.choice((1, 1, 1, 2, 3)))]
        self.header_parties = [
            {"label": self.alur.pihak_1, "nama": p1},
            {"label": self.alur.pihak_2, "nama": p2},
        ]
        du: JSON = {
            "tanggal_pendaftaran": iso(self.reg),
            "klasifikasi_perkara": self.klasifikasi,
            "nomor_perkara": self.raw,
        }
        letter = self.clock.after(self.reg, -5, 0)
        du["tanggal_surat"] = iso(letter)
        du["nomor_surat"] = (
            f"{r.randint(1, 99):02d}/SK/{letter.month:02d}/{letter.year}"
            if r.random() < 0.4
            else None
        )
        kuasa_1 = (
            [{"nama": self.hidden(self.lawyer()), "nama_pihak": p1[0]}] if r.random() < 0.5 else []
        )
        kuasa_2 = (
            [{"nama": self.hidden(self.lawyer()), "nama_pihak": p2[0]}]
            if p2 and r.random() < 0.35
            else []
        )
        rows: list[tuple[str, str, list[Any]]] = [
            ("pihak", self.alur.pihak_1, p1),
            ("kuasa", self.alur.kuasa_1, kuasa_1),
            ("pihak", self.alur.pihak_2, p2),
            ("kuasa", self.alur.kuasa_2, kuasa_2),
        ]
        if self.alur.id == 1:
            # data_umum.php:328-399: the fourth party (Turut Tergugat) and its lawyers, '-'
            # when there is none
            p4 = [r.choice(V.COMPANIES)] if r.random() < 0.15 else []
            rows.append(("pihak", self.alur.pihak_4, p4))
            rows.append(("kuasa", self.alur.kuasa_4, []))
        self.party_rows(du, rows)
        if self.alur.id in NILAI_SENGKETA_ALUR:
            du["nilai_sengketa"] = (
                r.randint(5, 480) * 1_000_000
                if kind == "gugatan"
                else r.randint(5, 450) * 1_000_000
            )
        g = "Pemohon" if kind in ("permohonan", "pailit") else "Penggugat"
        t = "Termohon" if kind == "pailit" else "Tergugat"
        if kind == "pailit":
            items = [
                f"Mengabulkan permohonan {g} untuk seluruhnya;",
                f"Menyatakan {t} {p2[0]} pailit dengan segala akibat hukumnya;",
                "Menunjuk Hakim Pengawas dan mengangkat Kurator;",
                f"Membebankan biaya kepailitan kepada {t};",
            ]
        elif kind == "permohonan":
            items = [
                f"Mengabulkan permohonan {g} untuk seluruhnya;",
                f"Menyatakan sah {self.klasifikasi.lower()} sebagaimana dimohonkan {g};",
                f"Membebankan biaya perkara kepada {g};",
            ]
        else:
            items = [
                f"Mengabulkan gugatan {g} untuk seluruhnya;",
                f"Menyatakan {t} telah melakukan {self.klasifikasi.lower()};",
                (
                    f"Menghukum {t} untuk membayar ganti rugi kepada {g} sebesar "
                    f"Rp{r.randint(5, 400)}.000.000,00;"
                ),
                f"Menghukum {t} untuk membayar biaya perkara;",
            ]
        subsidair = (
            "Apabila Majelis Hakim berpendapat lain, mohon putusan yang seadil-adilnya "
            "(ex aequo et bono)."
        )
        # data_umum.php:22-32: alur 9 (PTUN) prints the same text as "Gugatan"
        du["gugatan" if tun else "petitum"] = "\n".join(
            ["PRIMAIR:", *items, "SUBSIDAIR:", subsidair]
        )
        du["pihak_dipublikasikan"] = "Tidak" if pa else "Ya"
        du["prodeo"] = "Ya" if r.random() < 0.05 else "Tidak"
        self.data_umum = du

        ledger = _Ledger(r.randint(5, 30) * 100_000 if du["prodeo"] == "Tidak" else 0, self.today)
        ledger.add(self.reg, "Panjar Biaya Perkara", ledger.deposit, None)
        ledger.add(self.reg, "Biaya Pendaftaran", None, 30_000)
        ledger.add(self.reg, "Biaya Proses", None, 75_000)

        judges = 3 if kind == "gugatan" else 1
        start = self.reg
        if tun and self.grng.random() < 0.3:
            # the chairman's dismissal procedure (UU 5/1986 art. 62) recorded in SIPP
            proceeds = self.dismissal_ptun(p1, p2)
            if proceeds is None:
                self.tabs["biaya_perkara"] = ledger.stages()
                self.shown.append("biaya_perkara")
                return
            start = proceeds
        d_phs, first = self.penetapan(start, judges, jurusita=True)
        self.shown.append("biaya_perkara")
        if first is None:
            self.tabs["biaya_perkara"] = ledger.stages()
            return
        assert d_phs is not None
        for who in (g, t) if kind != "permohonan" else (g,):
            ledger.add(d_phs, f"Biaya Panggilan {who}", None, r.randint(2, 8) * 50_000)
            ledger.add(d_phs, f"PNBP Panggilan Pertama {who}", None, 10_000)
        # mediation
        start_trial: dt.date | None = first
        prefix: list[JSON] = []
        if kind == "gugatan" and not tun and self.clock.happened(first) and r.random() < 0.75:
            prefix = [
                hearing_row(first, "Sidang Pertama", r.choice(V.ROOMS[:3]), None, ATTENDANCE_CIVIL)
            ]
            start_trial = self.mediasi(first)
            if start_trial is None:
                self.tabs["jadwal_sidang"] = prefix
                self.shown.append("jadwal_sidang")
                self.tabs["biaya_perkara"] = ledger.stages()
                return
        if kind == "gugatan":
            agendas = ["Pembacaan Gugatan", "Jawaban", "Replik", "Duplik", "Pembuktian Penggugat",
                       "Pembuktian Tergugat", "Kesimpulan", "Pembacaan Putusan"]  # fmt: skip
            gap = (6, 14)
        elif kind == "sederhana":
            agendas = ["Pemeriksaan Pendahuluan", "Perdamaian", "Pembuktian", "Pembacaan Putusan"]
            gap = (2, 5)
        elif kind == "pailit":
            # UU 37/2004 art. 8(5): the petition is decided within 60 days
            agendas = ["Pemeriksaan Permohonan", "Jawaban Termohon", "Pembuktian", "Kesimpulan",
                       "Pembacaan Putusan"]  # fmt: skip
            gap = (3, 8)
        else:
            agendas = ["Pemeriksaan Permohonan", "Pembuktian", "Pembacaan Penetapan"]
            gap = (5, 9)
        # (PTUN knows no verstek: the draw is kept so the stream stays as it was)
        verstek = kind != "permohonan" and r.random() < 0.1 and not tun and kind != "pailit"
        if verstek:
            agendas = [agendas[0], "Pembuktian Penggugat", "Pembacaan Putusan"]
        # a few small claims are found not to be one at the preliminary examination
        # (PERMA 4/2019 art. 11): the dismissal penetapan ends the case
        dismissed = kind == "sederhana" and self.grng.random() < 0.06
        # ... and a few lapse when the plaintiff does not come to the first hearing
        # (PERMA 4/2019 art. 13): the penetapan gugur ends the case
        lapsed = kind == "sederhana" and not dismissed and self.grng.random() < 0.05
        if dismissed or lapsed:
            agendas = agendas[:1]
        assert start_trial is not None
        held = self.hearings(start_trial, agendas, gap, prefix)
        if "perlawanan_rows" in self.extra:
            # the Perlawanan's hearings come first in Jadwal Sidang
            self.tabs["jadwal_sidang"] = self.extra.pop("perlawanan_rows") + self.tabs.get(
                "jadwal_sidang", []
            )
            if "jadwal_sidang" not in self.shown:
                self.shown.append("jadwal_sidang")
        if dismissed or lapsed:
            if held:
                (self.dismissal_gs if dismissed else self.penetapan_gugur)(held[0])
            self.tabs["biaya_perkara"] = ledger.stages()
            return
        if kind == "gugatan" and not verstek and len(held) >= 2 and self.alur.id != 9:
            self.counterclaims(held[1], p1, p2)
        if self.alur.id == 1 and not verstek and len(held) >= 3 and self.grng.random() < 0.05:
            # an objection to the court's competence decided by an interlocutory judgment
            self.putusan_sela(held[2], "Tergugat", "Tergugat")
        if "mediasi" in self.tabs and len(held) >= 3 and r.random() < 0.06:
            self.peace_attempt(held[2])
        if any("Pembuktian" in a for a in agendas[: len(held)]) and r.random() < 0.6:
            self.saksi(r.randint(1, 3))
        if len(held) < len(agendas):
            self.tabs["biaya_perkara"] = ledger.stages()
            return
        d_put = held[-1]
        self.putusan_day = d_put
        self.event(d_put, "Putusan", "Putusan" if kind != "permohonan" else "Penetapan", "Putusan")
        outcome = r.choice(
            ("Dikabulkan", "Dikabulkan Sebagian", "Ditolak", "Tidak Dapat Diterima")
            if kind != "permohonan"
            else ("Dikabulkan", "Dikabulkan", "Ditolak")
        )
        if verstek:
            outcome = "Dikabulkan Verstek"
        if kind == "pailit" and outcome == "Dikabulkan Sebagian":
            outcome = "Dikabulkan"
        minutasi = _workday(self.clock.after(d_put, 1, 21))
        notices: list[JSON] = []
        for pihakke, p in enumerate(self.header_parties, 1):
            for urutan, n in enumerate(p["nama"], 1):
                day = _workday(self.clock.after(d_put, 0, 10))
                notices.append(
                    {
                        "pihakke": pihakke,
                        "urutan": urutan,
                        "status": f"{p['label']} {urutan}",
                        "nama": n,
                        "tanggal": iso(day) if self.clock.happened(day) else None,
                    }
                )
        # permohonan: status_putusan_id 91 ("Penetapan" labels, no Status Putusan row)
        penetapan = kind == "permohonan"
        put: JSON = {
            "tanggal_label": "Tanggal Penetapan" if penetapan else "Tanggal Putusan",
            "tanggal_putusan": iso(d_put),
            "putusan_verstek": "Ya" if verstek else "Tidak",
            "sumber_hukum": self.vrng.choice(
                ([], [], ["KUH Perdata"], ["KUH Perdata", "HIR"], ["Kompilasi Hukum Islam"])
                if pa
                else ([], [], ["KUH Perdata"], ["KUH Perdata", "HIR"], ["UU No. 48 Tahun 2009"])
            ),
        }
        if not penetapan:
            put["status_putusan"] = outcome
        if self.alur.id != 2:
            ganti = self.vrng.random() < 0.15 and not penetapan
            put["nilai_ganti_kerugian"] = self.vrng.randint(5, 300) * 1_000_000 if ganti else None
        put["amar_label"] = "Amar Penetapan" if penetapan else "Amar Putusan"
        put["amar_putusan"] = "\n".join(
            [
                "MENGADILI:",
                (
                    f"{'Mengabulkan' if outcome.startswith('Dikabulkan') else 'Menolak'} "
                    f"{'permohonan' if kind in ('permohonan', 'pailit') else 'gugatan'} {g}"
                    f"{' untuk sebagian' if outcome == 'Dikabulkan Sebagian' else ''};"
                ),
                (
                    f"Membebankan kepada {g if kind == 'permohonan' else t} untuk membayar biaya "
                    "perkara "
                    f"sejumlah Rp{thousands(ledger.spent_estimate())},00;"
                ),
            ]
        )
        if kind == "pailit":
            self.kepailitan(put, d_put, outcome == "Dikabulkan", p2[0])
        self.putusan_parties(put, notices, criminal=False)
        put["tanggal_minutasi"] = iso(minutasi) if self.clock.happened(minutasi) else None
        put["keterangan"] = None
        self.tabs["putusan"] = put
        self.shown.append("putusan")
        ledger.add(d_put, "Redaksi", None, 10_000)
        ledger.add(d_put, "Meterai", None, 10_000)
        if self.event(minutasi, "Minutasi", "Minutasi", "Minutasi"):
            ledger.refund(minutasi)
        if verstek and self.verzet(d_put):
            self.tabs["biaya_perkara"] = ledger.stages()
            return
        if kind not in ("permohonan", "pailit"):  # (a bankruptcy goes to kasasi directly)
            self.appeal(d_put, False, p2[0], p1[0])
            if "banding" in self.tabs:
                d_req = dt.date.fromisoformat(
                    self.tabs["banding"]["pemohon"][0]["tanggal_permohonan"]
                )
                ledger.appeal(d_req)
        if (
            pa
            and self.klasifikasi == "Cerai Talak"
            and outcome.startswith("Dikabulkan")
            and "banding" not in self.tabs
        ):
            self.ikrar_talak(d_put, notices)
        self.tabs["biaya_perkara"] = ledger.stages()

    # ---------------------------------------------------------------- rarer tabs
    def counterclaims(self, jawaban: dt.date, p1: list[str], p2: list[str]) -> None:
        """Rekonvensi (a counterclaim filed with the answer: ~12% of contested PA gugatan,
        ~6% PN) and, on PN, intervensi (a third party joining: ~2%)."""
        r = self.rng
        if r.random() < (0.12 if self.pa else 0.06):
            self.tabs["rekonvensi"] = [
                {
                    "tanggal_pendaftaran": iso(jawaban),
                    "para_pihak": [
                        f"{p2[0]} sebagai Tergugat Konvensi/Penggugat Rekonvensi",
                        f"{p1[0]} sebagai Penggugat Konvensi/Tergugat Rekonvensi",
                    ],
                    "petitum": (
                        "Mengabulkan gugatan Penggugat Rekonvensi untuk seluruhnya;\n"
                        + (
                            "Menghukum Tergugat Rekonvensi membayar nafkah iddah dan mut'ah "
                            "kepada Penggugat Rekonvensi;"
                            if self.pa
                            else "Menghukum Tergugat Rekonvensi membayar ganti rugi kepada "
                            "Penggugat Rekonvensi;"
                        )
                        + "\nMembebankan biaya perkara menurut hukum."
                    ),
                }
            ]
            self.shown.append("rekonvensi")
            self.event(jawaban, "Persidangan", "Gugatan Rekonvensi", None)
        if not self.pa and r.random() < 0.02:
            joins = r.choice(("Penggugat", "Tergugat"))
            self.tabs["intervensi"] = [
                {
                    "urutan": 1,
                    "nama_pemohon": r.choice(V.COMPANIES),
                    "jenis_intervensi": r.choice(("Tussenkomst", "Voeging")),
                    "tergabung_ke_pihak": joins,
                    "tanggal_intervensi": iso(jawaban),
                    "petitum": (
                        "Menerima permohonan Pemohon Intervensi;\n"
                        f"Menetapkan Pemohon Intervensi sebagai pihak bersama {joins};"
                    ),
                }
            ]
            self.shown.append("intervensi")

    def diversi(self) -> bool:
        """Diversi tab (anak cases, diversi.php); True when the parties agreed (case ends)."""
        r = self.rng
        d_pen = _workday(self.clock.after(self.reg, 1, 4))
        if not self.event(d_pen, "Diversi", "Penetapan Musyawarah Diversi", None):
            return False
        d_mus = _workday(self.clock.after(d_pen, 2, 7))
        held = self.event(d_mus, "Diversi", "Musyawarah Diversi", None)
        agreed = held and r.random() < 0.35
        d_lap = _workday(self.clock.after(d_mus, 1, 3))
        d_kes = _workday(self.clock.after(d_lap, 1, 3))
        reported = agreed and self.clock.happened(d_lap)
        decided = reported and self.clock.happened(d_kes)
        d_start = _workday(self.clock.after(d_kes, 1, 7))
        started = decided and self.clock.happened(d_start)
        d_pk = _workday(self.clock.after(d_start, 30, 90))
        pk_done = started and self.clock.happened(d_pk)
        no = self.number.split("/")
        self.tabs["diversi"] = [
            {
                "pembimbing_kemasyarakatan": [self.person()],
                "tanggal_penetapan_musyawarah": iso(d_pen),
                "tanggal_musyawarah": iso(d_mus) if held else None,
                "kesepakatan": (
                    "Sepakat Melaksanakan Diversi"
                    if agreed
                    else "Tidak Sepakat Melaksanakan Diversi"
                ),
                "tanggal_hasil_musyawarah": iso(d_mus) if held else None,
                "hasil": (
                    r.choice(
                        (
                            "Anak dikembalikan kepada orang tua",
                            (
                                "Penggantian kerugian kepada korban dan Anak dikembalikan "
                                "kepada orang tua"
                            ),
                        )
                    )
                    if agreed
                    else ("Diversi tidak berhasil" if held else None)
                ),
                "tanggal_laporan_hakim": iso(d_lap) if reported else None,
                "nomor_penetapan_kesepakatan": (
                    f"{no[0]}/Pen.Div/{no[2]}/{no[3]}" if decided else None
                ),
                "tanggal_penetapan_kesepakatan": iso(d_kes) if decided else None,
                "tanggal_mulai_pelaksanaan": iso(d_start) if started else None,
                # the view prints the second text for anything but 1, also before any report
                "status_pelaksanaan": (
                    "Dilaksanakan Sepenuhnya"
                    if pk_done
                    else "Dilaksanakan Sebagian/Tidak Dilaksanakan Sepenuhnya"
                ),
                "tanggal_laporan_pembimbing": iso(d_pk) if pk_done else None,
                "nomor_laporan_pembimbing": (
                    f"W{r.randint(1, 30)}.PAS.{r.randint(1, 20)}-PK.01.05.02-{r.randint(100, 999)}"
                    if pk_done
                    else None
                ),
            }
        ]
        self.shown.append("diversi")
        if decided:
            self.event(d_kes, "Diversi", "Penetapan Kesepakatan Diversi", "Diversi")
        return agreed

    def peace_attempt(self, day: dt.date) -> None:
        """A second Mediasi row: peace during the examination (mediasi.php heads every row after
        the first "Data Penetapan Perdamaian Pada Tahap Pemeriksaan Perkara")."""
        start = _workday(self.clock.after(day, 1, 3))
        end = _workday(self.clock.after(start, 7, 14))
        done = self.clock.happened(end)
        self.tabs["mediasi"].append(
            {
                "jenis": "Perdamaian Pada Tahap Pemeriksaan Perkara",
                "tanggal_penetapan_mediator": iso(day),
                "nomor_penetapan_mediator": self.number,
                "mediator": [{"nama": self.judges[0], "status": "Hakim"}],
                "tanggal_mulai": iso(start) if self.clock.happened(start) else None,
                "tanggal_hasil": iso(end) if done else None,
                "hasil": "Tidak Berhasil" if done else None,
            }
        )

    def kepailitan(self, put: JSON, d_put: dt.date, granted: bool, debtor: str) -> None:
        """putusan_akhir.php:167-198: alur 3 prints seven more rows (supervisory judge,
        curator, State Gazette and newspaper announcements), empty when the petition failed."""
        g, has = self.grng, self.clock.happened
        keys = ("tanggal_penetapan_hakim_pengawas", "nomor_penetapan_hakim_pengawas",
                "hakim_pengawas", "kurator", "tanggal_berita_negara", "tanggal_surat_kabar",
                "nama_surat_kabar")  # fmt: skip
        put.update(dict.fromkeys(keys))
        if put["sumber_hukum"]:
            put["sumber_hukum"] = ["UU No. 37 Tahun 2004 tentang Kepailitan dan PKPU"]
        put["amar_putusan"] = put["amar_putusan"].replace(
            "Mengabulkan permohonan Pemohon;",
            f"Mengabulkan permohonan Pemohon;\nMenyatakan Termohon {debtor} pailit dengan "
            "segala akibat hukumnya;",
        )
        if not granted:
            return
        # detil_perkara.php:110-112/290-292: a declared bankruptcy has post-declaration records
        # ($ada_pasca: the supervisory judge and curator): the follow-up menu tab is listed
        self.shown.append(PAILIT_TAB)
        self.tabs[PAILIT_TAB] = render_pailit.menu_truth()
        put["tanggal_penetapan_hakim_pengawas"] = iso(d_put)
        put["nomor_penetapan_hakim_pengawas"] = self.number
        put["hakim_pengawas"] = g.choice(V.JUDGES)
        put["kurator"] = f"{g.choice(V.FIRST_NAMES_F)} {g.choice(V.LAST_NAMES)}, S.H."
        gazette = _workday(d_put + dt.timedelta(g.randint(5, 14)))
        paper = _workday(d_put + dt.timedelta(g.randint(3, 10)))
        put["tanggal_berita_negara"] = iso(gazette) if has(gazette) else None
        put["tanggal_surat_kabar"] = iso(paper) if has(paper) and g.random() < 0.8 else None
        put["nama_surat_kabar"] = g.choice(("Harian Replika Pos", "Kompas", "Media Indonesia"))

    def dismissal_ptun(self, p1: list[str], p2: list[str]) -> dt.date | None:
        """PTUN dismissal (dismissal.php, alur 9): summons, then Lolos (the case goes on from
        the returned day) or Tidak Lolos (notified to both sides; perhaps a Perlawanan,
        verzet.php with PTUN wording, which when granted lets the case go on)."""
        g, has = self.grng, self.clock.happened
        summons: list[JSON] = []
        day = last = _workday(self.reg + dt.timedelta(g.randint(2, 6)))
        for _ in range(g.choice((1, 1, 2))):
            if not has(day):
                return None  # the procedure is still running: nothing recorded yet
            last = day
            summons.append(
                {
                    "tanggal": iso(day),
                    "status_kehadiran": g.choice(("Hadir", "Hadir", "Tidak Hadir")),
                }
            )
            day = _workday(day + dt.timedelta(g.randint(5, 8)))
        decided = _workday(last + dt.timedelta(g.randint(2, 6)))
        if not has(decided):
            return None
        lolos = g.random() < 0.85
        rec: JSON = {
            "panggilan": summons,
            "tanggal_penetapan": iso(decided),
            "hasil": "Lolos" if lolos else "Tidak Lolos",
            "amar": "Menyatakan gugatan Penggugat lolos proses dismissal;"
            if lolos
            else g.choice(
                ("Menyatakan gugatan Penggugat tidak diterima;",
                 ("Menyatakan gugatan Penggugat tidak diterima karena pokok gugatan nyata-nyata "
                 "tidak termasuk wewenang Pengadilan;\nMembebankan biaya perkara kepada "
                 "Penggugat;"))
            ),
        }  # fmt: skip
        self.tabs["dismissal"] = [rec]
        self.shown.append("dismissal")
        if lolos:
            self.event(decided, "Penetapan", "Penetapan Dismissal", None)
            return decided
        self.event(decided, "Penetapan", "Penetapan Dismissal", "Penetapan Dismissal")
        for key in ("tanggal_pemberitahuan_penggugat", "tanggal_pemberitahuan_tergugat"):
            told = _workday(decided + dt.timedelta(g.randint(1, 5)))
            rec[key] = iso(told) if has(told) and _chance(g, key) < 0.9 else None
        if g.random() >= 0.5:
            return None
        return self.perlawanan(decided)

    def perlawanan(self, decided: dt.date) -> dt.date | None:
        """The PTUN Perlawanan against a dismissal (verzet.php with ``$status`` Perlawanan,
        the /PLW/ number, no Putusan Verstek row, no mediation: the Data Mediator table's one
        empty row). Returns the day the case goes on when it is granted."""
        g, has = self.grng, self.clock.happened
        d_reg = _workday(decided + dt.timedelta(g.randint(3, 13)))
        if not self.event(d_reg, "Perlawanan", "Pendaftaran Perlawanan", "Perlawanan"):
            return None
        no = self.number.split("/")
        d_pmh = _workday(d_reg + dt.timedelta(g.randint(1, 3)))
        d_phs = _workday(d_pmh + dt.timedelta(g.randint(1, 4)))
        first = _workday(d_phs + dt.timedelta(g.randint(3, 10)))
        rec: JSON = {
            "nomor_perkara": self.number,
            "nomor_perkara_verzet": f"{no[0]}/PLW/{no[2]}/{no[3]}",
            "tanggal_pendaftaran": iso(d_reg),
            "tanggal_penetapan_majelis": None,
            "majelis_hakim": [],
            "tanggal_penetapan_panitera_pengganti": None,
            "panitera_pengganti": None,
            "tanggal_penetapan_jurusita": None,
            "jurusita": None,
            "tanggal_penetapan_sidang": None,
            "tanggal_sidang_pertama": None,
            "tanggal_penetapan_mediator": None,
            "nomor_penetapan_mediator": None,
            "mediator": [],
            "tanggal_mulai_mediasi": None,
            "tanggal_hasil_mediasi": None,
            "hasil_mediasi": None,
            "tanggal_putusan": None,
            "sumber_hukum": None,
            "status_putusan": None,
            "amar_putusan": None,
            "tanggal_pemberitahuan_putusan": None,
            "tanggal_pemberitahuan_penggugat": None,
            "tanggal_pemberitahuan_tergugat": None,
        }
        self.tabs["verzet"] = [rec]
        self.shown.append("verzet")
        if not has(d_pmh):
            return None
        rec["tanggal_penetapan_majelis"] = iso(d_pmh)
        rec["majelis_hakim"] = g.sample(V.JUDGES, 3)
        rec["tanggal_penetapan_panitera_pengganti"] = iso(d_pmh)
        rec["panitera_pengganti"] = g.choice(V.CLERKS)
        rec["tanggal_penetapan_jurusita"] = iso(d_pmh)
        rec["jurusita"] = g.choice(V.BAILIFFS) if g.random() < 0.7 else None
        if not has(d_phs):
            return None
        rec["tanggal_penetapan_sidang"] = iso(d_phs)
        rec["tanggal_sidang_pertama"] = iso(first)
        rows: list[JSON] = []
        day = first
        for agenda in ("Pemeriksaan Perlawanan", "Pembacaan Putusan Perlawanan"):
            if day > self.today:
                rows.append(hearing_row(day, agenda, V.ROOMS[0], None, None, upcoming=True,
                                        jenis="Sidang Perlawanan"))  # fmt: skip
                break
            rows.append(hearing_row(day, agenda, V.ROOMS[0], None, ATTENDANCE_CIVIL,
                                    jenis="Sidang Perlawanan"))  # fmt: skip
            day = _workday(day + dt.timedelta(g.randint(5, 10)))
        self.tabs["jadwal_sidang"] = list(rows)
        self.shown.append("jadwal_sidang")
        if len(rows) < 2 or rows[-1]["dihadiri_oleh"] is None:
            return None
        d_put = dt.date.fromisoformat(rows[-1]["tanggal"])
        granted = g.random() < 0.25
        self.event(d_put, "Perlawanan", "Putusan Perlawanan", "Putusan Perlawanan")
        rec["tanggal_putusan"] = iso(d_put)
        rec["sumber_hukum"] = "UU No. 5 Tahun 1986 jo. UU No. 51 Tahun 2009"
        rec["status_putusan"] = "Perlawanan Dikabulkan" if granted else "Perlawanan Ditolak"
        rec["amar_putusan"] = "\n".join(
            ["MENGADILI:",
             "Menyatakan perlawanan Pelawan benar;" if granted
             else "Menyatakan perlawanan Pelawan tidak benar;",
             "Membatalkan Penetapan Dismissal tersebut;" if granted
             else "Mempertahankan Penetapan Dismissal tersebut;"]
        )  # fmt: skip
        told = _workday(d_put + dt.timedelta(g.randint(1, 5)))
        if has(told):
            rec["tanggal_pemberitahuan_putusan"] = iso(told)
            rec["tanggal_pemberitahuan_penggugat"] = iso(told)
            rec["tanggal_pemberitahuan_tergugat"] = iso(told)
        if not granted:
            return None
        # the case goes on in the ordinary procedure; Jadwal Sidang gets its hearings after
        self.extra["perlawanan_rows"] = rows
        return d_put

    def side_notices(self, day: dt.date) -> list[JSON]:
        """The per-side notice rows of dismissal.php / penetapan_gugur.php (``pihakke`` kept
        for the renderer; none yet in a tenth of the cases: 'Belum diBeritahukan')."""
        g, has = self.grng, self.clock.happened
        notices = []
        for pihakke, p in enumerate(self.header_parties[:2], 1):
            for urutan, name in enumerate(p["nama"], 1):
                told = _workday(day + dt.timedelta(g.randint(1, 7)))
                notices.append(
                    {"status": f"{p['label']} {urutan}", "nama": name,
                     "tanggal": (iso(told) if has(told) and _chance(g, pihakke, urutan) < 0.9
                                 else None),
                     "pihakke": pihakke}
                )  # fmt: skip
        return [] if g.random() < 0.1 else notices

    def penetapan_gugur(self, d_first: dt.date) -> None:
        """penetapan_gugur.php (alur 8): the plaintiff stayed away from the first hearing;
        detil_perkara.php:158,188 list Penetapan Gugur and no Putusan."""
        g, has = self.grng, self.clock.happened
        d_gugur = _workday(d_first + dt.timedelta(g.randint(0, 2)))
        if not has(d_gugur):
            return
        notices = self.side_notices(d_gugur)
        self.extra["gugur_sides"] = [n.pop("pihakke") for n in notices]
        self.tabs["penetapan_gugur"] = [
            {
                "tanggal_penetapan": iso(d_gugur),
                "amar_penetapan": "Menyatakan gugatan Penggugat gugur;\nMembebankan biaya "
                "perkara kepada Penggugat.",
                "pemberitahuan_putusan": notices,
            }
        ]
        self.shown.append("penetapan_gugur")
        self.event(d_gugur, "Penetapan", "Penetapan Gugur", "Penetapan Gugur")

    def dismissal_gs(self, d_pp: dt.date) -> None:
        """Dismissal of a small claim (dismissal.php, alur 8): date, amar and the per-side
        notice tables; detil_perkara.php:96,158 then list no Jadwal Sidang and no Putusan."""
        g, has = self.grng, self.clock.happened
        d_dis = _workday(d_pp + dt.timedelta(g.randint(0, 3)))
        if not has(d_dis):
            return
        self.shown = [slug for slug in self.shown if slug != "jadwal_sidang"]
        notices = self.side_notices(d_dis)
        self.extra["dismissal_sides"] = [n.pop("pihakke") for n in notices]
        self.tabs["dismissal"] = [
            {
                "tanggal_penetapan": iso(d_dis),
                "amar": g.choice(
                    (("Menyatakan gugatan Penggugat bukan gugatan sederhana;\nMencoret perkara "
                     "dari register perkara;\nMemerintahkan Panitera mengembalikan sisa panjar "
                     "biaya perkara kepada Penggugat;"),
                     ("Menyatakan perkara ini tidak termasuk gugatan sederhana;\nMembebankan "
                     "biaya perkara kepada Penggugat;"))
                ),
                "pemberitahuan_putusan": notices,
            }
        ]  # fmt: skip
        self.shown.append("dismissal")
        self.event(d_dis, "Penetapan", "Penetapan Dismissal", "Penetapan Dismissal")

    def verzet(self, d_put: dt.date) -> bool:
        """Verzet tab (verzet.php, civil wording) on a verstek judgment; True when filed."""
        r = self.rng
        if r.random() >= 0.4:
            return False
        d_reg = _workday(self.clock.after(d_put, 7, 14))
        if not self.event(d_reg, "Verzet", "Pendaftaran Verzet", "Verzet"):
            return False
        no = self.number.split("/")
        d_pmh = _workday(self.clock.after(d_reg, 1, 3))
        d_phs = _workday(self.clock.after(d_pmh, 0, 2))
        first = _workday(self.clock.after(d_phs, 7, 14))
        mediator = r.choice(V.MEDIATORS_NON_HAKIM)
        d_med = _workday(self.clock.after(first, 0, 3))
        d_med_end = _workday(self.clock.after(d_med, 14, 30))
        rec: JSON = {
            "nomor_perkara": self.number,
            "nomor_perkara_verzet": f"{no[0]}/Pdt.Plw/{no[2]}/{no[3]}",
            "tanggal_pendaftaran": iso(d_reg),
            "tanggal_penetapan_majelis": None,
            "majelis_hakim": [],
            "tanggal_penetapan_panitera_pengganti": None,
            "panitera_pengganti": None,
            "tanggal_penetapan_jurusita": None,
            "jurusita": None,
            "tanggal_penetapan_sidang": None,
            "tanggal_sidang_pertama": None,
            "tanggal_penetapan_mediator": None,
            "nomor_penetapan_mediator": None,
            "mediator": [{"nama": mediator, "status": "Non-Hakim"}],
            "tanggal_mulai_mediasi": None,
            "tanggal_hasil_mediasi": None,
            "hasil_mediasi": None,
            "tanggal_putusan": None,
            "putusan_verstek": None,
            "sumber_hukum": None,
            "status_putusan": None,
            "amar_putusan": None,
            "tanggal_pemberitahuan_putusan": None,
            "tanggal_pemberitahuan_penggugat": None,
            "tanggal_pemberitahuan_tergugat": None,
        }
        self.tabs["verzet"] = [rec]
        self.shown.append("verzet")
        if not self.clock.happened(d_pmh):
            return True
        rec["tanggal_penetapan_majelis"] = iso(d_pmh)
        rec["majelis_hakim"] = list(self.judges)
        rec["tanggal_penetapan_panitera_pengganti"] = iso(d_pmh)
        rec["panitera_pengganti"] = self.clerk
        rec["tanggal_penetapan_jurusita"] = iso(d_pmh)
        rec["jurusita"] = r.choice(V.BAILIFFS)
        if not self.clock.happened(d_phs):
            return True
        rec["tanggal_penetapan_sidang"] = iso(d_phs)
        rec["tanggal_sidang_pertama"] = iso(first)
        rows = self.tabs.setdefault("jadwal_sidang", [])
        day = first
        for agenda in ("Pemeriksaan Perlawanan", "Mediasi", "Pembuktian", "Pembacaan Putusan"):
            if day > self.today:
                rows.append(
                    hearing_row(
                        day, agenda, V.ROOMS[0], None, None, upcoming=True, jenis="Sidang Verzet"
                    )
                )
                return True
            rows.append(
                hearing_row(day, agenda, V.ROOMS[0], None, ATTENDANCE_CIVIL, jenis="Sidang Verzet")
            )
            if agenda == "Mediasi":
                rec["tanggal_penetapan_mediator"] = iso(day)
                rec["nomor_penetapan_mediator"] = rec["nomor_perkara_verzet"]
                rec["tanggal_mulai_mediasi"] = iso(d_med) if self.clock.happened(d_med) else None
                if not self.clock.happened(d_med_end):
                    return True
                rec["tanggal_hasil_mediasi"] = iso(d_med_end)
                rec["hasil_mediasi"] = "Tidak Berhasil"
                day = _workday(self.clock.after(d_med_end, 3, 7))
            else:
                day = _workday(self.clock.after(day, 6, 12))
        d_vput = dt.date.fromisoformat(rows[-1]["tanggal"])
        self.event(d_vput, "Verzet", "Putusan Verzet", "Putusan")
        rec["tanggal_putusan"] = iso(d_vput)
        rec["putusan_verstek"] = "Ya"  # verzet.php assigns 'Y' instead of comparing
        rec["sumber_hukum"] = "Hukum Acara Perdata"
        upheld = r.random() < 0.7
        rec["status_putusan"] = "Verzet Ditolak" if upheld else "Verzet Dikabulkan"
        rec["amar_putusan"] = "\n".join(
            [
                "MENGADILI:",
                (
                    "Menyatakan Pelawan adalah Pelawan yang tidak benar;"
                    if upheld
                    else "Menyatakan Pelawan adalah Pelawan yang benar;"
                ),
                (
                    "Mempertahankan putusan verstek tersebut;"
                    if upheld
                    else "Membatalkan putusan verstek tersebut;"
                ),
            ]
        )
        told = _workday(self.clock.after(d_vput, 1, 7))
        if self.clock.happened(told):
            rec["tanggal_pemberitahuan_putusan"] = iso(told)
            rec["tanggal_pemberitahuan_penggugat"] = iso(told)
            rec["tanggal_pemberitahuan_tergugat"] = iso(told)
        return True

    def ikrar_talak(self, d_put: dt.date, notified: list[JSON]) -> None:
        """Ikrar Talak tab (PA cerai talak granted, no appeal; ikrar_talak.php)."""
        r = self.rng
        if any(n["tanggal"] is None for n in notified):
            return
        told = max(dt.date.fromisoformat(n["tanggal"]) for n in notified)
        bht = told + dt.timedelta(days=14)
        d_pmh = _workday(self.clock.after(bht, 1, 5))
        if not self.event(d_pmh, "Ikrar Talak", "Penetapan Majelis Ikrar Talak", None):
            return
        d_phs = _workday(self.clock.after(d_pmh, 0, 2))
        first = _workday(self.clock.after(d_phs, 5, 14))
        absent = r.random() < 0.12
        rec: JSON = {
            "tanggal_putusan": iso(d_put),
            "tanggal_bht": iso(bht),
            "tanggal_penetapan_majelis": iso(d_pmh),
            "majelis_hakim": list(self.judges),
            "tanggal_penetapan_panitera_pengganti": iso(d_pmh),
            "panitera_pengganti": self.clerk,
            "tanggal_penetapan_jurusita": iso(d_pmh),
            "jurusita": r.choice(V.BAILIFFS),
            "tanggal_penetapan_sidang": iso(d_phs) if self.clock.happened(d_phs) else None,
            "tanggal_sidang_pertama": iso(first) if self.clock.happened(d_phs) else None,
            "tanggal_ikrar": None,
            "status_penetapan": None,
            "amar_penetapan": None,
        }
        if self.clock.happened(first):
            if absent:
                rec["status_penetapan"] = "Pemohon Tidak Hadir"
            else:
                rec["tanggal_ikrar"] = iso(first)
                rec["status_penetapan"] = "Diikrarkan"
                rec["amar_penetapan"] = (
                    "MENETAPKAN:\n"
                    "Memberi izin kepada Pemohon untuk mengucapkan ikrar talak terhadap "
                    "Termohon di depan sidang Pengadilan Agama;\n"
                    "Membebankan biaya perkara kepada Pemohon."
                )
                self.event(first, "Ikrar Talak", "Sidang Ikrar Talak", "Ikrar Talak")
        self.tabs["ikrar_talak"] = [rec]
        self.shown.append("ikrar_talak")

    def mediasi(self, first: dt.date) -> dt.date | None:
        """Mediasi tab; returns the day the trial resumes, None while mediation is running."""
        r = self.rng
        if r.random() < 0.6:
            mediator = {
                "nama": r.choice([j for j in V.JUDGES if j not in self.judges]),
                "status": "Hakim",
            }
        else:
            mediator = {"nama": r.choice(V.MEDIATORS_NON_HAKIM), "status": "Non-Hakim"}
        start = _workday(self.clock.after(first, 3, 8))
        end = _workday(self.clock.after(start, 14, 30))
        done = self.clock.happened(end)
        started = self.clock.happened(start)
        result = r.choice(("Tidak Berhasil", "Tidak Berhasil", "Tidak Berhasil",
                           "Berhasil Sebagian", "Tidak dapat dilaksanakan"))  # fmt: skip
        self.tabs["mediasi"] = [
            {
                "jenis": "Mediasi",
                "tanggal_penetapan_mediator": iso(first),
                "nomor_penetapan_mediator": self.number,
                "mediator": [mediator],
                "tanggal_mulai": iso(start) if started else None,
                "tanggal_hasil": iso(end) if done else None,
                "hasil": result if done else None,
            }
        ]
        self.shown.append("mediasi")
        self.event(first, "Persidangan", "Sidang Pertama", "Sidang pertama")
        self.event(first, "Mediasi", "Penetapan Mediator", None)
        if started:
            self.mediasi_days = ((end if done else self.today) - start).days
        if not done:
            return None
        self.event(end, "Mediasi", "Laporan Hasil Mediasi", "Persidangan")
        return _workday(self.clock.after(end, 3, 10))


_BUILD_CODE = CourtData._build.__code__


def _chance(rng: random.Random, *row: Any) -> float:
    """``rng.random()`` for a draw a loop makes only for the rows whose event has happened
    (``has(told) and _chance(g, pihakke, urutan) < 0.9``). The plain stream draws exactly as
    ``rng.random()``; on a tape the draw is keyed by ``row`` instead of by how many draws the
    site made before, so a row not yet notified on one day does not shift the draw of a row
    that already was (rows are not notified in their loop order)."""
    if isinstance(rng, _TapeRandom):
        return rng.keyed(row)
    return rng.random()


class _Ledger:
    """Biaya Perkara: the running balance of a civil case's deposit."""

    def __init__(self, deposit: int, today: dt.date) -> None:
        self.deposit = deposit
        self.today = today
        self.rows: list[JSON] = []
        self.balance = 0
        self.appeal_rows: list[JSON] = []

    def add(self, day: dt.date | None, what: str, income: int | None, cost: int | None) -> None:
        if day is None or day > self.today:
            return
        self.balance += (income or 0) - (cost or 0)
        self.rows.append(
            {"tanggal": iso(day), "uraian": what, "pemasukan": income,
             "pengeluaran": cost, "sisa": self.balance, "keterangan": None}
        )  # fmt: skip

    def spent_estimate(self) -> int:
        return sum(r["pengeluaran"] or 0 for r in self.rows) + 20_000

    def refund(self, day: dt.date) -> None:
        if self.balance > 0:
            row_note = "Sisa panjar dikembalikan"
            self.add(day, "Pengembalian Sisa Panjar", None, self.balance)
            self.rows[-1]["keterangan"] = row_note

    def appeal(self, day: dt.date) -> None:
        if day > self.today:
            return
        self.appeal_rows = [
            {"tanggal": iso(day), "uraian": "Panjar Biaya Banding", "pemasukan": 3_000_000,
             "pengeluaran": None, "sisa": 3_000_000, "keterangan": None},
            {"tanggal": iso(day), "uraian": "Biaya Pengiriman Berkas Banding", "pemasukan": None,
             "pengeluaran": 150_000, "sisa": 2_850_000, "keterangan": None},
        ]  # fmt: skip

    def stages(self) -> list[JSON]:
        out = [_stage("BIAYA TINGKAT PERTAMA", self.rows)]
        if self.appeal_rows:
            out.append(_stage("BIAYA TINGKAT BANDING", self.appeal_rows))
        return out


def _stage(name: str, rows: list[JSON]) -> JSON:
    income = sum(r["pemasukan"] or 0 for r in rows)
    cost = sum(r["pengeluaran"] or 0 for r in rows)
    return {
        "tahap": name,
        "transaksi": [dict(r) for r in rows],
        "total": {"pemasukan": income, "pengeluaran": cost, "sisa": income - cost},
    }


_LONG_MONTHS = (
    "Januari", "Februari", "Maret", "April", "Mei", "Juni", "Juli", "Agustus", "September",
    "Oktober", "November", "Desember",
)  # fmt: skip


def _day_name(day: dt.date) -> str:
    from .formats import DAYS_ID

    return DAYS_ID[day.weekday()]


def _long_date(day: dt.date) -> str:
    return f"{day.day} {_LONG_MONTHS[day.month - 1]} {day.year}"


def _months(n: int) -> str:
    years, months = divmod(n, 12)
    parts = []
    if years:
        parts.append(f"{years} ({terbilang(years)}) Tahun")
    if months:
        parts.append(f"{months} ({terbilang(months)}) Bulan")
    return " ".join(parts)


def _months_short(n: int) -> str:
    """The view's ``parse_day_to_year`` span: ``1 Tahun 6 Bulan `` (each unit with its space,
    so the sentence reads ``(1 Tahun 6 Bulan )``; a clean reader keeps that space)."""
    years, months = divmod(n, 12)
    return (f"{years} Tahun " if years else "") + (f"{months} Bulan " if months else "")


def truth_digest(data: CourtData) -> str:
    """A short digest of the whole ground truth (tests: same seed -> same data)."""
    h = hashlib.sha256()
    for index in range(len(data)):
        h.update(
            json.dumps(data.case(index).document(data.court.court_id), sort_keys=True).encode()
        )
    return h.hexdigest()[:16]
