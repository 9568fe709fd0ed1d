"""``format_utc``: its per-second cache writes exactly what ``datetime`` writes (issue 29)."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from harvest.base.clock import format_utc


def _reference(moment: float) -> str:
    """The formatter before the cache (verbatim)."""
    when = dt.datetime.fromtimestamp(moment, dt.UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


@pytest.mark.parametrize(
    ("moment", "text"),
    [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (1_790_000_000.25, "2026-09-21T14:13:20.250Z"),
        (1_790_000_000.9999, "2026-09-21T14:13:20.999Z"),
        # microseconds round half to even, as datetime does: this one is the next second
        (1_790_000_000.9999996, "2026-09-21T14:13:21.000Z"),
        (-1.5, "1969-12-31T23:59:58.500Z"),
        (1_790_000_000, "2026-09-21T14:13:20.000Z"),
    ],
)
def test_known_moments(moment: float, text: str) -> None:
    assert format_utc(moment) == text == _reference(moment)


def test_same_text_as_datetime_for_many_moments_in_and_across_seconds() -> None:
    rng = random.Random(29)
    base = 1_790_000_000.0
    moments = [base + rng.uniform(0, 5) for _ in range(20_000)]  # many calls a second
    moments += [rng.uniform(-1e9, 4e9) for _ in range(20_000)]  # a new second each call
    moments += [base + k + f for k in range(50) for f in (0.0, 0.0005, 0.9994999, 0.99999949)]
    moments += [base + k - 1e-7 for k in range(50)]
    for moment in moments:
        assert format_utc(moment) == _reference(moment), moment


def test_an_aware_datetime_and_a_naive_one() -> None:
    when = dt.datetime(2026, 11, 30, 1, 2, 3, 456789, tzinfo=dt.timezone(dt.timedelta(hours=7)))
    assert format_utc(when) == "2026-11-29T18:02:03.456Z"
    with pytest.raises(ValueError, match="aware datetime"):
        format_utc(dt.datetime(2026, 11, 30))
