"""Where the checkout is and how to run its commands as subprocesses."""

from __future__ import annotations

import sys
from pathlib import Path

#: The repository checkout (scrapy.cfg, ship.py, reference/ live here).
REPO = Path(__file__).resolve().parents[2]
#: The interpreter of this run (the project's virtualenv).
PY = sys.executable
#: ``scrapy`` of this interpreter; run it with ``cwd=REPO`` (scrapy.cfg names the project).
SCRAPY = [PY, "-m", "scrapy"]
#: ``python ship.py``.
SHIP = [PY, str(REPO / "ship.py")]
