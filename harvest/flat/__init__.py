"""Flat tables of the case documents (docs/export.md): :mod:`harvest.flat.tables` flattens,
:mod:`harvest.flat.writers` writes Parquet (pyarrow) or CSV."""
