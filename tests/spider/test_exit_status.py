from __future__ import annotations

import pytest

from harvest.clearance import OFF_REASON
from harvest.exit_status import CHALLENGE_REASON, CrawlFacts, ExitStatus, decide


def test_the_challenge_reason_is_the_one_clearance_records() -> None:
    assert OFF_REASON.startswith(CHALLENGE_REASON)


@pytest.mark.parametrize(
    ("facts", "status"),
    [
        (CrawlFacts("finished"), ExitStatus.DONE),
        (CrawlFacts(None), ExitStatus.REFUSED),
        (CrawlFacts("harvest_bad_listing", fatal=True, failed=1), ExitStatus.REFUSED),
        (CrawlFacts("harvest_state_error", fatal=True, waiting=9), ExitStatus.REFUSED),
        (CrawlFacts("finished", failed=3), ExitStatus.FAILED_LEFT),
        (
            CrawlFacts("finished", failed=3, challenged_with_browser_off=True),
            ExitStatus.CHALLENGE,
        ),
        (CrawlFacts("shutdown", waiting=12), ExitStatus.STOPPED),
        (CrawlFacts("shutdown", waiting=12, failed=2), ExitStatus.STOPPED),
        (CrawlFacts("closespider_itemcount", waiting=1), ExitStatus.STOPPED),
        (CrawlFacts("shutdown"), ExitStatus.DONE),
    ],
)
def test_each_ending_has_its_code(facts: CrawlFacts, status: ExitStatus) -> None:
    assert decide(facts) is status
    assert [int(s) for s in ExitStatus] == [0, 1, 2, 3, 4, 5]
