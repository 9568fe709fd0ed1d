"""``bench/bench_scheduler.py``'s summary: complete cases beside every throughput, and no ratio
for a run that did not complete its cases (issue 29)."""

from __future__ import annotations

from bench.bench_scheduler import summarise


def run(per_s: float, complete: int, cpu_ms: float = 10.0) -> dict[str, float]:
    return {"per_s": per_s, "complete": float(complete), "cpu_ms": cpu_ms}


def test_a_scheduler_that_lost_cases_gets_its_count_and_no_ratio() -> None:
    lines = summarise(
        "details",
        1200,
        {
            "harvest": [run(80.0, 1200), run(84.0, 1200), run(82.0, 1200)],
            "memory": [run(90.0, 1200), run(80.0, 1200), run(88.0, 1200)],
            "jobdir": [run(100.0, 85), run(95.0, 159), run(99.0, 120)],
        },
    )
    assert lines[0] == "details (1200 cases, 3 rounds):"
    harvest, memory, jobdir = lines[1:]
    assert harvest == (
        "  harvest        82.0 responses/s (median run)   complete cases   1200/1200    10.0 "
        "CPU ms/response   ratio to memory 0.93 (rounds 0.89-1.05)"
    )
    assert memory.endswith("complete cases   1200/1200    10.0 CPU ms/response   (the base)")
    assert "88.0 responses/s" in memory
    assert jobdir == (
        "  jobdir         99.0 responses/s (median run)   complete cases 85-159/1200    10.0 "
        "CPU ms/response   no ratio: did not complete its cases"
    )
    assert "ratio to" not in jobdir


def test_no_ratio_at_all_when_the_base_did_not_complete() -> None:
    lines = summarise(
        "full",
        60,
        {"harvest": [run(30.0, 60)], "memory": [run(45.0, 0)], "jobdir": [run(44.0, 0)]},
    )
    assert lines == [
        "full (60 cases, 1 rounds):",
        (
            "  harvest        30.0 responses/s (median run)   complete cases       60/60    10.0 "
            "CPU ms/response   no ratio: memory did not complete its cases"
        ),
        (
            "  memory         45.0 responses/s (median run)   complete cases        0/60    10.0 "
            "CPU ms/response   no ratio: did not complete its cases"
        ),
        (
            "  jobdir         44.0 responses/s (median run)   complete cases        0/60    10.0 "
            "CPU ms/response   no ratio: did not complete its cases"
        ),
    ]


def test_one_incomplete_round_is_enough_to_withhold_the_ratio() -> None:
    (_, harvest, _) = summarise(
        "details", 10, {"harvest": [run(5.0, 10), run(6.0, 9)], "memory": [run(5.0, 10)] * 2}
    )
    assert harvest.endswith("complete cases     9-10/10    10.0 CPU ms/response   no ratio: "
                            "did not complete its cases")  # fmt: skip
