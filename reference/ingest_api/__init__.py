"""The reference ingest API: a small, production-shaped implementation of the ingest contract
(docs/shipping.md).

It is the *outside party* ``ship.py`` talks to in tests, benchmarks and the offline demo:
``POST /items`` upserts one case document on its ``dedupe_key`` in one atomic SQLite statement
and says ``created`` / ``unchanged`` / ``updated``; bearer tokens; a body size limit; RFC 9457
problem+json errors; ``GET /items/{key}``; ``GET /healthz``; ``GET /stats`` (request counters);
and switchable faults (500, 503 + Retry-After, slow answers, commit-then-drop-the-connection).

Run it with ``python -m reference.ingest_api --port 8900 --token T --db PATH [--faults RATE]``.
"""

from __future__ import annotations

from reference.ingest_api.app import create_app
from reference.ingest_api.config import Faults, ServerConfig

__all__ = ["Faults", "ServerConfig", "create_app"]
