"""The checkout's bytecode, compiled once per test session.

The machines set ``PYTHONDONTWRITEBYTECODE``, so a process never saves the bytecode of what it
imports: each of the ~600 processes the suite starts (``scrapy crawl``, ``scrapy status``, the
replica, ``ship.py``) compiled every module of the checkout again, ~0.3 s of CPU each. The
installed packages are compiled when installed; this compiles the checkout's own modules into
their ``__pycache__`` (ignored by git) the way an import would, so the processes only read it.
An up-to-date file is skipped (the timestamp in its ``.pyc``), a file edited later is compiled
again by the next session, and one edited during a session is still imported from its source
(Python checks the timestamp), so what runs is always the source as it is.
"""

from __future__ import annotations

import compileall
from pathlib import Path

from tests.support.paths import REPO

#: The checkout's packages (a script run as ``python FILE`` is compiled on each start anyway).
SOURCES = ("harvest", "extensions", "pipelines", "reference", "tests", "bench", "scripts")


def compile_checkout(root: Path = REPO) -> bool:
    """Compile every module of ``root`` not compiled yet; whether all compiled (a file that
    does not compile is left to fail where it is imported, with its own traceback)."""
    ok = True
    for name in SOURCES:
        if (root / name).is_dir():
            ok &= bool(compileall.compile_dir(root / name, quiet=2, workers=1))
    return ok
