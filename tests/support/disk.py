"""A small tmpfs to fill up: a full disk under a workspace or its archive, for the tests."""

from __future__ import annotations

import contextlib
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["grow", "small_tmpfs"]


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str) -> Iterator[Path]:
    """Mount a tmpfs of ``size`` (``"256k"``, mode 0700) on ``where`` (created), yield it,
    unmount it. Skips the test when it cannot be mounted (not root, no mount permission)."""
    where.mkdir(parents=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", f"harvest-{uuid.uuid4().hex[:8]}",
         str(where)],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs to fill up (needs root): {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def grow(where: Path, size: str) -> None:
    """Give the tmpfs mounted on ``where`` the new ``size`` (free space on a full disk)."""
    subprocess.run(["mount", "-o", f"remount,size={size}", str(where)], check=True)
