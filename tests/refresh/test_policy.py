"""The due policy (harvest/refresh/policy.py) and the walk planner, with concrete dates."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from extensions.store import Generation, RowState
from harvest.base.canonical import canonical_json
from harvest.base.settings_error import SettingsError
from harvest.refresh.planner import (
    RefreshConfig,
    RefreshPlanner,
    calendar_days,
    list_row_of,
    policy_inputs,
)
from harvest.refresh.policy import (
    CaseFacts,
    case_facts,
    due,
    is_closed,
    last_change_day,
    pending_steps,
)

D = dt.date.fromisoformat


def facts(
    last_fetch: str | None,
    last_change: str | None = None,
    hearings: tuple[str, ...] = (),
    *,
    closed: bool = False,
) -> CaseFacts:
    return CaseFacts(
        last_fetch=D(last_fetch) if last_fetch else None,
        last_change=D(last_change) if last_change else None,
        hearings=tuple(D(h) for h in hearings),
        closed=closed,
    )


def is_due(f: CaseFacts, today: str, low: int = 1, high: int = 30) -> bool:
    return due(f, D(today), min_days=low, max_days=high).due


def test_a_hearing_held_since_the_last_fetch_makes_an_open_case_due() -> None:
    f = facts("2024-06-10", "2024-06-09", ("2024-06-12", "2024-07-03"))
    # quiet 1 day at the fetch: back-off 1 day would make it due on the 11th anyway; make the
    # back-off long to see the hearing rule on its own
    g = facts("2024-06-10", "2024-05-01", ("2024-06-12", "2024-07-03"))
    assert is_due(f, "2024-06-11")  # back-off of 1 day over
    assert not is_due(g, "2024-06-12")  # the hearing is today: not held yet
    verdict = due(g, D("2024-06-13"), min_days=1, max_days=30)
    assert verdict.due
    assert verdict.reason == "hearing 2024-06-12 held since the last fetch"
    assert is_due(g, "2024-07-03")  # still due until it is fetched again
    # fetched again on 06-13 (its data unchanged: quiet since 05-01, back-off 30 days, 07-13):
    # the 06-12 hearing is before the fetch; the 07-03 one makes it due once held
    refetched = facts("2024-06-13", "2024-05-01", ("2024-06-12", "2024-07-03"))
    assert not is_due(refetched, "2024-07-03")
    assert is_due(refetched, "2024-07-04")
    # a hearing on the day of the fetch was not over when fetched: due the day after
    h = facts("2024-06-10", "2024-05-01", ("2024-06-10",))
    assert not is_due(h, "2024-06-10")
    assert is_due(h, "2024-06-11")


def test_back_off_is_the_quiet_days_at_the_fetch_clamped_to_min_and_max() -> None:
    # changed 5 days before its fetch: looked at again 5 days after it
    f = facts("2024-06-10", "2024-06-05")
    assert due(f, D("2024-06-14"), min_days=1, max_days=30).next_day == D("2024-06-15")
    assert not is_due(f, "2024-06-14")
    assert is_due(f, "2024-06-15")
    # changed the day of its fetch: the minimum, 1 day
    assert not is_due(facts("2024-06-10", "2024-06-10"), "2024-06-10")
    assert is_due(facts("2024-06-10", "2024-06-10"), "2024-06-11")
    # quiet for a year: the maximum, 30 days; with MAX_DAYS 7: 7 days
    quiet = facts("2024-06-10", "2023-06-10")
    assert not is_due(quiet, "2024-07-09")
    assert is_due(quiet, "2024-07-10")
    assert is_due(quiet, "2024-06-17", high=7)
    assert not is_due(quiet, "2024-06-16", high=7)
    # MIN_DAYS 3: a case that just changed waits 3 days
    assert not is_due(facts("2024-06-10", "2024-06-10"), "2024-06-12", low=3)
    assert is_due(facts("2024-06-10", "2024-06-10"), "2024-06-13", low=3)
    # no date at all in its data: the maximum
    assert not is_due(facts("2024-06-10", None), "2024-07-09")
    assert is_due(facts("2024-06-10", None), "2024-07-10")


def test_closed_cases_are_never_due_and_never_fetched_ones_always() -> None:
    closed = facts("2023-01-01", "2023-01-01", ("2023-02-01",), closed=True)
    assert not is_due(closed, "2024-06-19")
    assert due(facts(None), D("2024-06-19"), min_days=1, max_days=30).reason == "never fetched"
    with pytest.raises(ValueError, match="min_days <= max_days"):
        due(facts("2024-06-10"), D("2024-06-19"), min_days=5, max_days=2)


VERDICT = {"tanggal_putusan": "2024-03-14", "tanggal_minutasi": "2024-03-25"}


def test_closed_means_verdict_and_minutasi_done_and_no_appeal_pending() -> None:
    assert is_closed({"putusan": VERDICT})
    assert not is_closed({})  # no verdict yet
    assert not is_closed({"putusan": {**VERDICT, "tanggal_minutasi": None}})
    assert not is_closed({"putusan": {**VERDICT, "tanggal_putusan": None}})
    appeal = {"pemohon": [{"tanggal_permohonan": "2024-03-20", "nama": "A", "keterangan": None}]}
    assert not is_closed({"putusan": VERDICT, "banding": {**appeal, "tanggal_putusan": None}})
    assert is_closed({"putusan": VERDICT, "banding": {**appeal, "tanggal_putusan": "2024-05-02"}})
    withdrawn = {
        "pemohon": [
            {"nama": "A", "keterangan": "Permohonan Banding Telah Dicabut Pada 01 Apr. 2024"}
        ],
        "tanggal_putusan": None,
    }
    assert is_closed({"putusan": VERDICT, "kasasi": withdrawn})
    # an appeal tab printed with no request in it (every section printed) keeps nothing open
    assert is_closed({"putusan": VERDICT, "pk": {"pemohon": [], "tanggal_putusan": None}})


def test_last_change_is_the_newest_date_the_data_shows_up_to_the_fetch() -> None:
    case = {"list_row": {"tanggal_register": "2024-01-05"}}
    tabs: dict[str, Any] = {
        "riwayat_perkara": [
            {"tanggal": "2024-01-05", "tahapan": "Pendaftaran"},
            {"tanggal": "2024-02-01", "tahapan": "Persidangan"},
            {"tanggal": None, "tahapan": "?"},
        ],
        "jadwal_sidang": [{"tanggal": "2024-02-20"}, {"tanggal": "2024-03-10"}],
    }
    assert last_change_day(case, tabs, D("2024-03-01")) == D("2024-02-20")
    assert last_change_day(case, tabs, D("2024-04-01")) == D("2024-03-10")
    assert last_change_day(case, {}, D("2024-04-01")) == D("2024-01-05")
    assert last_change_day(None, {}, D("2024-04-01")) is None
    f = case_facts(case, {**tabs, "putusan": VERDICT}, D("2024-04-01"))
    assert f.last_change == D("2024-03-25")  # the minutasi
    assert f.hearings == (D("2024-02-20"), D("2024-03-10"))
    assert f.closed


def test_refresh_settings_are_checked_with_clear_messages() -> None:
    today = D("2026-11-30")
    cfg = RefreshConfig.from_settings({}.get, utc_today=today)
    assert (cfg.today, cfg.min_days, cfg.max_days) == (today, 1, 30)
    cfg = RefreshConfig.from_settings(
        {
            "HARVEST_REFRESH_TODAY": "2024-06-19",
            "HARVEST_REFRESH_MIN_DAYS": "2",
            "HARVEST_REFRESH_MAX_DAYS": 14,
        }.get,
        utc_today=today,
    )
    assert (cfg.today, cfg.min_days, cfg.max_days) == (D("2024-06-19"), 2, 14)
    with pytest.raises(SettingsError, match="HARVEST_REFRESH_TODAY must be a day YYYY-MM-DD"):
        RefreshConfig.from_settings({"HARVEST_REFRESH_TODAY": "19/06/2024"}.get, utc_today=today)
    with pytest.raises(SettingsError, match="HARVEST_REFRESH_MIN_DAYS must be a whole number"):
        RefreshConfig.from_settings({"HARVEST_REFRESH_MIN_DAYS": "0"}.get, utc_today=today)
    with pytest.raises(SettingsError, match="below HARVEST_REFRESH_MIN_DAYS"):
        RefreshConfig.from_settings(
            {"HARVEST_REFRESH_MIN_DAYS": "10", "HARVEST_REFRESH_MAX_DAYS": "5"}.get,
            utc_today=today,
        )


# --- the planner ---------------------------------------------------------------------------

COURT = "pn-x"


def row(
    number: str, status: str = "Persidangan", registered: str = "2024-06-01"
) -> dict[str, Any]:
    """A list row's ``data`` as the list parser gives it (Lama Proses included)."""
    return {
        "nomor_perkara": number,
        "tanggal_register": registered,
        "klasifikasi_perkara": "Pencurian",
        "para_pihak": [{"label": "Penuntut Umum", "nama": ["JAKSA"]}],
        "status_perkara": status,
        "lama_proses": "18 Hari",
    }


