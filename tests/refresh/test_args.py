"""``-a refresh=`` of the sipp spider: the three policies, the default, a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from harvest.spider_args import SippArgs, SpiderArgumentError
from tests.support.harvest_run import crawl

BASE = "https://sipp.pn-x.go.id/"


def test_refresh_defaults_to_none_and_takes_due_and_all() -> None:
    assert SippArgs.from_arguments({"base_url": BASE}).refresh == "none"
    assert SippArgs.from_arguments({"base_url": BASE, "refresh": "due"}).refresh == "due"
    assert SippArgs.from_arguments({"base_url": BASE, "refresh": " ALL "}).refresh == "all"
    assert SippArgs.from_arguments({"base_url": BASE, "refresh": ""}).refresh == "none"


def test_a_wrong_refresh_policy_says_the_three() -> None:
    with pytest.raises(SpiderArgumentError) as info:
        SippArgs.from_arguments({"base_url": BASE, "refresh": "daily"})
    assert str(info.value) == (
        "-a refresh='daily' is not a refresh policy; use none (default: finish what is "
        "pending), due (new, changed and due cases) or all (every case again)"
    )
    with pytest.raises(SpiderArgumentError, match=r"did you mean -a refresh=\.\.\.\?"):
        SippArgs.from_arguments({"base_url": BASE, "refrsh": "due"})


def test_a_bad_refresh_day_refuses_the_crawl_in_one_line(tmp_path: Path) -> None:
    # refused when the court's generation is opened, before any request (nothing listens there)
    result = crawl(
        "http://127.0.0.1:9/",
        "pn-x",
        tmp_path / "ws",
        spider_args={"refresh": "due"},
        settings={"HARVEST_REFRESH_TODAY": "19-06-2024"},
        timeout=120,
    )
    assert result.returncode == 1, result.stderr[-2000:]
    assert (
        "HARVEST_REFRESH_TODAY must be a day YYYY-MM-DD (the refresh policy's today), got "
        "'19-06-2024'; leave it unset for the current UTC date"
    ) in result.stderr
    assert "Traceback" not in result.stderr
