"""The generator: determinism, case mix, live registration, tokens, ground-truth export."""

from __future__ import annotations

import datetime as dt
import json
import re
import socket
import subprocess
import sys
from collections import Counter

import pytest

from harvest.base.identity import dedupe_key
from reference.sipp_site.court import LABEL_ERROR, make_court
from reference.sipp_site.faults import KINDS, FaultConfig, FaultConfigError
from reference.sipp_site.formats import date_en, date_id, decimal_money, rupiah
from reference.sipp_site.model import CourtData, ModelError, truth_digest
from reference.sipp_site.tokens import TokenCodec
from tests.support.paths import REPO

#: the 15 sub pages the bankruptcy follow-up menu links on a stock install (parts of their own)
PAILIT_SUB_SLUGS = frozenset(
    "pailit-" + r
    for r in (
        "sub_pemeriksa", "sub_pengawas", "sub_kurator", "sub_publisitas", "sub_rapat",
        "sub_cabutpernyataan", "sub_cocokverifikasi", "sub_gugatanlain", "sub_insolven",
        "sub_pemberesan", "sub_biayapenyelesaian", "sub_pengakhiran", "sub_pengumuman",
        "sub_laporankurator", "sub_rehabilitasi",
    )
)  # fmt: skip


def _sub_pages_of(listed: set[str]) -> frozenset[str]:
    """The sub page parts a case's truth holds besides its listed tabs."""
    return PAILIT_SUB_SLUGS if "setelah_putusan_pernyataan_pailit" in listed else frozenset()


def test_same_seed_same_data_other_seed_other_data():
    a = truth_digest(CourtData(make_court("pn"), seed=5, cases=60))
    b = truth_digest(CourtData(make_court("pn"), seed=5, cases=60))
    c = truth_digest(CourtData(make_court("pn"), seed=6, cases=60))
    assert a == b
    assert a != c


def test_registering_cases_never_changes_earlier_ones():
    data = CourtData(make_court("pn"), seed=2, cases=40)
    before = [data.case(i).document("pn-replika") for i in range(40)]
    new = data.register()
    assert new == 40
    assert data.case(new).registered == dt.date(2024, 6, 19)
    assert [data.case(i).document("pn-replika") for i in range(40)] == before
    # the same as starting with the registrations already made
    again = CourtData(make_court("pn"), seed=2, cases=40)
    again.register()
    assert again.case(40).document("x") == data.case(40).document("x")


def test_case_mix_covers_every_tab_and_flow():
    data = CourtData(make_court("pn"), seed=1, cases=500)
    slugs: Counter[str] = Counter()
    flows: Counter[int] = Counter()
    for i in range(len(data)):
        case = data.case(i)
        flows[case.alur.id] += 1
        for tab in case.tab_list:
            slugs[tab["slug"]] += 1
            assert tab["available"] == (tab["slug"] != "we_kppu")
        assert case.tab_list[-1]["slug"] == "riwayat_perkara"
        listed = {t["slug"] for t in case.tab_list if t["available"]}
        assert set(case.tabs) == listed | _sub_pages_of(listed)
    assert set(flows) == {1, 2, 3, 8, 111, 114, 118, 119}
    # kepailitan (alur 3, weight 0) only by conversion of about 5% of alur 1 registrations
    assert 0 < flows[3] < flows[1] / 10
    for slug in ("penetapan", "jadwal_sidang", "saksi", "mediasi", "penuntutan", "putusan",
                 "barang_bukti", "biaya_perkara", "banding", "kasasi", "riwayat_perkara",
                 "diversi", "dismissal"):  # fmt: skip
        assert slugs[slug] > 0, slug


def test_case_numbers_are_unique_and_follow_the_pattern():
    data = CourtData(make_court("pn"), seed=1, cases=2000)
    numbers = [data.case(i).nomor_perkara for i in range(0, 2000, 7)]
    assert len(set(numbers)) == len(numbers)
    assert all(re.fullmatch(r"\d+/[^/]+/\d{4}/PN Rpk", n) for n in numbers)
    raws = [data.case(i).nomor_perkara_raw for i in range(2000)]
    assert any("  " in r for r in raws), "some raw numbers carry a double space"


def test_pa_variant_hides_names_and_labels():
    data = CourtData(make_court("pa"), seed=1, cases=80)
    case = next(data.case(i) for i in range(80) if data.case(i).alur.id == 15)
    assert case.nomor_perkara.endswith("/PA.Rpk")
    assert case.case_data["header"]["pihak_1"] == {
        "label": LABEL_ERROR,
        "nama": ["Disamarkan"],
    } or (case.case_data["header"]["pihak_1"]["nama"] == ["Disamarkan", "Disamarkan"])
    assert case.case_data["court"] == "pa-replika"