def document(number: str, *, closed: bool = False, **row_args: str) -> dict[str, Any]:
    list_row = {k: v for k, v in row(number, **row_args).items() if k != "lama_proses"}
    tabs: dict[str, Any] = {"riwayat_perkara": [{"tanggal": list_row["tanggal_register"]}]}
    if closed:
        tabs["putusan"] = VERDICT
    return {"source_id": number, "case": {"list_row": list_row}, "tabs": tabs}


def planner(
    policy: str, docs: list[dict[str, Any]], rows: list[RowState], today: str = "2024-06-19"
) -> RefreshPlanner:
    gens = [
        Generation(COURT, 0, "initial", "2024-06-01", "t", "t"),
        Generation(COURT, 1, policy, today, "t", None),
    ]
    return RefreshPlanner.load(
        court=COURT,
        generation=gens[-1],
        generations=gens,
        case_rows=rows,
        documents=lambda: iter(docs),
        config=RefreshConfig(today=D(today)),
    )


def ok0(number: str) -> RowState:
    return RowState(f"case|{COURT}|{number}", "ok", 0, "2024-06-01T10:00:00.000Z")


def test_list_row_is_compared_without_lama_proses() -> None:
    stored = document("1/Pid.B/2024/PN X")["case"]["list_row"]
    assert list_row_of(row("1/Pid.B/2024/PN X")) == canonical_json(stored)
    assert list_row_of({**row("1/Pid.B/2024/PN X"), "lama_proses": "99 Hari"}) == canonical_json(
        stored
    )
    assert list_row_of(row("1/Pid.B/2024/PN X", status="Minutasi")) != canonical_json(stored)
    assert list_row_of({"nomor_perkara": "T", "pelanggar": "X"}) == canonical_json(None)


