"""The JSON Schema of the case document, generated from the definitions the parsers type their
output with (docs/schema.md): the TypedDicts of :mod:`harvest.sipp.document` (the ``case``
part) and :class:`pipelines.store.ShippedDocument` (the document), the label tables that map a
page's row labels to keys and value kinds (:mod:`harvest.sipp.detail_page`,
:mod:`harvest.sipp.verdicts`, :mod:`harvest.sipp.tabs`), and the typed converters of the
record tabs (:mod:`harvest.sipp.record_tabs`, whose return annotations give each key's type).

Every property carries ``title`` (the Indonesian label the parser reads it from, where there
is one) and ``description`` (what it means); the data dictionary (:mod:`harvest.schema.dictionary`)
is written from this same schema. A tab's value is its parser's shape or the generic record
(``{"generic": true, "blocks": [...]}``, item format 2 only). Shapes are open
(``additionalProperties``) where a parser keeps what it does not know under new keys; every
key the tables name has its type.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import (
    Annotated,
    Any,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from harvest.sipp import document as case_types
from harvest.sipp import pailit, record_tabs, tabs, verdicts
from harvest.sipp.detail_page import _DATA_UMUM, _INFORMASI
from harvest.sipp.list_page import _COLUMNS as _LIST_COLUMNS
from pipelines.store import ShippedDocument

__all__ = ["ITEM_FORMATS", "JSONSchema", "document_schema", "schema_id"]

JSONSchema = dict[str, Any]
#: The item formats (docs/item-format.md, "Versions") a schema is published for.
ITEM_FORMATS = (1, 2)
_BASE_ID = "https://harvest.invalid/schema/case-document.v{version}.schema.json"

# -------------------------------------------------------------------------- value kinds

_NULL_TEXT = {"type": ["string", "null"]}
#: The parsers' value kinds (the second member of their label tables) as JSON Schema, with
#: what they mean. ``soft``: the detail page and record tabs keep a date or amount that does
#: not parse as the text shown (with a ``value`` parse warning), so the type admits a string.
_KINDS: dict[str, tuple[JSONSchema, str]] = {
    "date": (_NULL_TEXT, "date, ISO YYYY-MM-DD; null when the page shows ' - ' or nothing"),
    "text": (_NULL_TEXT, "text as shown, trimmed; null when empty or '-'"),
    "raw": ({"type": "string"}, "text exactly as shown, not stripped"),
    "long": (
        _NULL_TEXT,
        "long text: each paragraph / list item whitespace-collapsed, joined by newlines",
    ),
    "money": ({"type": ["integer", "null"]}, "whole rupiah (Rp. 1.234.000 -> 1234000)"),
    "soft_money": (
        {"type": ["integer", "string", "null"]},
        "whole rupiah; the text shown (with a value warning) when it is no amount",
    ),
    "lines": ({"type": "array", "items": {"type": "string"}}, "one string per line of the cell"),
    "sumber": ({"type": "array", "items": {"type": "string"}}, "the legal sources, one per line"),
    "majelis": (
        {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"jabatan": _NULL_TEXT, "nama": _NULL_TEXT},
                "required": ["jabatan", "nama"],
            },
        },
        "the panel: one {jabatan, nama} per line ('Hakim Ketua: NAME')",
    ),
    "mediator": (
        {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"nama": _NULL_TEXT, "status": _NULL_TEXT},
            },
        },
        "the mediators: {nama, status} per row of the nested table",
    ),
    "parties": (
        {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "label": {"type": "string"},
                    "nama": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["label", "nama"],
            },
        },
        "the parties: one {label, nama} per side, names in page order",
    ),
}
_OTHER_ROWS: JSONSchema = {
    "type": "array",
    "title": "(rows, columns or blocks the parser does not know)",
    "description": "kept as shown, each with a parse warning: [{label, value}] or table rows",
}


def _kind(kind: str, label: str | None) -> JSONSchema:
    schema, meaning = _KINDS[kind]
    out: JSONSchema = {**schema, "description": meaning}
    if label:
        out["title"] = label
    return out


# ------------------------------------------------------------------ Python types -> schema


def python_type_schema(hint: Any) -> JSONSchema:
    """The JSON Schema of a type annotation of parser output (TypedDicts, lists, unions)."""
    if hint is Any:
        return {}
    if hint is type(None) or hint is None:
        return {"type": "null"}
    simple = {str: "string", int: "integer", bool: "boolean", float: "number"}
    if hint in simple:
        return {"type": simple[hint]}
    if typing.is_typeddict(hint):
        return typed_dict_schema(hint)
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        members = [python_type_schema(arg) for arg in get_args(hint)]
        typenames = [m.get("type") for m in members]
        pairs = zip(typenames, members, strict=True)
        if all(isinstance(t, str) and len(m) == 1 for t, m in pairs):
            return {"type": typenames}
        return {"anyOf": members}
    if origin is list:
        (item,) = get_args(hint) or (Any,)
        return {"type": "array", "items": python_type_schema(item)}
    if origin is dict:
        return {"type": "object"}
    raise TypeError(f"no JSON Schema for the annotation {hint!r}")


#: What the members of :class:`pipelines.store.ShippedDocument` mean (docs/item-format.md).
_MEANINGS = {
    "dedupe_key": "source_type + ':' + source_id: the document's key",
    "source_type": "'sipp.' + the court id",
    "source_id": "the normalised case number",
    "content_hash": "sha256: + hex SHA-256 of the canonical JSON of the hashed members",
    "complete": "the case part and every tab it lists as available are present",
    "version": "ms since the epoch of the document's last change (ship.py, --changed-since)",
}


def typed_dict_schema(cls: Any) -> JSONSchema:
    """A TypedDict as a closed object; ``NotRequired`` keys (and those of a ``total=False``
    class) are optional. Read from the annotations, as postponed ones hide ``NotRequired``
    from ``__required_keys__``."""
    hints = get_type_hints(cls, include_extras=True)
    properties = {}
    required: list[str] = []
    for name, annotated in hints.items():
        hint = annotated
        optional = not cls.__total__
        if get_origin(annotated) is NotRequired:
            (hint,) = get_args(annotated)
            optional = True
        elif get_origin(annotated) is Required:
            (hint,) = get_args(annotated)
            optional = False
        meaning = None
        if get_origin(hint) is Annotated:
            hint, *extras = get_args(hint)
            meaning = next((x for x in extras if isinstance(x, str)), None)
        if not optional:
            required.append(name)
        properties[name] = python_type_schema(hint)
        if meaning:
            properties[name]["description"] = meaning
        elif name in _MEANINGS and cls is ShippedDocument:
            properties[name]["description"] = _MEANINGS[name]
        if name == case_types.OTHER_KEY:
            properties[name] = {**properties[name], **_OTHER_ROWS, "type": "array"}
    out: JSONSchema = {"type": "object", "properties": properties}
    if required:
        out["required"] = sorted(required)
    out["additionalProperties"] = False
    if cls.__doc__:
        out["description"] = " ".join(cls.__doc__.split())
    return out


def _converter_schema(converter: Callable[..., Any], label: str) -> JSONSchema:
    """A record-tab converter's return annotation as the key's schema."""
    hint = get_type_hints(converter).get("return", Any)
    schema = python_type_schema(hint)
    if converter is record_tabs.soft_date:
        schema = {**_KINDS["date"][0], "description": _KINDS["date"][1] + _SOFT}
    elif converter.__doc__:
        schema["description"] = " ".join(converter.__doc__.split()).split(". ")[0]
    schema["title"] = label
    return schema


_SOFT = "; the text shown (with a value warning) when it is no date"


# ------------------------------------------------------------------------ label tables


def _labelled(table: Mapping[str, tuple[str | None, Any]]) -> dict[str, list[str]]:
    """key -> the labels (lower case, as the parser matches them) it is read from."""
    out: dict[str, list[str]] = {}
    for label, (key, _) in table.items():
        if key:
            out.setdefault(key, []).append(label)
    return out


def _title(labels: Iterable[str]) -> str:
    return " | ".join(labels)


def kind_properties(
    table: Mapping[str, tuple[str, str]], kind_map: Mapping[str, str] | None = None
) -> dict[str, JSONSchema]:
    """Properties of a ``label -> (key, kind)`` table; ``kind_map`` renames kinds."""
    labels = _labelled(table)
    out: dict[str, JSONSchema] = {}
    for key, kind in table.values():
        if not key or key in out or kind in ("skip", "link", "days"):
            continue
        kind = (kind_map or {}).get(kind, kind)
        if kind not in _KINDS:
            continue
        out[key] = _kind(kind, _title(labels[key]))
    return out


def converter_properties(table: Mapping[str, tuple[str, Any]]) -> dict[str, JSONSchema]:
    labels = _labelled(table)
    out: dict[str, JSONSchema] = {}
    for key, converter in table.values():
        if key and key not in out:
            out[key] = _converter_schema(converter, _title(labels[key]))
    return out


def column_properties(columns: Mapping[str, Any]) -> dict[str, JSONSchema]:
    """Properties of a ``column -> key`` table: ``tanggal*`` keys are dates, others text."""
    out: dict[str, JSONSchema] = {}
    labels: dict[str, list[str]] = {}
    for column, key in columns.items():
        if isinstance(key, str):
            labels.setdefault(key, []).append(column)
    for key, names in labels.items():
        kind = "date" if key.startswith("tanggal") else "text"
        out[key] = _kind(kind, _title(names))
    return out


def _object(properties: dict[str, JSONSchema], description: str = "") -> JSONSchema:
    out: JSONSchema = {
        "type": "object",
        "properties": {**properties, case_types.OTHER_KEY: _OTHER_ROWS},
    }
    if description:
        out["description"] = description
    return out


def _records(properties: dict[str, JSONSchema], description: str) -> JSONSchema:
    return {"type": "array", "description": description, "items": _object(properties)}


# ------------------------------------------------------------------------ the case part


def case_schema() -> JSONSchema:
    """The ``case`` part: the TypedDicts, ``data_umum`` from the Data Umum label table."""
    schema = typed_dict_schema(case_types.CaseData)
    data_umum = kind_properties(_DATA_UMUM, {"money": "soft_money"})
    for key, value in data_umum.items():
        if value["description"].startswith("date"):
            data_umum[key] = {**value, "description": value["description"] + _SOFT}
    data_umum["informasi"] = {
        **_object(kind_properties(_INFORMASI)),
        "title": "informasi",
        "description": "the military court's Informasi grid (label | value | label | value)",
    }
    data_umum["pihak"] = {
        "type": "array",
        "title": "(party rows: Penggugat, Tergugat, Terdakwa, ...)",
        "description": "the party rows in page order: {label, nama}; names of natural persons",
        "items": typed_dict_schema(case_types.PartyEntry),
    }
    data_umum["kuasa"] = {
        "type": "array",
        "title": "(lawyer rows: Kuasa Hukum, Penasihat Hukum, ...)",
        "description": "the lawyer rows in page order: {label, rows: [{nama, nama_pihak}]}",
        "items": typed_dict_schema(case_types.KuasaEntry),
    }
    data_umum[case_types.OTHER_KEY] = _OTHER_ROWS
    schema["properties"]["data_umum"] = {
        "type": "object",
        "title": "Data Umum",
        "description": "the Data Umum rows (which depend on the flow and court type)",
        "properties": data_umum,
        "additionalProperties": False,
    }
    list_row = schema["properties"]["list_row"]
    row_props = kind_properties(_LIST_COLUMNS)
    for alternative in list_row["anyOf"]:
        if alternative.get("type") == "object":
            for key, value in row_props.items():
                if key in alternative["properties"]:
                    alternative["properties"][key] = value
    return schema


# ------------------------------------------------------------------------------- the tabs


def _section_object(
    sections: Mapping[str, tuple[str, Mapping[str, tuple[str, str]]]],
) -> dict[str, JSONSchema]:
    out: dict[str, JSONSchema] = {}
    for heading, (key, table) in sections.items():
        out[key] = {**_object(kind_properties(table)), "title": heading}
    return out


def _eksekusi() -> JSONSchema:
    sections = _section_object(verdicts._EKSEKUSI_SECTIONS)
    sections["permohonan"] = _records(
        column_properties(verdicts._EKSEKUSI_PERMOHONAN), "DATA PERMOHONAN EKSEKUSI"
    )
    sections["para_pihak"] = _records(
        {"nama": _kind("text", "nama"), "status": _kind("text", "status")},
        "STATUS PARA PIHAK",
    )
    return _object(sections, "the execution sections (perkara_tab/detil_eksekusi.php)")


def _party_list(description: str) -> JSONSchema:
    return _records(column_properties(verdicts._PARTY_COLUMNS), description)


def _putusan() -> JSONSchema:
    props = kind_properties(verdicts._PUTUSAN_LABELS)
    props["tanggal_putusan"] = _kind("date", "tanggal putusan | tanggal penetapan")
    props["tanggal_label"] = _kind("raw", None) | {"description": "the date row's label as shown"}
    props["amar_putusan"] = _kind("long", _title(sorted(verdicts._AMAR_LABELS)))
    props["amar_label"] = _kind("raw", None) | {"description": "the amar row's label as shown"}
    props["status_putusan"] = _kind("text", "status putusan")
    props["status_putusan_terdakwa"] = {
        "type": "array",
        "title": "status putusan",
        "description": "criminal verdicts: one {nama, status, putusan} per defendant",
    }
    for key in dict.fromkeys(verdicts._PUTUSAN_PARTY_ROWS.values()):
        labels = [k for k, v in verdicts._PUTUSAN_PARTY_ROWS.items() if v == key]
        props[key] = _party_list("per-party notification table") | {"title": _title(labels)}
    return _object(props, "the final verdict (perkara_tab/putusan_akhir.php); {} before one")


def _appeal(slug: str) -> JSONSchema:
    props = kind_properties(verdicts._APPEAL_LABELS)
    for heading, key in verdicts._APPEAL_PARTY_SECTIONS.items():
        props.setdefault(key, _party_list("per-party table") | {"title": heading})
    props["mediasi"] = _object(kind_properties(verdicts._MEDIASI_LABELS)) | {
        "title": "data mediasi"
    }
    return _object(props, f"the {slug} appeal (perkara_tab/detil_{slug}.php); {{}} before one")


def _record_spec(spec: record_tabs.RecordSpec) -> dict[str, JSONSchema]:
    props = converter_properties(spec.labels)
    for pattern, key in spec.heading_fields:
        props[key] = {
            "type": ["string", "integer"],
            "title": pattern,
            "description": "read from the block heading",
        }
    return props


def _sections_spec(spec: record_tabs.SectionSpec) -> JSONSchema:
    labels = converter_properties(spec.labels)
    props: dict[str, JSONSchema] = {}
    for heading, (key, columns) in spec.sections.items():
        item = column_properties(columns) if columns else labels
        props[key] = _records(item, heading) | {"title": heading}
    return _object(props, "headed sections, each a list in page order")


_GENERIC: JSONSchema = {
    "type": "object",
    "description": "a tab kept generically: every text and table in page order",
    "properties": {
        "generic": {"const": True},
        "blocks": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "rows": {"type": "array", "items": {"type": "array"}},
                },
            },
        },
    },
    "required": ["generic", "blocks"],
    "additionalProperties": False,
}


_PAILIT_SUB_PAGE: JSONSchema = {
    "type": "object",
    "description": "a bankruptcy follow-up sub page (pasca_pailit/sub_<x>.php), fetched from "
    "the setelah_putusan_pernyataan_pailit menu: one block per data table, page order (none "
    "for the views that print no data)",
    "properties": {
        "blocks": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "headings": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "the green titles printed since the previous table",
                    },
                    "columns": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "the header row's labels as printed",
                    },
                    "records": {
                        "type": "array",
                        "description": "one object per row, keyed by column label: Tanggal* "
                        "columns as ISO dates (null for -), Aktif as a boolean, other cells "
                        "as printed (null when empty)",
                        "items": {
                            "type": "object",
                            "additionalProperties": {"type": ["string", "boolean", "null"]},
                        },
                    },
                    "message": {
                        "type": ["string", "null"],
                        "description": "BELUM DITETAPKAN / BELUM ADA DATA when the view "
                        "printed it instead of records",
                    },
                },
                "required": ["headings", "columns", "records", "message"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["blocks"],
    "additionalProperties": False,
}


def tab_schemas() -> dict[str, JSONSchema]:
    """Slug -> the schema of its parser's output (before the generic alternative)."""
    out: dict[str, JSONSchema] = {}
    for slug, parser in tabs.TAB_PARSERS.items():
        out[slug] = _container(parser, slug)
    specs: dict[str, record_tabs.RecordSpec] = {
        "mediasi": record_tabs.MEDIASI,
        "mediasi_luar": record_tabs.MEDIASI_LUAR,
        "verzet": record_tabs.VERZET,
        "ikrar_talak": record_tabs.IKRAR_TALAK,
        "keberatan": record_tabs.KEBERATAN,
        "dismissal": record_tabs.DISMISSAL,
        "penetapan_gugur": record_tabs.PENETAPAN_GUGUR,
        "intervensi": record_tabs.INTERVENSI,
        "rekonvensi": record_tabs.REKONVENSI,
        "perbaikan_gugatan": record_tabs.PERBAIKAN_GUGATAN,
        "diversi": record_tabs.DIVERSI,
    }
    for slug, spec in specs.items():
        out[slug] = _records(_record_spec(spec), f"the {slug} records, page order")
    verzet = _record_spec(record_tabs.VERZET)
    verzet["mediasi_lain"] = {
        "type": "array",
        "title": "data mediasi (further rows of the join)",
        "description": "the mediation rows after the first of verzet_m.php's join with "
        "mediasiweb (every stage), page order; absent when the view printed one",
        "items": {
            "type": "object",
            "properties": {k: verzet[k] for k in record_tabs.VERZET_MEDIASI_FIELDS},
        },
    }
    out["verzet"] = _records(verzet, "the verzet records, page order (one per verzetweb row)")
    out["pen_persiapan"] = _object(
        _record_spec(record_tabs.PEN_PERSIAPAN), "pemeriksaan persiapan"
    )
    out["we_kppu"] = _object(_record_spec(record_tabs.WE_KPPU), "Kewenangan KPPU")
    out["pkpu_tetap"] = _sections_spec(record_tabs.PKPU_TETAP)
    out["rencana_perdamaian"] = _sections_spec(record_tabs.RENCANA_PERDAMAIAN)
    out["putusan"] = _putusan()
    for slug in ("banding", "kasasi", "pk"):
        out[slug] = _appeal(slug)
    out["putusan_sela"] = _object(kind_properties(verdicts._SELA_LABELS), "interim verdict")
    out["grasi"] = _object(kind_properties(verdicts._GRASI_LABELS), "clemency request")
    out["eksekusi"] = _eksekusi()
    out["barang_bukti"] = _records(
        column_properties(tabs._BARANG_BUKTI_LABELS), "the evidence, one per table"
    )
    penetapan_item = column_properties(tabs._PENETAPAN_COLUMNS)
    out["penetapan"] = _object(
        {
            key: _records(penetapan_item, heading) | {"title": heading}
            for heading, key in tabs._PENETAPAN_BLOCKS.items()
        },
        "the appointment blocks; a block printing BELUM DITETAPKAN is []",
    )
    out["riwayat_perkara"] = _records(
        {
            "tanggal": _kind("date", "tanggal"),
            "tahapan": _kind("text", "tahapan"),
            "proses": _kind("text", "proses"),
        },
        "the case history, page order",
    )
    out["saksi"] = out["saksi"] | {"description": "the witnesses' names, page order"}
    return out


