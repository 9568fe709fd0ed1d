"""The previous release's code, to run beside this one: upgrade tests start a harvest with it
and resume it with this checkout (tests/hardening/test_upgrade.py,
tests/scheduler/test_pg_upgrade.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.paths import REPO

#: The previous release: main before issue 24 (a commit hash: a fresh clone may have no tags).
PREVIOUS = "c00410c"


def previous_release(tmp_path: Path) -> Path:
    """The previous release's tree (``git archive``: nothing is written to the checkout's
    repository), run with this virtualenv through ``PYTHONPATH`` (nothing installed twice)."""
    tree = tmp_path / f"harvest-{PREVIOUS}"
    tree.mkdir()
    found = subprocess.run(
        ["git", "-C", str(REPO), "cat-file", "-e", f"{PREVIOUS}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    if found.returncode != 0:
        pytest.fail(f"commit {PREVIOUS} (the previous release) is not in this repository")
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", PREVIOUS],
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree
