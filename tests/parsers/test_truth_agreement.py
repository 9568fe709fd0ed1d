"""The replica's ground truth agrees with the golden fixtures wherever they overlap.

A golden fixture's ``expected.json`` is what a careful reader of a page written from the real
template stores, by hand. The replica's ground truth (``reference/sipp_site/model.py``) must
say the same kind of thing for the same branch: for every golden fixture whose page kind the
replica renders (``detail``, a ``tab:<slug>`` it generates, the all-cases ``list`` rows), some
case of a 500-case replica court (of any variant) must have a truth value of the same
structure: the same keys at every level of every object, the same JSON type for every value
(``null`` fits any type: an empty cell; a list fits when each of the golden list's elements
fits one of the truth list's). "The same branch" is the case whose structure is that one: a
criminal verdict's nested notices, a tilang Data Umum, an appeal's sections each have keys of
their own.

Not compared: pages with parse warnings (they show a shape the stock templates do not print,
which the replica never renders), tilang list rows (not part of the truth), and a kind the
replica renders nowhere. A fixture of a dead branch (``"reachable": false``: no stock install
serves it) is compared the other way: no case of the truth may have its structure. A fixture
whose branch the replica does not render yet is marked ``xfail(strict=True)`` below with what
is missing, and the mark comes off with the fix. The truth is that of every variant, plain and
with each data switch (``--broken-pages``, ``--views 2021``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

from reference.sipp_site import court as replica_court
from reference.sipp_site.model import CourtData
from tests.support.pages import FIXTURES

GOLDEN = FIXTURES / "golden"
GOLDEN_NAMES = sorted(p.name for p in GOLDEN.iterdir() if (p / "fixture.json").is_file())
VARIANTS: tuple[str, ...] = tuple(getattr(replica_court, "VARIANTS", ("pn", "pa")))
CASES = 500
SEED = 1
#: The replica's data switches whose pages a golden fixture may show (none: the stock pages;
#: --broken-pages: the pages the app breaks and its joins; --views 2021: the older words)
SWITCHES: tuple[dict[str, Any], ...] = ({}, {"broken_pages": True}, {"views": "2021"})
#: List row keys the truth does not keep (docs/item-format.md, list_row).
NOT_IN_TRUTH_ROW = frozenset({"lama_proses"})

#: Golden fixture -> why the replica's truth has no case of its structure today.
AGREEMENT_XFAIL: dict[str, str] = {
    "tab-dismissal-empty": "the replica lists Penetapan Dismissal only with its record (an "
    "alur 8 case whose dismissal flag is set without a dismissal row is not generated)",
    "verdict-putusan-sela-pkpu": "the replica generates putusan sela outside alur 3..6 only "
    "(no kepailitan / PKPU interlocutory judgment)",
}


# ------------------------------------------------------------------------- structures


def differences(golden: Any, truth: Any, path: str = "") -> list[str]:
    """Where ``truth`` does not have ``golden``'s structure (empty: it has)."""
    if golden is None or truth is None:
        return []
    if _kind(golden) != _kind(truth):
        return [f"{path or '.'}: {_kind(golden)} in the golden data, {_kind(truth)} in the truth"]
    if isinstance(golden, dict):
        out = [f"{path}.{k}: only in the golden data" for k in sorted(set(golden) - set(truth))]
        out += [f"{path}.{k}: only in the truth" for k in sorted(set(truth) - set(golden))]
        for key in sorted(set(golden) & set(truth)):
            out += differences(golden[key], truth[key], f"{path}.{key}")
        return out
    if isinstance(golden, list):
        out = []
        for i, element in enumerate(golden):
            if not truth:
                out.append(f"{path}[{i}]: the truth's list is empty")
                break
            best = min((differences(element, t, f"{path}[{i}]") for t in truth), key=len)
            out += best
        return out
    return []


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def _signature(value: Any) -> Any:
    """A hashable form of ``value``'s structure (one representative per structure is enough)."""
    if isinstance(value, dict):
        return ("{}", tuple(sorted((k, _signature(v)) for k, v in value.items())))
    if isinstance(value, list):
        return ("[]", frozenset(_signature(v) for v in value))
    return _kind(value)