def _container(parser: Callable[..., Any], slug: str) -> JSONSchema:
    """The outer shape from the parser's return annotation (a list or an object)."""
    try:
        hint = get_type_hints(parser).get("return", Any)
    except (NameError, TypeError):
        hint = Any
    if hint is Any:
        return {"type": ["object", "array"], "description": f"the {slug} tab"}
    return python_type_schema(hint) | {"description": f"the {slug} tab"}


# ------------------------------------------------------------------------- the document


def schema_id(version: int) -> str:
    return _BASE_ID.format(version=version)


def document_schema(version: int) -> JSONSchema:
    """The JSON Schema (draft 2020-12) of a case document of item format ``version``."""
    if version not in ITEM_FORMATS:
        raise ValueError(f"no item format {version}; known: {ITEM_FORMATS}")
    envelope = typed_dict_schema(ShippedDocument)
    props = envelope["properties"]
    props["schema_version"] = {
        "const": version,
        "description": "the item format (docs/item-format.md, Versions)",
    }
    props["content_hash"] = {
        "type": "string",
        "pattern": "^sha256:[0-9a-f]{64}$",
        "description": _MEANINGS["content_hash"],
    }
    props["version"] = {"type": "integer", "minimum": 1, "description": _MEANINGS["version"]}
    props["case"] = {"anyOf": [{"$ref": "#/$defs/case"}, {"type": "null"}]}
    tab_defs = tab_schemas()
    tab_props: dict[str, JSONSchema] = {}
    for slug in sorted(tab_defs):
        ref = {"$ref": f"#/$defs/tab_{slug}"}
        tab_props[slug] = {"anyOf": [ref, {"$ref": "#/$defs/generic"}]} if version >= 2 else ref
    props["tabs"] = {
        "type": "object",
        "description": "tab slug -> that tab part's data, for every tab part stored",
        "properties": tab_props,
        "additionalProperties": {"$ref": "#/$defs/generic"} if version >= 2 else True,
    }
    defs: dict[str, JSONSchema] = {"case": case_schema()}
    if version >= 2:
        defs["generic"] = _GENERIC
        # the bankruptcy follow-up sub pages, one part each (tab:pailit-sub_<x>)
        props["tabs"]["patternProperties"] = {
            f"^{pailit.SUB_SLUG_PREFIX}sub_[a-z]+$": {"$ref": "#/$defs/pailit_sub_page"}
        }
        defs["pailit_sub_page"] = _PAILIT_SUB_PAGE
    for slug, schema in sorted(tab_defs.items()):
        defs[f"tab_{slug}"] = schema
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id(version),
        "title": f"harvest case document, item format {version}",
        "description": (
            "Generated by `python -m harvest.schema` from the parsers' type definitions and "
            "label tables; do not edit (docs/schema.md)."
        ),
        **envelope,
        "$defs": defs,
    }
