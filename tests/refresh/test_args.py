"""``-a refresh=`` of the sipp spider: the three policies, the default, a clear error."""

from __future__ import annotations

import pytest

from harvest.spider_args import SippArgs, SpiderArgumentError

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
