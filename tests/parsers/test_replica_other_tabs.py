"""The replica's renderers of the other tabs (reference/sipp_site/render_tabs.py) read back by
the parsers: every branch a renderer has, including those the seeded crawl rarely reaches
(PTUN wording, several rows, empty tabs)."""

from __future__ import annotations

from typing import Any

import pytest

from harvest.sipp import parse_tab
from harvest.sipp.warnings import collect_warnings
from reference.sipp_site import render_tabs as RT

MEDIATOR = [{"nama": "Dr. LINDA KUSUMA, S.H., M.H.", "status": "Non-Hakim"}]
VERZET: dict[str, Any] = {
    "nomor_perkara": "4/Pdt.G/2024/PN Rpk",
    "nomor_perkara_verzet": "4/Pdt.Plw/2024/PN Rpk",
    "tanggal_pendaftaran": "2024-07-08",
    "tanggal_penetapan_majelis": "2024-07-09",
    "majelis_hakim": ["ARIEF BUDIMAN, S.H.", "NOVITA SARI, S.H."],
    "tanggal_penetapan_panitera_pengganti": "2024-07-09",
    "panitera_pengganti": "RUDI HARTONO, S.H.",
    "tanggal_penetapan_jurusita": "2024-07-09",
    "jurusita": None,
    "tanggal_penetapan_sidang": "2024-07-10",
    "tanggal_sidang_pertama": "2024-07-24",
    "tanggal_penetapan_mediator": "2024-07-24",
    "nomor_penetapan_mediator": "4/Pdt.Plw/2024/PN Rpk",
    "mediator": MEDIATOR,
    "tanggal_mulai_mediasi": "2024-07-29",
    "tanggal_hasil_mediasi": None,
    "hasil_mediasi": None,
    "tanggal_putusan": "2024-09-16",
    "putusan_verstek": "Ya",
    "sumber_hukum": "Hukum Acara Perdata",
    "status_putusan": "Verzet Ditolak",
    "amar_putusan": "MENGADILI:\nMenolak perlawanan Pelawan;",
    "tanggal_pemberitahuan_putusan": "2024-09-18",
    "tanggal_pemberitahuan_penggugat": "2024-09-18",
    "tanggal_pemberitahuan_tergugat": None,
}
IKRAR = {
    "tanggal_putusan": "2024-04-17",
    "tanggal_bht": "2024-05-15",
    "tanggal_penetapan_majelis": "2024-05-20",
    "majelis_hakim": ["Drs. H. ABDUL MANAN, M.H."],
    "tanggal_penetapan_panitera_pengganti": "2024-05-20",
    "panitera_pengganti": "MASRURAH, S.Ag.",
    "tanggal_penetapan_jurusita": "2024-05-20",
    "jurusita": "SUMARNI",
    "tanggal_penetapan_sidang": "2024-05-21",
    "tanggal_sidang_pertama": "2024-06-04",
    "tanggal_ikrar": None,
    "status_penetapan": "Pemohon Tidak Hadir",
    "amar_penetapan": None,
}
INTERVENSI = {
    "urutan": 1,
    "nama_pemohon": "PT. SUMBER REJEKI",
    "jenis_intervensi": "Voeging",
    "tergabung_ke_pihak": "Tergugat",
    "tanggal_intervensi": "2024-05-20",
    "petitum": "Menerima permohonan Pemohon Intervensi;\nMenetapkan Pemohon sebagai pihak.",
}
JADWAL = [
    {"tanggal": "2024-08-19", "jam": "09:00 s/d Selesai", "agenda": "Pemeriksaan Perlawanan",
     "jenis_sidang": "Sidang Verzet", "ruangan": "Ruang Sidang Cakra",
     "dihadiri_oleh": "Para Pihak", "alasan_ditunda": "Terlawan tidak hadir"},
    {"tanggal": "2024-08-26", "jam": "09:00 s/d Selesai", "agenda": "Pembuktian",
     "jenis_sidang": None, "ruangan": "Belum Ditentukan", "dihadiri_oleh": None,
     "alasan_ditunda": None},
]  # fmt: skip
PENETAPAN_PTUN = {
    "hakim": [
        {"tanggal_penetapan": "2025-01-13", "nama": "BAMBANG HERU, S.H.", "posisi": "Hakim Ketua",
         "jenis_acara": "Acara Cepat", "aktif": "Ya"},
    ],
    "panitera_pengganti": [],
    "jurusita_pengganti": [{"tanggal_penetapan": "2025-01-13", "nama": "AGUS", "aktif": "Tidak"}],
    "sidang_pertama": [],
}  # fmt: skip
MEDIASI = [
    {"jenis": "Mediasi", "tanggal_penetapan_mediator": "2024-03-20",
     "nomor_penetapan_mediator": "12/Pdt.G/2024/PN Rpk", "mediator": MEDIATOR,
     "tanggal_mulai": "2024-03-25", "tanggal_hasil": "2024-04-22", "hasil": "Tidak Berhasil"},
    {"jenis": "Perdamaian Pada Tahap Pemeriksaan Perkara", "tanggal_penetapan_mediator": None,
     "nomor_penetapan_mediator": None, "mediator": [], "tanggal_mulai": None,
     "tanggal_hasil": None, "hasil": None},
]  # fmt: skip