def test_list_order_is_newest_registration_first():
    data = CourtData(make_court("pn"), seed=1, cases=100)
    order = data.indices_newest_first()
    days = [data.case(i).registered for i in order]
    assert days == sorted(days, reverse=True)


def test_bad_case_count_is_refused():
    with pytest.raises(ModelError, match="--cases 0"):
        CourtData(make_court("pn"), seed=1, cases=0)


def test_tokens_change_every_time_and_decrypt_across_instances():
    a, b = TokenCodec(9), TokenCodec(9)
    t1, t2 = a.encrypt("1234"), a.encrypt("1234")
    assert t1 != t2
    assert re.fullmatch(r"[A-Za-z0-9]+={0,2}", t1)
    assert len(t1) == 128  # as long as a real CodeIgniter token
    assert b.decrypt(t1) == "1234"
    assert TokenCodec(10).decrypt(t1) is None
    assert a.decrypt("bm90IGEgdG9rZW4=") is None


def test_formats_match_the_site():
    day = dt.date(2024, 5, 29)
    assert date_id(day) == "Rabu, 29 Mei 2024"
    assert date_id(dt.date(2024, 6, 3)) == "Senin, 03 Jun. 2024"
    assert date_id(None) == " - "
    assert date_en(day) == "29 May 2024"
    assert rupiah(1234000) == "Rp. 1.234.000"
    assert decimal_money(1234567) == "1.234.567,00"


def test_fault_mix_splits_the_rate_over_every_kind():
    cfg = FaultConfig.mixed(0.2, {"hang": 0.0})
    assert set(cfg.rates) == set(KINDS) - {"hang"}
    assert cfg.rates["500"] == pytest.approx(0.02)
    with pytest.raises(FaultConfigError, match="sum"):
        FaultConfig.mixed(0.5, {"500": 0.9})


def test_truth_export_is_sorted_complete_and_equal_with_or_without_faults(tmp_path):
    def truth(*extra: str) -> list[str]:
        out = tmp_path / "t.jsonl"
        subprocess.run(
            [sys.executable, "-m", "reference.sipp_site", "--cases", "50", "--seed", "4",
             "--truth", str(out), *extra],
            check=True, capture_output=True, cwd=REPO,
        )  # fmt: skip
        return out.read_text(encoding="utf-8").splitlines()

    plain = truth()
    assert truth("--faults", "0.5", "--challenge") == plain
    docs = [json.loads(line) for line in plain]
    assert len(docs) == 50
    keys = [d["dedupe_key"] for d in docs]
    assert keys == sorted(keys)
    data = CourtData(make_court("pn"), seed=4, cases=50)
    want = {dedupe_key("pn-replika", data.case(i).nomor_perkara) for i in range(50)}
    assert set(keys) == want
    for doc in docs:
        assert set(doc) == {
            "dedupe_key",
            "source_type",
            "source_id",
            "schema_version",
            "complete",
            "case",
            "tabs",
        }
        assert doc["schema_version"] == 2
        assert doc["complete"] is True
        assert doc["source_type"] == "sipp.pn-replika"
        assert doc["case"]["nomor_perkara"] == doc["source_id"]
        listed = {t["slug"] for t in doc["case"]["tabs"] if t["available"]}
        assert set(doc["tabs"]) == listed | _sub_pages_of(listed)
        assert doc["tabs"]["riwayat_perkara"][0]["proses"] == "Pendaftaran Perkara"


def test_a_busy_port_is_refused_with_advice():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = subprocess.run(
            [sys.executable, "-m", "reference.sipp_site", "--port", str(port), "--cases", "10"],
            capture_output=True, text=True, timeout=60, check=False, cwd=REPO,
        )  # fmt: skip
    assert r.returncode == 1
    assert "address already in use" in r.stderr
    assert "--port" in r.stderr


