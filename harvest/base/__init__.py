"""The base modules: what every other part of harvest builds on, importing nothing of it.

Clock, identity and keys, canonical JSON and hashes, request meta keys, the item types, the
workspace, the holder lock, liveness of a lease's process, the database URL, close reasons,
secret scrubbing and the settings error. A base module imports only other base modules, the
standard library and plain libraries: no Scrapy, no Twisted, nothing of harvest above it, so the
shipper, the stores, the parsers and the replica's tools can all use it (``lint-imports``: the
"base modules" contract and the layers contracts in pyproject.toml).
"""
