"""Parse time per page (list, detail, each tab), without and with the text-coverage check.

Over the saved replica pages (``tests/fixtures/replica``) and, if present, the golden fixtures
(``tests/fixtures/golden``): each page is parsed ``--repeat`` times as the spider parses it
(the page's parser inside ``collect_warnings()``), then parsed into the object the tests compare
and checked by the text-coverage test's ``dropped_texts`` (a test-only check; production never
runs it). Prints per page kind the
number of pages and the median milliseconds per page of each.

    .venv/bin/python bench/bench_parsers.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from harvest.sipp import parse_detail_page, parse_list_page, parse_tab
from harvest.sipp.warnings import collect_warnings
from tests.support.pages import FIXTURES
from tests.support.replica_pages import parsed_object
from tests.support.text_coverage import dropped_texts

REPLICA = FIXTURES / "replica"
GOLDEN = FIXTURES / "golden"
BASE = "http://127.0.0.1:8800/"


def pages() -> list[tuple[str, str, str]]:
    """``(kind, url, html)`` of every saved page."""
    out = []
    for path in sorted(REPLICA.rglob("*.html")):
        if "errors" in path.parts:
            continue
        if path.name == "detail.html":
            kind = "detail"
        elif path.name.startswith("tab-"):
            kind = "tab:" + path.name[4:-5]
        elif "-list-" in path.name:
            kind = "list"
        else:
            continue
        out.append((kind, BASE + "list_perkara", path.read_text(encoding="utf-8")))
    for folder in sorted(GOLDEN.iterdir()) if GOLDEN.is_dir() else []:
        meta_path = folder / "fixture.json"
        if meta_path.is_file():
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            out.append((meta["page"], meta["url"], (folder / "page.html").read_text("utf-8")))
    return out


def parse(kind: str, html: str, url: str) -> object:
    """What the spider calls for a page of ``kind``."""
    if kind == "list":
        return parse_list_page(html, url)
    if kind == "detail":
        return parse_detail_page(html, url)
    return parse_tab(kind.removeprefix("tab:"), html)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    plain: dict[str, list[float]] = defaultdict(list)
    checked: dict[str, list[float]] = defaultdict(list)
    for kind, url, html in pages():
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            with collect_warnings():
                parse(kind, html, url)
            t1 = time.perf_counter()
            with collect_warnings():
                data = parsed_object(kind, html, url)
            dropped_texts(kind, html, data)
            t2 = time.perf_counter()
            plain[kind].append((t1 - t0) * 1000)
            checked[kind].append((t2 - t1) * 1000)
    print(f"{'page':24} {'pages':>5} {'parse ms':>9} {'parse+coverage ms':>18}")
    for kind in sorted(plain):
        n = len(plain[kind]) // args.repeat
        print(
            f"{kind:24} {n:5d} {statistics.median(plain[kind]):9.2f} "
            f"{statistics.median(checked[kind]):18.2f}"
        )


if __name__ == "__main__":
    main()