#: a first-instance mediation as the verzet join prints it (the verzet record's mediation keys)
FIRST_MEDIASI: dict[str, Any] = {
    "tanggal_penetapan_mediator": "2024-03-18",
    "nomor_penetapan_mediator": "4/Pdt.G/2024/PN Rpk",
    "mediator": [{"nama": "NOVITA SARI, S.H.", "status": "Hakim"}],
    "tanggal_mulai_mediasi": "2024-03-25",
    "tanggal_hasil_mediasi": "2024-04-18",
    "hasil_mediasi": "Tidak dapat dilaksanakan",
}
DISMISSAL_PTUN: list[dict[str, Any]] = [
    {"panggilan": [{"tanggal": "2025-02-10", "status_kehadiran": "Hadir"}],
     "tanggal_penetapan": "2025-03-03", "hasil": "Tidak Lolos",
     "amar": "Menyatakan gugatan Penggugat tidak diterima;",
     "tanggal_pemberitahuan_penggugat": "2025-03-05", "tanggal_pemberitahuan_tergugat": None},
]  # fmt: skip
DISMISSAL_GS: list[dict[str, Any]] = [
    {"tanggal_penetapan": "2024-11-04", "amar": "Menyatakan gugatan tidak dapat diterima;",
     "pemberitahuan_putusan": []},
]  # fmt: skip

CASES: list[tuple[str, str, Any]] = [
    ("verzet", RT.verzet([VERZET, {**VERZET, "nomor_perkara": "9/Pdt.G/2024/PN Rpk"}]),
     [VERZET, {**VERZET, "nomor_perkara": "9/Pdt.G/2024/PN Rpk"}]),
    ("verzet", RT.verzet([]), []),
    # verzet_m.php's join: the same record once per mediation row -> stored once
    ("verzet", RT.verzet([{**VERZET, **FIRST_MEDIASI}, VERZET]),
     [{**VERZET, **FIRST_MEDIASI, "mediasi_lain": [{k: VERZET[k] for k in FIRST_MEDIASI}]}]),
    ("dismissal", RT.dismissal(DISMISSAL_PTUN, True, [], views="2021"),
     [{k: v for k, v in DISMISSAL_PTUN[0].items() if k != "amar"}]),
    ("dismissal", RT.dismissal(DISMISSAL_GS, False, [1], views="2021"), DISMISSAL_GS),
    ("ikrar_talak", RT.ikrar_talak([IKRAR]), [IKRAR]),
    ("ikrar_talak", RT.ikrar_talak([]), []),
    ("intervensi", RT.intervensi([INTERVENSI, {**INTERVENSI, "urutan": 2}]),
     [INTERVENSI, {**INTERVENSI, "urutan": 2}]),
    ("intervensi", RT.intervensi([INTERVENSI], ptun=True),
     [{k: v for k, v in INTERVENSI.items() if k != "jenis_intervensi"}]),
    ("intervensi", RT.intervensi([]), []),
    ("rekonvensi", RT.rekonvensi([{"tanggal_pendaftaran": "2024-04-08",
                                   "para_pihak": ["A sebagai Penggugat Rekonvensi", "B"],
                                   "petitum": "Mengabulkan;\nMenghukum."}]),
     [{"tanggal_pendaftaran": "2024-04-08", "para_pihak": ["A sebagai Penggugat Rekonvensi", "B"],
       "petitum": "Mengabulkan;\nMenghukum."}]),
    ("jadwal_sidang", RT.jadwal(JADWAL), JADWAL),
    ("jadwal_sidang", RT.jadwal([]), []),
    ("penetapan", RT.penetapan(PENETAPAN_PTUN, ptun=True), PENETAPAN_PTUN),
    ("mediasi", RT.mediasi(MEDIASI), MEDIASI),
    ("mediasi", RT.mediasi([]), []),
    ("diversi", RT.diversi([]), []),
    ("penuntutan", RT.penuntutan([]), []),
    ("biaya_perkara", RT.biaya([]), []),
    ("saksi", RT.saksi([]), []),
    ("riwayat_perkara", RT.riwayat([]), []),
]  # fmt: skip


@pytest.mark.parametrize(
    ("slug", "html", "want"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_rendered_tab_reads_back(slug: str, html: str, want: Any):
    with collect_warnings() as warnings:
        got = parse_tab(slug, html + '<script type="text/javascript">closeLoading();</script>')
    assert got == want
    assert warnings == []
