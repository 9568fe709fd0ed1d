"""``python -m harvest.schema [--check]``: write (or check) the published schemas and the data
dictionary: ``docs/schema/case-document.v<N>.schema.json`` (and the package's copy read by
``ship.py``) and ``docs/data-dictionary.md``. ``--check`` exits 1 when a file is not what the
parsers' definitions generate (a parser changed without regenerating)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harvest.schema.dictionary import data_dictionary
from harvest.schema.generate import ITEM_FORMATS, document_schema
from harvest.schema.published import SCHEMA_DIR, schema_file
from harvest.schema.render import schema_text

_REPO = Path(__file__).resolve().parents[2]


def outputs(repo: Path = _REPO) -> dict[Path, str]:
    """Every generated file and its text."""
    out: dict[Path, str] = {}
    for version in ITEM_FORMATS:
        text = schema_text(document_schema(version))
        out[schema_file(version, repo / "docs" / "schema")] = text
        out[schema_file(version, SCHEMA_DIR)] = text
    out[repo / "docs" / "data-dictionary.md"] = data_dictionary(document_schema(ITEM_FORMATS[-1]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harvest.schema", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only check, write nothing")
    opts = parser.parse_args(argv)
    stale = []
    for path, text in outputs().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(path)
        if not opts.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for path in stale:
        verb = "stale" if opts.check else "wrote"
        sys.stderr.write(f"{verb} {path}\n")
    return 1 if opts.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