def test_verdicts_and_appeals_in_realistic_proportions():
    """putusan_akhir.php / detil_banding.php shapes: most decided criminal cases carry the
    per-party notice tables; a minority is appealed, fewer go to kasasi, a few to PK."""
    data = CourtData(make_court("pn"), seed=1, cases=3000)
    criminal = with_notices = 0
    levels: Counter[str] = Counter()
    withdrawn = ended_91 = peace = 0
    for i in range(len(data)):
        case = data.case(i)
        put = case.tabs.get("putusan")
        if put is None:
            continue
        if case.alur.id in (111, 118) and put["tanggal_label"] == "Tanggal Penetapan":
            # status_putusan_id 91 (putusan_akhir.php:50-58, 90, 352): no Status Putusan and
            # no Menerima Putusan, the Kirim Salinan Penetapan tables still printed
            ended_91 += 1
            assert put["amar_label"] == "Amar Penetapan"
            assert put["amar_putusan"].startswith("MENETAPKAN:\n")
            assert "status_putusan_terdakwa" not in put
            assert "menerima_putusan" not in put
            assert len(put["kirim_salinan_putusan"]) == len(put["pemberitahuan_putusan"])
            assert not {"banding", "kasasi", "pk"} & case.tabs.keys()
        elif case.alur.id in (111, 118):
            criminal += 1
            with_notices += bool(put["pemberitahuan_putusan"])
            assert len(put["menerima_putusan"]) == len(put["pemberitahuan_putusan"])
            assert len(put["kirim_salinan_putusan"]) == len(put["pemberitahuan_putusan"])
            assert "status_putusan" not in put
        elif case.alur.id < 100:
            assert "menerima_putusan" not in put
            assert "kirim_salinan_putusan" not in put
            assert ("nilai_ganti_kerugian" in put) == (case.alur.id != 2)
        for level in ("banding", "kasasi", "pk"):
            if level in case.tabs:
                levels[level] += 1
                appeal = case.tabs[level]
                assert case.alur.kind != "sederhana"  # its remedy is Keberatan
                assert ("pemberitahuan_inzage" in appeal) == (level != "pk")
                assert ("mediasi" in appeal) == (case.alur.id in (1, 8, 15))
                withdrawn += "Dicabut" in (appeal["pemohon"][0]["keterangan"] or "")
                if appeal.get("mediasi", {}).get("mediator"):
                    peace += 1
                    assert "Dicabut" in appeal["pemohon"][0]["keterangan"]
                    assert appeal["mediasi"]["tanggal_kesepakatan"] is not None
    assert with_notices / criminal > 0.85
    assert 0.01 < ended_91 / (criminal + ended_91) < 0.08
    assert 0 < peace < withdrawn
    assert levels["banding"] > levels["kasasi"] > levels["pk"] > 0
    assert 0.05 < levels["banding"] / len(data) < 0.15
    assert withdrawn > 0


def test_rarer_branches_in_realistic_proportions():
    """PTUN dismissal / Perlawanan, small-claim dismissal and penetapan gugur, 119/124
    verdicts and kepailitan: each branch is generated, in its share, with its page shape."""
    ptun = CourtData(make_court("ptun"), seed=1, cases=500)
    dismissed = perlawanan = tidak_lolos = 0
    for case in ptun.iter_cases():
        slugs = [t["slug"] for t in case.tab_list]
        labels = {t["slug"]: t["label"] for t in case.tab_list}
        assert "putusan_verstek" not in case.tabs.get("putusan", {}) or (
            case.tabs["putusan"]["putusan_verstek"] == "Tidak"
        )
        if "dismissal" not in case.tabs:
            assert "verzet" not in case.tabs
            continue
        dismissed += 1
        assert slugs[0] == "dismissal"  # detil_perkara.php:60-64
        (rec,) = case.tabs["dismissal"]
        if rec["hasil"] == "Tidak Lolos":
            tidak_lolos += 1
            assert "tanggal_pemberitahuan_penggugat" in rec
        if "verzet" in case.tabs:
            perlawanan += 1
            assert slugs[1] == "verzet"  # detil_perkara.php:66-70
            assert labels["verzet"] == "Perlawanan"
            (plw,) = case.tabs["verzet"]
            assert "/PLW/" in plw["nomor_perkara_verzet"]
            assert "putusan_verstek" not in plw
            assert plw["mediator"] == []
    assert 0.2 < dismissed / len(ptun) < 0.4
    assert 0 < perlawanan <= tidak_lolos < dismissed / 3

    pn = CourtData(make_court("pn"), seed=1, cases=2000)
    counts: Counter[str] = Counter()
    for case in pn.iter_cases():
        put = case.tabs.get("putusan")
        if case.alur.id == 8 and "dismissal" in case.tabs:
            counts["dismissal"] += 1
            assert "jadwal_sidang" not in {t["slug"] for t in case.tab_list}
            assert put is None
        if case.alur.id == 8 and "penetapan_gugur" in case.tabs:
            counts["gugur"] += 1
            assert put is None
        if case.case_data["data_umum"].get("klasifikasi_perkara") == "Perlindungan Anak":
            # jenis perkara 282/13 in the views: penetapan / saksi names, side-1 notices
            counts["disamarkan"] += 1
            pen = case.tabs.get("penetapan", {"hakim": [{"nama": "Data disamarkan"}]})
            assert {h["nama"] for h in pen["hakim"]} == {"Data disamarkan"}
            assert set(case.tabs.get("saksi", ["Data disamarkan"])) == {"Data disamarkan"}
            if put and put["pemberitahuan_putusan"]:
                assert put["pemberitahuan_putusan"][0]["nama"] == "Data disamarkan"
                assert put["pemberitahuan_putusan"][-1]["nama"] != "Data disamarkan"
        if "putusan_sela" in case.tabs:
            counts[f"sela {case.alur.id}"] += 1
            sela = case.tabs["putusan_sela"]
            label = case.alur.pihak_1
            assert [n["kepada"] for n in sela["pemberitahuan"]] == [label, label, f"Pihak {label}"]
            slugs = [t["slug"] for t in case.tab_list]
            if put:
                assert slugs.index("putusan_sela") == slugs.index("putusan") - 1
        if case.alur.id == 119 and put:
            counts["119"] += 1
            assert put["status_putusan"]
            assert "menerima_putusan" not in put
            assert "putusan_verstek" not in put
        if case.alur.id == 3:
            counts["pailit"] += 1
            assert case.nomor_perkara.split("/")[1] == "Pdt.Sus-Pailit"
            assert "banding" not in case.tabs
            if put and put["status_putusan"] == "Dikabulkan":
                counts["pailit_granted"] += 1
                assert put["kurator"]
                assert put["hakim_pengawas"]
            elif put:
                assert put["kurator"] is None
    assert counts["dismissal"] > 0
    assert counts["gugur"] > 0
    assert counts["119"] > 0
    assert counts["pailit_granted"] > 0
    assert counts["pailit"] < pn.count(1) / 10
    assert 0.05 < counts["disamarkan"] / pn.count(111) < 0.2
    assert 0 < counts["sela 1"] < counts["sela 111"] < pn.count(111) / 10

    mil = CourtData(make_court("militer"), seed=1, cases=500)
    decided_124 = [
        c.tabs["putusan"] for c in mil.iter_cases() if c.alur.id == 124 and "putusan" in c.tabs
    ]
    assert decided_124
    for put in decided_124:
        assert put["tanggal_label"] == "Tanggal Penetapan"
        assert put["amar_label"] == "Petikan Penetapan"
        assert "status_putusan" not in put