def test_planner_new_changed_due_and_the_stop_rule() -> None:
    # case 1: fetched 2024-06-01, registered 2024-05-01 (quiet 31 days -> back-off 30): not
    # due on 06-19. Case 2: registered 05-31 -> back-off 1 day: due. Case 3: closed.
    docs = [
        document("1/Pid.B/2024/PN X", registered="2024-05-01"),
        document("2/Pid.B/2024/PN X", registered="2024-05-31"),
        document("3/Pid.B/2024/PN X", registered="2024-05-01", closed=True),
    ]
    rows = [ok0(d["source_id"]) for d in docs]
    p = planner("due", docs, rows)
    assert p.due_unseen == {"2/Pid.B/2024/PN X"}
    # page 1: a new case, case 1 unchanged and not due
    assert p.decide("9/Pid.B/2024/PN X", row("9/Pid.B/2024/PN X")) == "new"
    assert p.decide("1/Pid.B/2024/PN X", row("1/Pid.B/2024/PN X", registered="2024-05-01")) is None
    assert p.end_page() is True  # the page had a new case
    # page 2: case 1 again (pushed down): decided once; case 3's status changed
    assert p.decide("1/Pid.B/2024/PN X", row("1/Pid.B/2024/PN X", registered="2024-05-01")) is None
    changed = row("3/Pid.B/2024/PN X", status="Banding", registered="2024-05-01")
    assert p.decide("3/Pid.B/2024/PN X", changed) == "changed"
    assert p.end_page() is True
    # page 3: all known and unchanged, but case 2 (due) not met yet: walk on
    assert p.end_page() is True
    two = row("2/Pid.B/2024/PN X", registered="2024-05-31")
    assert p.decide("2/Pid.B/2024/PN X", two) == "due"
    assert p.end_page() is False  # unchanged, nothing due left: stop
    assert p.counts == {
        "due": 1,
        "new": 1,
        "changed": 1,
        "skipped_not_due": 1,
        "pages_walked": 4,
        "pages_for_due": 1,
    }


