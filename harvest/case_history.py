"""One case's history (``scrapy case``, docs/case-history.md): every fetch of its parts, the
versions of its document, what changed between them, and the archived page behind each version.

Built from the item store's part history (:meth:`pipelines.store.ItemStore.part_history`: one
row per upsert, with the data when it changed), the request store's generations (which refresh a
fetch belonged to) and the page archive's entry history
(:meth:`harvest.archive.store.ArchiveIndex.history`): the page behind a part's version is the
latest archived entry of its request key fetched before the part was stored; re-parsed with
today's parsers it must give the version's data again (``reproduces``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from harvest.base.identity import case_key, tab_key
from harvest.base.items import CASE_PART, TAB_PART_PREFIX
from pipelines.store import PartFetch, merge_document

__all__ = [
    "ArchivedRecord",
    "Fetch",
    "Version",
    "build_history",
    "diff",
    "request_key",
]


class _Generation(Protocol):
    @property
    def number(self) -> int: ...

    @property
    def started_at(self) -> str: ...


class _Entry(Protocol):
    @property
    def file(self) -> str: ...

    @property
    def offset(self) -> int: ...

    @property
    def length(self) -> int: ...

    @property
    def digest(self) -> str: ...

    @property
    def fetched_at(self) -> str: ...

    @property
    def url(self) -> str: ...


@dataclass
class ArchivedRecord:
    """The archived entry behind a part's version, and whether its page gives that data."""

    file: str
    offset: int
    length: int
    digest: str
    fetched_at: str
    url: str
    #: True / False: today's parsers make exactly / not the version's data of the page; None:
    #: not checked (the page could not be read or parsed: ``problem`` says why).
    reproduces: bool | None = None
    problem: str | None = None


@dataclass
class Fetch:
    """One upsert of one part."""

    part: str
    seen_at: str
    result: str
    generation: int | None
    url: str


@dataclass
class Version:
    """One version of the document: the parts that changed to make it, from which fetches."""

    number: int
    seen_at: str
    generation: int | None
    content_hash: str
    changed_parts: list[str]
    changes: list[str]
    records: dict[str, ArchivedRecord | None] = field(default_factory=dict)
    document: dict[str, Any] = field(default_factory=dict, repr=False)


def request_key(court: str, case_number: str, part: str) -> str:
    """The request key (archive key) whose page makes ``part``."""
    if part == CASE_PART:
        return case_key(court, case_number)
    return tab_key(court, case_number, part.removeprefix(TAB_PART_PREFIX))


def generation_of(seen_at: str, generations: Sequence[_Generation]) -> int | None:
    """The generation a fetch at ``seen_at`` belongs to: the last one started before it."""
    found = None
    for generation in sorted(generations, key=lambda g: g.started_at):
        if generation.started_at <= seen_at:
            found = generation.number
    return found


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 160 else text[:157] + "..."


def diff(old: Any, new: Any, path: str = "") -> Iterator[str]:
    """Readable differences between two JSON values, one line each: ``path: old -> new``,
    ``+ path: value`` (added), ``- path: value`` (removed)."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            child = f"{path}.{key}" if path else str(key)
            if key not in old:
                yield f"+ {child}: {_short(new[key])}"
            elif key not in new:
                yield f"- {child}: {_short(old[key])}"
            else:
                yield from diff(old[key], new[key], child)
    elif isinstance(old, list) and isinstance(new, list):
        for index in range(max(len(old), len(new))):
            child = f"{path}[{index}]"
            if index >= len(old):
                yield f"+ {child}: {_short(new[index])}"
            elif index >= len(new):
                yield f"- {child}: {_short(old[index])}"
            else:
                yield from diff(old[index], new[index], child)
    elif old != new:
        yield f"  {path}: {_short(old)} -> {_short(new)}"


def build_history(
    *,
    dedupe_key: str,
    source_type: str,
    source_id: str,
    fetches: Sequence[PartFetch],
    generations: Sequence[_Generation] = (),
    archive_history: Callable[[str], Sequence[_Entry]] | None = None,
    reproduce: Callable[[_Entry], Mapping[str, Any] | str] | None = None,
) -> tuple[list[Fetch], list[Version]]:
    """Every fetch and every version of one case's document.

    ``archive_history(key)`` lists a request key's archived entries (oldest first);
    ``reproduce(entry)`` re-parses one: ``{part: data}``, or a text saying why it cannot.
    """
    court = source_type.removeprefix("sipp.")
    state: dict[str, Any] = {}
    versions: list[Version] = []
    out_fetches: list[Fetch] = []
    previous: dict[str, Any] | None = None
    pending: list[PartFetch] = []

    def close_version() -> None:
        nonlocal previous
        if not pending:
            return
        for fetch in pending:
            state[fetch.part] = fetch.data
        merged = merge_document(
            dedupe_key=dedupe_key,
            source_type=source_type,
            source_id=source_id,
            parts=sorted(state.items()),
            schema_version=min(f.schema_version for f in pending),
        )
        document: dict[str, Any] = dict(merged)
        last = pending[-1]
        changes = list(diff(_content(previous), _content(document))) if previous else []
        version = Version(
            number=len(versions) + 1,
            seen_at=last.seen_at,
            generation=generation_of(last.seen_at, generations),
            content_hash=merged["content_hash"],
            changed_parts=sorted({f.part for f in pending}),
            changes=changes,
            document=document,
        )
        for fetch in pending:
            version.records[fetch.part] = _record(
                court, source_id, fetch, archive_history, reproduce
            )
        versions.append(version)
        previous = document
        pending.clear()

    current_generation: int | None = None
    for fetch in fetches:
        generation = generation_of(fetch.seen_at, generations)
        out_fetches.append(Fetch(fetch.part, fetch.seen_at, fetch.result, generation, fetch.url))
        if generation != current_generation:
            close_version()
            current_generation = generation
        if fetch.result != "unchanged":
            if fetch.part in {p.part for p in pending}:
                close_version()  # the same part twice in one generation: two versions
            pending.append(fetch)
    close_version()
    return out_fetches, versions


def _content(document: Mapping[str, Any] | None) -> dict[str, Any]:
    if document is None:
        return {}
    return {"case": document.get("case"), "tabs": document.get("tabs")}


def _record(
    court: str,
    source_id: str,
    fetch: PartFetch,
    archive_history: Callable[[str], Sequence[_Entry]] | None,
    reproduce: Callable[[_Entry], Mapping[str, Any] | str] | None,
) -> ArchivedRecord | None:
    if archive_history is None:
        return None
    key = request_key(court, source_id, fetch.part)
    before = [e for e in archive_history(key) if e.fetched_at <= fetch.seen_at]
    if not before:
        return None
    entry = before[-1]
    record = ArchivedRecord(
        file=entry.file,
        offset=entry.offset,
        length=entry.length,
        digest=entry.digest,
        fetched_at=entry.fetched_at,
        url=entry.url,
    )
    if reproduce is not None:
        parts = reproduce(entry)
        if isinstance(parts, str):
            record.problem = parts
        else:
            record.reproduces = parts.get(fetch.part) == fetch.data
    return record
