"""An item pipeline whose ``close_spider`` never returns (it blocks the reactor thread, as a
stuck network call or lock would): the hung close of tests/multi/test_pg_hung_close.py.

Enabled with ``ITEM_PIPELINES`` (the project's pipelines plus this one, :func:`pipelines`).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from harvest.settings import ITEM_PIPELINES

__all__ = ["HangingClose", "pipelines"]

logger = logging.getLogger(__name__)

#: Seconds the close hangs (the test kills the process long before).
HANG = 600.0


class HangingClose:
    """Passes items through; hangs in ``close_spider``."""

    def process_item(self, item: Any) -> Any:
        return item

    def close_spider(self) -> None:
        logger.warning("hanging_close: close_spider hangs now")
        time.sleep(HANG)


def pipelines() -> dict[str, int]:
    """The project's item pipelines and :class:`HangingClose`, closed first (lowest order)."""
    return {**ITEM_PIPELINES, f"{__name__}.HangingClose": 1}