# ------------------------------------------------------------------------ the truth


@cache
def truth_values() -> dict[str, list[tuple[str, Any]]]:
    """Page kind -> one ``(case number, value)`` per distinct structure in the replica's truth
    (every variant and switch, 500 cases each)."""
    found: dict[str, dict[Any, tuple[str, Any]]] = {}
    for variant in VARIANTS:
        for switches in SWITCHES:
            data = CourtData(
                replica_court.make_court(variant),  # type: ignore[arg-type]
                seed=SEED,
                cases=CASES,
                **switches,
            )
            for case in data.iter_cases():
                for kind, value in _pages_of(case.case_data, case.tabs):
                    found.setdefault(kind, {}).setdefault(
                        _signature(value), (f"{variant} {switches} {case.nomor_perkara}", value)
                    )
    return {kind: list(values.values()) for kind, values in found.items()}


def _pages_of(case_data: dict[str, Any], tabs: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    yield "detail", {k: case_data[k] for k in ("header", "data_umum", "tabs")}
    if case_data.get("list_row") is not None:
        yield "list row", case_data["list_row"]
    for slug, value in tabs.items():
        yield f"tab:{slug}", value


def golden_values(page: str, expected: Any) -> list[tuple[str, Any]]:
    """The ``(kind, value)`` pairs of a golden fixture compared with the truth."""
    if page == "detail":
        return [("detail", {k: expected[k] for k in ("header", "data_umum", "tabs")})]
    if page == "list":
        rows = [r for r in expected["rows"] if "tanggal_register" in r]  # all-cases rows only
        return [
            ("list row", {k: v for k, v in row.items() if k not in NOT_IN_TRUTH_ROW})
            for row in rows
        ]
    return [(page, expected)]


# ------------------------------------------------------------------------------ tests


def test_differences_name_every_path_that_differs() -> None:
    golden = {"a": "x", "b": [{"c": "2024-01-02", "d": None}], "e": 1}
    assert differences(golden, {"a": None, "b": [{"c": "y", "d": 3}], "e": 2}) == []
    assert differences(golden, {"a": "x", "b": [], "f": 1}) == [
        ".e: only in the golden data",
        ".f: only in the truth",
        ".b[0]: the truth's list is empty",
    ]
    assert differences({"b": [{"c": "x"}]}, {"b": [{"c": 1}, {"c": "y", "z": 1}]}) == [
        ".b[0].c: string in the golden data, number in the truth"
    ]


def _params() -> list[Any]:
    return [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=AGREEMENT_XFAIL[n]))
        if n in AGREEMENT_XFAIL
        else n
        for n in GOLDEN_NAMES
    ]


@pytest.mark.parametrize("name", _params())
def test_the_truth_has_the_golden_structure(name: str) -> None:
    folder = GOLDEN / name
    meta = json.loads((folder / "fixture.json").read_text(encoding="utf-8"))
    if meta.get("warnings"):
        pytest.skip("a shape the stock templates do not print (parse warnings): not rendered")
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    pairs = golden_values(meta["page"], expected)
    truth = truth_values()
    if meta.get("reachable") is False:
        # a dead branch (fixture.json "unreachable" says why): the replica never serves it
        served = [
            (kind, case)
            for kind, value in pairs
            for case, t in truth.get(kind, [])
            if not differences(value, t)
        ]
        assert served == [], f"{name}: an unreachable branch is in the replica's truth"
        return
    compared = [(kind, value) for kind, value in pairs if kind in truth]
    if not compared:
        pytest.skip(f"the replica renders no {meta['page']!r} page of this kind")
    problems = []
    for kind, value in compared:
        best = min(
            ((case, differences(value, t)) for case, t in truth[kind]), key=lambda x: len(x[1])
        )
        if best[1]:
            problems.append(
                f"{kind}: no replica case has this structure; the nearest ({best[0]}) differs at:"
                + "".join(f"\n    {d}" for d in best[1][:20])
            )
    assert not problems, f"{name} ({meta.get('branch', '')}):\n  " + "\n  ".join(problems)
