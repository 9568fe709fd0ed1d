"""Print the requirements of a scrapyd host: harvest's dependencies and scrapyd, not harvest.

Read from pyproject.toml (``[project] dependencies``, and the ``scrapyd`` and ``setuptools``
pins of the ``dev`` extra), one requirement per line, for ``pip install -r``. Used by
``scripts/scrapyd-host``; harvest itself reaches the host only as the egg ``scrapyd-deploy``
uploads (README.md, "scrapyd").
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
#: What the host needs beyond the dependencies: the daemon, and pkg_resources for its eggs.
_HOST_TOOLS = re.compile(r"^(scrapyd|setuptools)\b(?!-)")


def host_requirements(pyproject: Path = PYPROJECT) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    tools = [
        req.split("#")[0].strip()
        for req in project["optional-dependencies"]["dev"]
        if _HOST_TOOLS.match(req)
    ]
    return [*project["dependencies"], *tools]


if __name__ == "__main__":
    sys.stdout.write("".join(f"{req}\n" for req in host_requirements()))