def test_planner_all_fetches_every_known_case_and_walks_every_page() -> None:
    docs = [document("1/Pid.B/2024/PN X", closed=True)]
    p = planner("all", docs, [ok0("1/Pid.B/2024/PN X")])
    assert p.decide("1/Pid.B/2024/PN X", row("1/Pid.B/2024/PN X")) == "all"
    assert p.end_page() is True


def test_a_resumed_refresh_skips_what_its_generation_already_queued() -> None:
    docs = [
        document("2/Pid.B/2024/PN X", registered="2024-05-31"),
        document("5/Pid.B/2024/PN X", registered="2024-05-31"),
    ]
    rows = [
        RowState(f"case|{COURT}|2/Pid.B/2024/PN X", "pending", 1, "2024-06-01T10:00:00.000Z"),
        ok0("5/Pid.B/2024/PN X"),
    ]
    p = planner("due", docs, rows)
    assert p.handled == {"2/Pid.B/2024/PN X"}
    assert p.due_unseen == {"5/Pid.B/2024/PN X"}  # case 2 is queued in this generation
    assert p.decide("2/Pid.B/2024/PN X", row("2/Pid.B/2024/PN X", status="Minutasi")) is None


def test_last_fetch_day_is_the_policy_day_of_the_generation_that_fetched_it() -> None:
    gens = [
        Generation(COURT, 0, "initial", "2024-06-01", "t", "t"),
        Generation(COURT, 1, "due", "2024-06-08", "t", "t"),
    ]
    rows = [
        RowState("case|pn-x|1", "ok", 1, "2026-11-30T01:00:00.000Z"),
        RowState("case|pn-x|2", "error", 1, "2026-11-29T01:00:00.000Z"),
        RowState("case|pn-x|3", "error", 0, None),
    ]
    inputs = policy_inputs(gens, rows)
    assert inputs["1"][1] == D("2024-06-08")
    assert inputs["2"][1] == D("2026-11-29")  # its last attempt failed: its last success
    assert inputs["3"][1] is None


# ------------------------------------------------ issue 26: closed cases, steps, the calendar

NOTIFIED = {
    **VERDICT,
    "pemberitahuan_putusan": [{"pihak": "Terdakwa", "tanggal": "2024-03-20"}],
    "kirim_salinan_putusan": [{"pihak": "Penuntut Umum", "tanggal": "2024-03-21"}],
}


