"""--redact-names and --changed-since parsing (docs/privacy.md, docs/export.md)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from harvest.flat.changed import ChangedSince, ChangedSinceError, parse_time
from harvest.schema.privacy import REDACTED, redact_names


def test_party_names_are_redacted_and_officials_and_anonymised_names_kept() -> None:
    case = {
        "header": {
            "pihak_1": {"label": "Penuntut Umum", "nama": ["RINA, S.H."]},
            "pihak_2": {"label": "Anak", "nama": ["Disamarkan 1"]},
        },
        "data_umum": {
            "kuasa": [{"label": "Penasihat Hukum", "rows": [{"nama": "A", "nama_pihak": "B"}]}],
            "klasifikasi_perkara": "Pencurian",
        },
    }
    tabs = {
        "putusan": {
            "pemberitahuan_putusan": [{"status": "Terdakwa", "nama": "C", "tanggal": "2024-01-02"}]
        },
        "banding": {"majelis_hakim": [{"jabatan": "Hakim Ketua", "nama": "HAKIM"}]},
        "saksi": ["SAKSI SATU"],
    }
    redacted = redact_names({"case": case, "tabs": tabs})
    assert redacted["case"]["header"] == {
        "pihak_1": {"label": "Penuntut Umum", "nama": [REDACTED]},
        "pihak_2": {"label": "Anak", "nama": ["Disamarkan 1"]},
    }
    assert redacted["case"]["data_umum"] == {
        "kuasa": [
            {"label": "Penasihat Hukum", "rows": [{"nama": REDACTED, "nama_pihak": REDACTED}]}
        ],
        "klasifikasi_perkara": "Pencurian",
    }
    assert redacted["tabs"]["putusan"]["pemberitahuan_putusan"] == [
        {"status": "Terdakwa", "nama": REDACTED, "tanggal": "2024-01-02"}
    ]
    assert redacted["tabs"]["banding"] == tabs["banding"]
    assert redacted["tabs"]["saksi"] == [REDACTED]
    assert case["header"]["pihak_1"]["nama"] == ["RINA, S.H."]  # a copy: the input is kept


def test_changed_since_reads_times_and_generations() -> None:
    assert parse_time("2026-11-30") == "2026-11-30T00:00:00.000Z"
    assert parse_time("2026-11-30T08:02:03+07:00") == "2026-11-30T01:02:03.000Z"
    with pytest.raises(ChangedSinceError, match="not a time"):
        parse_time("yesterday")
    gens = [
        SimpleNamespace(court="pn-a", number=1, started_at="2026-11-01T00:00:00.000Z"),
        SimpleNamespace(court="pn-b", number=1, started_at="2026-11-05T00:00:00.000Z"),
        SimpleNamespace(court="pn-b", number=0, started_at="2026-10-01T00:00:00.000Z"),
    ]
    since = ChangedSince.of_generation(1, gens)
    assert since.earliest == "2026-11-01T00:00:00.000Z"
    day = 86400_000
    base = 1_793_491_200_000  # 2026-11-01T00:00:00Z in ms
    docs = [
        {"source_type": "sipp.pn-a", "version": base + day},  # after pn-a's start
        {"source_type": "sipp.pn-b", "version": base + day},  # before pn-b's start
        {"source_type": "sipp.pn-b", "version": base + 5 * day},
        {"source_type": "sipp.pn-c", "version": base + 9 * day},  # no generation 1
    ]
    assert list(since.select(docs, keep_version=True)) == [docs[0], docs[2]]
    with pytest.raises(ChangedSinceError, match=r"no court has generation 7 \(known: 0, 1\)"):
        ChangedSince.of_generation(7, gens)
