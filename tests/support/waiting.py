"""Waiting on observable state, always with a deadline: never a sleep as synchronisation."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

#: Seconds between two looks at the state waited on.
POLL = 0.02


def wait_until(
    condition: Callable[[], T],
    *,
    timeout: float,
    what: str,
    proc: subprocess.Popen[Any] | None = None,
) -> T:
    """Poll ``condition`` until it returns something true, and return that.

    Fails (``AssertionError`` naming ``what``) at the deadline, or as soon as ``proc`` (the
    process expected to bring the state about) has exited without it.
    """
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"{what}: the process exited ({proc.returncode}) before")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:g} s")
        time.sleep(POLL)


def lock_holder(path: Path) -> dict[str, Any]:
    """The holder record of a :class:`~harvest.base.holder_lock.HolderLock` file (``{}`` if none
    yet).

    The holder truncates then writes its record: a look in between sees an empty or partial file.
    """
    try:
        record = json.loads(path.read_bytes() or b"{}")
    except (FileNotFoundError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}