def test_pending_steps_are_the_undated_post_verdict_fields_and_the_appeal_period() -> None:
    assert pending_steps({"putusan": NOTIFIED}, D("2024-04-10")) == []
    # the verdict is 6 days old at the fetch: an appeal may still come
    assert pending_steps({"putusan": NOTIFIED}, D("2024-03-20")) == ["appeal period"]
    open_steps = {
        "putusan": {**NOTIFIED, "kirim_salinan_putusan": [{"pihak": "X", "tanggal": None}]},
        "barang_bukti": [{"nama": "1 unit HP", "tanggal_penyerahan": None}],
        "grasi": {"tanggal_pengiriman_berkas_ma": ""},
        # a tab that is no post-verdict step is not looked at
        "jadwal_sidang": [{"tanggal": None}],
    }
    assert pending_steps(open_steps, D("2024-04-10")) == [
        "putusan.kirim_salinan_putusan.tanggal",
        "barang_bukti.tanggal_penyerahan",
        "grasi.tanggal_pengiriman_berkas_ma",
    ]
    # a label that starts like a date field but holds text is no step
    assert pending_steps({"putusan": {**NOTIFIED, "tanggal_label": "Tanggal Putusan"}},
                         D("2024-04-10")) == []  # fmt: skip


def test_a_closed_case_backs_off_while_a_step_is_pending_until_quiet_for_max_days() -> None:
    tabs = {"putusan": NOTIFIED, "barang_bukti": [{"tanggal_penyerahan": None}]}
    # fetched 2024-04-10, last change 03-25 (the minutasi): quiet 16 days, capped at STEP 7
    f = case_facts({"list_row": {"tanggal_register": "2024-01-05"}}, tabs, D("2024-04-10"))
    assert f.closed
    assert f.pending == ("barang_bukti.tanggal_penyerahan",)
    assert f.last_change == D("2024-03-25")
    early = due(f, D("2024-04-16"), min_days=1, max_days=30)
    assert (early.due, early.kind) == (False, "waiting")
    assert early.reason == (
        "post-verdict step pending (barang_bukti.tanggal_penyerahan): due on 2024-04-17"
    )
    on = due(f, D("2024-04-17"), min_days=1, max_days=30)
    assert (on.due, on.kind, on.next_day) == (True, "post-verdict", D("2024-04-17"))
    # STEP_DAYS 14: 14 days; STEP_DAYS 30: its 16 quiet days
    assert due(f, D("2024-04-17"), min_days=1, max_days=30, step_days=14).next_day == D(
        "2024-04-24"
    )
    assert due(f, D("2024-04-17"), min_days=1, max_days=30, step_days=30).next_day == D(
        "2024-04-26"
    )
    # fetched again on 05-01 with nothing new: quiet 41 days >= MAX 30: settled
    g = case_facts(None, tabs, D("2024-05-01"))
    settled = due(g, D("2024-09-01"), min_days=1, max_days=30)
    assert (settled.due, settled.kind, settled.reason) == (
        False,
        "settled",
        "closed, quiet for 37 days",
    )
    # every step dated: settled at once, however recent
    done = case_facts(None, {"putusan": NOTIFIED}, D("2024-04-10"))
    assert due(done, D("2024-09-01"), min_days=1, max_days=30).reason == (
        "closed, post-verdict steps done"
    )


def test_an_open_case_with_an_appeal_pending_backs_off_at_most_step_days() -> None:
    appeal = {
        "pemohon": [{"nama": "A", "keterangan": None}],
        "tanggal_pengiriman_berkas": "2024-04-02",
        "tanggal_putusan": None,
    }
    f = case_facts(None, {"putusan": NOTIFIED, "banding": appeal}, D("2024-06-01"))
    assert not f.closed
    assert f.appeal_pending
    # quiet 60 days (file sent 04-02): the back-off would be 30 days, the appeal caps it at 7
    verdict = due(f, D("2024-06-08"), min_days=1, max_days=30)
    assert (verdict.due, verdict.kind) == (True, "post-verdict")
    assert verdict.reason == "appeal pending, back-off of 7 days over"
    assert not due(f, D("2024-06-07"), min_days=1, max_days=30).due
    # without the appeal the same quiet case waits the 30 days
    quiet = case_facts(None, {"riwayat_perkara": [{"tanggal": "2024-04-02"}]}, D("2024-06-01"))
    assert due(quiet, D("2024-06-08"), min_days=1, max_days=30).kind == "waiting"
    assert due(quiet, D("2024-07-01"), min_days=1, max_days=30).kind == "back-off"