def _documents(variant: str, cases: int = 200, **switches) -> dict[str, dict]:
    data = CourtData(make_court(variant), seed=1, cases=cases, **switches)
    return {c.nomor_perkara: c.document("x") for c in data.iter_cases()}


def test_views_2021_change_only_the_ptun_dismissal_truth():
    """--views 2021 (reference/sipp_site/views_2021.py): the PTUN dismissal loses its amar (the
    2021 view prints none); every other truth value is the 2025 court's."""
    for variant in ("pn", "ptun"):
        new, old = _documents(variant), _documents(variant, views="2021")
        assert new.keys() == old.keys()
        changed = 0
        for number, doc in new.items():
            if variant == "ptun" and doc["tabs"].get("dismissal"):
                want = [
                    {k: v for k, v in r.items() if k != "amar"} for r in doc["tabs"]["dismissal"]
                ]
                assert old[number]["tabs"]["dismissal"] == want
                old[number]["tabs"]["dismissal"] = doc["tabs"]["dismissal"]
                changed += 1
            assert old[number] == doc, number
        assert changed == (64 if variant == "ptun" else 0)  # seed 1: 64 of 200 PTUN cases
    with pytest.raises(ModelError, match="--views 2019 is unknown"):
        CourtData(make_court("pn"), seed=1, cases=10, views="2019")


def test_broken_pages_join_every_verzet_to_the_main_case():
    """--broken-pages: verzet_m.php's join gives the verzet record the main case's registration
    day, and the case's first-instance mediations before the verzet's own (mediasi_lain)."""
    plain, joined = _documents("pn", 500), _documents("pn", 500, broken_pages=True)
    verzet = [n for n, doc in plain.items() if doc["tabs"].get("verzet")]
    assert len(verzet) == 9  # seed 1, 500 cases; 4 of them with a first-instance mediation
    assert sum(1 for n in verzet if plain[n]["tabs"].get("mediasi")) == 4
    for number in verzet:
        (before,) = plain[number]["tabs"]["verzet"]
        (after,) = joined[number]["tabs"]["verzet"]
        du = plain[number]["case"]["data_umum"]
        assert after["tanggal_pendaftaran"] == du["tanggal_pendaftaran"]
        assert before["tanggal_pendaftaran"] > du["tanggal_pendaftaran"]
        mediasi = plain[number]["tabs"].get("mediasi", [])
        if mediasi:
            assert after["tanggal_penetapan_mediator"] == mediasi[0]["tanggal_penetapan_mediator"]
            assert after["mediasi_lain"][-1]["mediator"] == before["mediator"]
            assert len(after["mediasi_lain"]) == len(mediasi)
        else:
            assert "mediasi_lain" not in after
            assert after["mediator"] == before["mediator"]
