"""Write the flat tables (:mod:`harvest.flat.tables`) of a stream of documents as one file per
table in a directory: ``<table>.parquet`` (pyarrow, typed columns, written in row groups so
memory stays bounded) or ``<table>.csv`` (UTF-8, header row, RFC 4180 quoting; an empty cell is
null). Each file is written beside its name and renamed over it when complete."""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from harvest.base.canonical import canonical_json
from harvest.flat.tables import TABLES, Table, flatten

__all__ = ["FORMATS", "write_tables"]

FORMATS = ("parquet", "csv")
#: Rows buffered per table before a Parquet row group is written.
BATCH_ROWS = 10_000


def _coerce(value: Any, kind: str) -> Any:
    """A value of the column's type, or None (a date or amount the page showed as text stays
    in the document and in the row's JSON column)."""
    if value is None:
        return None
    if kind == "int64":
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if kind == "bool":
        return value if isinstance(value, bool) else None
    return value if isinstance(value, str) else canonical_json(value)


class _Sink(Protocol):
    def add(self, row: Mapping[str, Any]) -> None: ...

    def close(self) -> None: ...

    def abort(self) -> None: ...


class _ParquetSink:
    def __init__(self, table: Table, path: Path) -> None:
        self.table, self.path = table, path
        self.part = path.with_name(f".{path.name}.part")
        # imported here, by a Parquet export only (pyarrow: 67 MiB and ~0.1 s a process; every
        # ``scrapy`` process imports this module, with the export command)
        import pyarrow as pa
        import pyarrow.parquet as pq

        arrow = {"string": pa.string(), "int64": pa.int64(), "bool": pa.bool_()}
        self.schema = pa.schema([(c.name, arrow[c.type]) for c in table.columns])
        self.writer = pq.ParquetWriter(str(self.part), self.schema, compression="zstd")
        self.rows: list[Mapping[str, Any]] = []

    def add(self, row: Mapping[str, Any]) -> None:
        self.rows.append(row)
        if len(self.rows) >= BATCH_ROWS:
            self._flush()

    def _flush(self) -> None:
        columns = {
            c.name: [_coerce(r.get(c.name), c.type) for r in self.rows] for c in self.table.columns
        }
        import pyarrow as pa

        self.writer.write_table(pa.table(columns, schema=self.schema))
        self.rows = []

    def close(self) -> None:
        self._flush()
        self.writer.close()
        os.replace(self.part, self.path)

    def abort(self) -> None:
        self.writer.close()
        self.part.unlink(missing_ok=True)


class _CsvSink:
    def __init__(self, table: Table, path: Path) -> None:
        self.table, self.path = table, path
        self.part = path.with_name(f".{path.name}.part")
        self.file = open(self.part, "w", encoding="utf-8", newline="")  # noqa: SIM115
        self.writer = csv.writer(self.file)
        self.writer.writerow(table.names)

    def add(self, row: Mapping[str, Any]) -> None:
        values = []
        for column in self.table.columns:
            value = _coerce(row.get(column.name), column.type)
            values.append(
                "" if value is None else str(value).lower() if column.type == "bool" else value
            )
        self.writer.writerow(values)

    def close(self) -> None:
        self.file.close()
        os.replace(self.part, self.path)

    def abort(self) -> None:
        self.file.close()
        self.part.unlink(missing_ok=True)


def write_tables(
    documents: Iterable[Mapping[str, Any]], directory: Path, fmt: str
) -> dict[str, int]:
    """Write every table of ``documents`` into ``directory`` (created); rows per table."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    directory.mkdir(parents=True, exist_ok=True)
    sink_class = _ParquetSink if fmt == "parquet" else _CsvSink
    sinks: dict[str, _Sink] = {}
    counts = dict.fromkeys(TABLES, 0)
    try:
        for name, table in TABLES.items():
            sinks[name] = sink_class(table, directory / f"{name}.{fmt}")
        for document in documents:
            for name, row in flatten(document):
                sinks[name].add(row)
                counts[name] += 1
        for sink in sinks.values():
            sink.close()
    except BaseException:
        for sink in sinks.values():
            sink.abort()
        raise
    return counts
