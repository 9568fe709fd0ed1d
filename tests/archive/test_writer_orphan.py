"""The archive writer process exits when its crawl is SIGKILLed, even while it was starting
(issue 24: 2 of 8 kills left one running for good, holding an exclusive lock on its WARC file).

The race, rebuilt deterministically: the crawl spawns the writer and dies before the writer's
initializer runs. The writer then has a new parent (init or a subreaper); on main it took that
one for the crawl and watched it forever.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.support.paths import REPO

WRITER = """
import os, sys, time
crawl, root = int(sys.argv[1]), sys.argv[2]
while os.getppid() == crawl:  # the crawl is killed while this writer is still starting
    time.sleep(0.01)
from harvest.archive import worker
args = (root, "pn-orphan", "run-1", 1 << 20, "harvest (test)")
try:
    worker.start(*args, crawl)  # as the archive middleware starts it
except TypeError:  # main's worker takes no crawl pid
    worker.start(*args)
time.sleep(120)  # an idle writer waits for batches
"""

CRAWL = """
import os, subprocess, sys
writer = subprocess.Popen(
    [sys.executable, "-c", sys.argv[1], str(os.getpid()), sys.argv[2]],
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)
print(writer.pid, flush=True)
os._exit(0)  # as kill -9 would
"""


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def test_a_writer_whose_crawl_died_while_it_started_exits(tmp_path: Path) -> None:
    root = tmp_path / "archive"
    root.mkdir()
    crawl = subprocess.run(
        [sys.executable, "-c", CRAWL, WRITER, str(root)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    writer = int(crawl.stdout.strip())
    deadline = time.monotonic() + 30
    while _running(writer) and time.monotonic() < deadline:
        time.sleep(0.05)
    running = _running(writer)
    if running:
        subprocess.run(["kill", "-9", str(writer)], check=False)
    assert not running, "the archive writer outlived its crawl"