def test_last_change_reads_every_date_of_the_document() -> None:
    tabs = {
        "putusan": NOTIFIED,
        "banding": {"pemberitahuan_putusan": [{"tanggal": "2024-05-02"}], "amar": "2024-99-01"},
        "jadwal_sidang": [{"tanggal": "2024-07-01"}],  # upcoming: after the fetch
    }
    assert last_change_day(None, tabs, D("2024-06-01")) == D("2024-05-02")
    assert last_change_day(None, tabs, D("2024-07-02")) == D("2024-07-01")


def test_the_calendar_makes_a_case_heard_since_its_last_fetch_due() -> None:
    docs = [
        document("1/Pid.B/2024/PN X", registered="2024-05-01"),  # fetched 06-01, quiet: not due
        document("3/Pid.B/2024/PN X", registered="2024-05-01", closed=True),
    ]
    p = planner("due", docs, [ok0(d["source_id"]) for d in docs])
    assert p.due_unseen == set()
    assert not p.heard("1/Pid.B/2024/PN X", D("2024-05-31"))  # before its last fetch (06-01)
    assert not p.heard("7/Pid.B/2024/PN X", D("2024-06-10"))  # unknown: the walk finds it new
    assert p.heard("1/Pid.B/2024/PN X", D("2024-06-01"))  # on the fetch day: after the fetch
    assert not p.heard("1/Pid.B/2024/PN X", D("2024-06-02"))  # already due
    assert p.due_unseen == {"1/Pid.B/2024/PN X"}
    assert p.known["1/Pid.B/2024/PN X"].reason == "hearing 2024-06-01 on the court's calendar"
    assert p.end_page() is True  # walk on until it is met
    assert (
        p.decide("1/Pid.B/2024/PN X", row("1/Pid.B/2024/PN X", registered="2024-05-01")) == "due"
    )
    assert p.counts["calendar_due"] == 1


def test_calendar_days_run_from_the_last_refresh_up_to_the_day_before_today() -> None:
    g0 = Generation(COURT, 0, "initial", "2024-06-01", "t", "t")
    g1 = Generation(COURT, 1, "due", "2024-06-04", "t", None)
    assert calendar_days([g0, g1], g1, 30) == [D("2024-06-01"), D("2024-06-02"), D("2024-06-03")]
    assert calendar_days([g0, g1], g1, 2) == [D("2024-06-02"), D("2024-06-03")]
    assert calendar_days([g0], g0, 30) == []  # the first harvest reads none
    same_day = Generation(COURT, 1, "due", "2024-06-01", "t", None)
    assert calendar_days([g0, same_day], same_day, 30) == []


def test_step_days_and_calendar_settings() -> None:
    cfg = RefreshConfig.from_settings({}.get, utc_today=D("2026-11-30"))
    assert (cfg.step_days, cfg.calendar) == (7, True)
    cfg = RefreshConfig.from_settings(
        {"HARVEST_REFRESH_STEP_DAYS": "3", "HARVEST_REFRESH_CALENDAR": "false"}.get,
        utc_today=D("2026-11-30"),
    )
    assert (cfg.step_days, cfg.calendar) == (3, False)
    with pytest.raises(SettingsError, match="HARVEST_REFRESH_STEP_DAYS must be a whole number"):
        RefreshConfig.from_settings(
            {"HARVEST_REFRESH_STEP_DAYS": "0"}.get, utc_today=D("2026-11-30")
        )
    with pytest.raises(
        SettingsError, match="HARVEST_REFRESH_CALENDAR must be true or false, got 'maybe'"
    ):
        RefreshConfig.from_settings(
            {"HARVEST_REFRESH_CALENDAR": "maybe"}.get, utc_today=D("2026-11-30")
        )
