"""The Starlette application of the reference ingest API (routes, auth, limits, faults).

Routes: ``POST /items`` (upsert one case document), ``GET /items/{key}`` (read it back; the key
URL-encoded), ``GET /healthz`` and ``GET /stats`` (request counters, so tests can prove that a
client sent nothing). Errors are RFC 9457 ``application/problem+json`` with a stable ``type``.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import random
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from reference.ingest_api.config import ServerConfig
from reference.ingest_api.database import DatabaseBusy, ItemDatabase
from reference.ingest_api.schema import DocumentSchemas
from reference.ingest_api.validation import BadJSON, parse_body, validate_document

logger = logging.getLogger(__name__)

#: ASGI scope extension under which the server protocol exposes the connection's transport.
TRANSPORT_EXTENSION = "harvest.transport"
_DROPPED_SCOPE_KEY = "harvest.dropped"
PROBLEM_MEDIA_TYPE = "application/problem+json"
_REALM = 'Bearer realm="ingest"'


@dataclass
class Stats:
    """Counters served by ``GET /stats`` (which itself is not counted)."""

    requests: int = 0
    posts: int = 0
    results: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "posts": self.posts,
            "results": dict(self.results),
            "statuses": dict(self.statuses),
            "faults": dict(self.faults),
        }


def problem(
    status: int,
    slug: str,
    title: str,
    detail: str,
    *,
    headers: dict[str, str] | None = None,
    **extensions: Any,
) -> JSONResponse:
    """An RFC 9457 problem response with ``type`` = ``/problems/<slug>``."""
    body: dict[str, Any] = {
        "type": f"/problems/{slug}",
        "title": title,
        "status": status,
        "detail": detail,
    }
    body.update(extensions)
    return JSONResponse(body, status_code=status, headers=headers, media_type=PROBLEM_MEDIA_TYPE)


class _CountingMiddleware:
    """Counts every HTTP request except ``GET /stats`` and every answer status."""

    def __init__(self, app: ASGIApp, stats: Stats) -> None:
        self.app = app
        self.stats = stats

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] == "/stats":
            await self.app(scope, receive, send)
            return
        self.stats.requests += 1

        async def counting_send(message: Any) -> None:
            if message["type"] == "http.response.start":
                dropped = scope.get(_DROPPED_SCOPE_KEY, False)
                self.stats.statuses["dropped" if dropped else str(message["status"])] += 1
            await send(message)

        await self.app(scope, receive, counting_send)


class IngestAPI:
    """The endpoints, bound to one configuration, database and fault generator."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.schemas = DocumentSchemas(config.schema_dir) if config.schema_dir else None
        self.db = ItemDatabase(config.db_path)
        self.stats = Stats()
        self._rng = random.Random(config.faults.seed)
        self._held = 0

    # -- auth -------------------------------------------------------------------------------
    def _authorise(self, request: Request, *, write: bool) -> Response | None:
        """``None`` when the bearer token may do this, else the RFC 6750 401/403 answer."""
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return problem(
                401,
                "unauthorized",
                "Missing credentials",
                "send Authorization: Bearer <token>",
                headers={"WWW-Authenticate": _REALM},
            )
        token = token.strip()
        writer = any(hmac.compare_digest(token, t) for t in self.config.tokens)
        reader = any(hmac.compare_digest(token, t) for t in self.config.read_tokens)
        if not (writer or reader):
            return problem(
                401,
                "invalid-token",
                "Invalid token",
                "the bearer token is not valid for this ingest API",
                headers={"WWW-Authenticate": f'{_REALM}, error="invalid_token"'},
            )
        if write and not writer:
            return problem(
                403,
                "insufficient-scope",
                "Insufficient scope",
                "this token may read items but not ingest them",
                headers={"WWW-Authenticate": f'{_REALM}, error="insufficient_scope"'},
            )
        return None

    # -- helpers ----------------------------------------------------------------------------
    async def _read_body(self, request: Request) -> bytes | None:
        """The body, or ``None`` once it exceeds ``max_body_bytes`` (declared or streamed)."""
        limit = self.config.max_body_bytes
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            return None
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
        return b"".join(chunks)

    def _pick_fault(self) -> str | None:
        faults = self.config.faults
        if faults.total <= 0:
            return None
        r = self._rng.random()
        for kind, rate in (
            ("500", faults.error_500),
            ("503", faults.unavailable_503),
            ("slow", faults.slow),
            ("drop", faults.drop),
        ):
            if r < rate:
                return kind
            r -= rate
        return None

    # -- endpoints --------------------------------------------------------------------------
    async def post_item(self, request: Request) -> Response:
        self.stats.posts += 1
        denied = self._authorise(request, write=True)
        if denied is not None:
            return denied
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            return problem(
                415,
                "unsupported-media-type",
                "Unsupported media type",
                f"send Content-Type: application/json (got {ctype or 'none'!r})",
            )
        body = await self._read_body(request)
        if body is None:
            return problem(
                413,
                "too-large",
                "Content too large",
                f"an item may be at most {self.config.max_body_bytes} bytes",
            )
        fault = self._pick_fault()
        if fault is not None:
            self.stats.faults[fault] += 1
        if fault == "500":
            return problem(500, "server-fault", "Injected server fault", "fault injection: 500")
        if fault == "503":
            retry_after = str(self.config.faults.retry_after)
            return problem(
                503,
                "unavailable",
                "Service unavailable",
                "fault injection: 503, retry later",
                headers={"Retry-After": retry_after},
            )
        if fault == "slow":
            await asyncio.sleep(self.config.faults.slow_seconds)
        try:
            document = parse_body(body)
        except BadJSON as exc:
            return problem(400, "bad-json", "Malformed JSON", str(exc))
        errors = validate_document(document)
        if errors:
            return problem(
                422,
                "invalid-item",
                "Invalid item",
                f"{len(errors)} member(s) of the document are invalid",
                errors=errors,
            )
        if self.schemas is not None:
            mismatches = self.schemas.problems(document)
            if mismatches:
                version = document["schema_version"]
                first = mismatches[0]
                return problem(
                    422,
                    "schema-mismatch",
                    "Document does not match the case-document schema",
                    f"{len(mismatches)} field(s) do not match "
                    f"{self.schemas.file_of(version)}; first: {first['pointer']}: "
                    f"{first['detail']}",
                    errors=mismatches,
                )
        if self._held < self.config.hold_first:
            self._held += 1
            await self._hold(document["dedupe_key"])
        try:
            result, version = await run_in_threadpool(
                self.db.upsert, document, idempotency_key=request.headers.get("idempotency-key")
            )
        except DatabaseBusy as exc:
            logger.warning("answering 503: %s", exc)
            return problem(
                503,
                "busy",
                "Database busy",
                "the store is busy, retry later",
                headers={"Retry-After": "1"},
            )
        self.stats.results[result] += 1
        key = document["dedupe_key"]
        if fault == "drop":
            await self._drop_connection(request)
        payload: dict[str, Any] = {
            "key": key,
            "result": result,
            "version": version,
            "content_hash": document["content_hash"],
        }
        if result == "stale":
            row = await run_in_threadpool(self.db.get, key)
            if row is not None:
                payload["current_version"] = row["source_version"]
                payload["current_content_hash"] = row["content_hash"]
        if result == "created":
            location = "/items/" + quote(key, safe="")
            return JSONResponse(payload, status_code=201, headers={"Location": location})
        return JSONResponse(payload, status_code=200)

    async def _hold(self, key: str) -> None:
        """Wait until the ``--hold-release`` file exists (a request held on the server)."""
        release = self.config.hold_release
        assert release is not None
        logger.warning("holding the POST of %s until %s exists", key, release)
        while not await run_in_threadpool(release.exists):
            await asyncio.sleep(0.05)
        logger.warning("released the POST of %s", key)

    async def _drop_connection(self, request: Request) -> None:
        """Abort the TCP connection after the commit: the client never gets an answer."""
        transport = request.scope.get("extensions", {}).get(TRANSPORT_EXTENSION)
        if transport is None:
            raise RuntimeError(
                "the drop fault needs the transport exposed by reference.ingest_api's uvicorn "
                "protocol; run the server with python -m reference.ingest_api"
            )
        request.scope[_DROPPED_SCOPE_KEY] = True
        transport.abort()
        # Let connection_lost run, so that uvicorn discards the answer instead of writing it.
        for _ in range(3):
            await asyncio.sleep(0)

    async def get_item(self, request: Request) -> Response:
        denied = self._authorise(request, write=False)
        if denied is not None:
            return denied
        key = request.path_params["key"]
        row = await run_in_threadpool(self.db.get, key)
        if row is None:
            return problem(404, "not-found", "No such item", f"no item has dedupe_key {key!r}")
        return JSONResponse(row, headers={"ETag": f'"{row["content_hash"]}"'})

    async def healthz(self, request: Request) -> Response:
        try:
            await run_in_threadpool(self.db.ping)
        except sqlite3.Error as exc:
            return problem(503, "unhealthy", "Unhealthy", f"database check failed: {exc}")
        return JSONResponse({"status": "ok"})

    async def stats_endpoint(self, request: Request) -> Response:
        return JSONResponse(self.stats.as_dict())


def create_app(config: ServerConfig) -> ASGIApp:
    """The ASGI application serving ``config`` (the database is created if missing)."""
    api = IngestAPI(config)
    app = Starlette(
        routes=[
            Route("/items", api.post_item, methods=["POST"]),
            Route("/items/{key:path}", api.get_item, methods=["GET"]),
            Route("/healthz", api.healthz, methods=["GET"]),
            Route("/stats", api.stats_endpoint, methods=["GET"]),
        ]
    )
    app.state.api = api
    return _CountingMiddleware(app, api.stats)
