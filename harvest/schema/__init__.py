"""The case document as a contract: its JSON Schema per item format and its data dictionary
(docs/schema.md). :mod:`harvest.schema.generate` builds them from the parsers' definitions;
:mod:`harvest.schema.published` reads the published files (without the parsers)."""
