"""The run loop: each document through its attempts to a final outcome, sequentially or over N
kept-alive connections at once, with the run-level guards (breaker, endpoints, stop).

:func:`ship` works over injected collaborators (transports, the ship-log writer, sleep, clocks,
the random source), so the attempt loop is tested deterministically without sleeping. With
``concurrency`` 1 it runs in the calling thread; with N > 1, N worker threads (one transport,
so one kept-alive connection, each) take documents from a bounded queue that the calling
thread fills from the store; a key is never in flight twice. Each request is retried, waits out
``Retry-After``, fails over and counts toward the breaker exactly as in a sequential run.
:func:`plan` is the dry run.
"""

from __future__ import annotations

import logging
import queue
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import IO, Any

from harvest.base.clock import format_utc
from harvest.schema.published import document_schema_problems
from harvest.shipping.documents import document_problems, encode, idempotency_key
from harvest.shipping.endpoints import TOKEN_ENV, EndpointPool
from harvest.shipping.errors import (
    AuthError,
    BreakerOpen,
    ConfigError,
    EndpointUnusable,
    Interrupted,
    Outcome,
    RetryAfterTooLong,
    Scrubber,
    ShipError,
    ShipLogError,
)
from harvest.shipping.policy import (
    Breaker,
    Kind,
    RetryPolicy,
    Verdict,
    classify,
    parse_retry_after,
)
from harvest.shipping.progress import Summary
from harvest.shipping.shiplog import ShipLog, ShippedIndex
from harvest.shipping.transport import Transport, TransportError

__all__ = ["DEFAULT_CONCURRENCY", "Plan", "plan", "ship"]

logger = logging.getLogger(__name__)

DEFAULT_CONCURRENCY = 4
USER_AGENT = "harvest-ship/1"


@dataclass
class _InFlight:
    content_hash: str
    attempt: int = 0
    endpoint: str | None = None
    started: float = 0.0


class _Run:
    """What every document of one run shares: the log, the policy, the endpoints, the counts."""

    def __init__(
        self,
        *,
        log: ShipLog,
        policy: RetryPolicy,
        endpoints: EndpointPool,
        summary: Summary,
        sleep: Callable[[float], None],
        clock: Callable[[], float],
        now: Callable[[], float],
        rng: random.Random,
        scrub: Scrubber,
        progress: Callable[[Summary], None] | None,
    ) -> None:
        self.log = log
        self.policy = policy
        self.endpoints = endpoints
        self.summary = summary
        self.sleep = sleep
        self.clock = clock
        self.now = now
        self.rng = rng
        self.scrub = scrub
        self.progress = progress
        self.breaker = Breaker(policy.breaker)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.in_flight: dict[str, _InFlight] = {}
        self.idle = threading.Condition(self.lock)

    def count(self, name: str, n: int = 1) -> None:
        with self.lock:
            setattr(self.summary, name, getattr(self.summary, name) + n)

    def record(
        self,
        *,
        key: str,
        content_hash: str,
        attempt: int,
        endpoint: str | None,
        outcome: Outcome,
        final: bool,
        status: int | None = None,
        result: str | None = None,
        error: str | None = None,
        ms: int = 0,
        retry_in_ms: int | None = None,
        sealed: bool = False,
    ) -> None:
        # Member order is fixed: read_ship_log's fast path relies on it (final, key,
        # content_hash, outcome first).
        line: dict[str, Any] = {
            "final": final,
            "key": key,
            "content_hash": content_hash,
            "outcome": outcome.value,
            "time": format_utc(self.now()),
            "attempt": attempt,
            "endpoint": endpoint,
            "status": status,
            "result": result,
            "error": self.scrub.clip(error),
            "ms": ms,
        }
        if retry_in_ms is not None:
            line["retry_in_ms"] = retry_in_ms
        if sealed:
            self.log.write_sealed(line)
        else:
            self.log.write(line, sync=final)

    def abort_in_flight(self, reason: str) -> None:
        """Seal the log and give every document still in flight its ``aborted`` line."""
        self.stop.set()
        self.log.seal()
        with self.lock:
            pending = sorted(self.in_flight.items())
            self.in_flight.clear()
        for key, flight in pending:
            if not flight.attempt:
                continue  # queued, never sent: it stays pending without a line
            try:
                self.record(
                    key=key,
                    content_hash=flight.content_hash,
                    attempt=flight.attempt,
                    endpoint=flight.endpoint,
                    outcome=Outcome.ABORTED,
                    final=True,
                    error=reason,
                    ms=int((self.clock() - flight.started) * 1000) if flight.started else 0,
                    sealed=True,
                )
            except ShipLogError:
                return  # the log cannot be written: the error that stops the run says so


_Prepared = tuple[str, str, bytes, dict[str, str]]


def _prepare(run: _Run, document: Mapping[str, Any]) -> _Prepared | None:
    """Check and encode a document: ``(key, hash, body, headers)``, or ``None`` when it is
    invalid (then it has its final ``rejected`` line, ``endpoint: null``, and is not sent)."""
    key: str = document["dedupe_key"]
    content_hash: str = document["content_hash"]
    problems = document_problems(document)
    if problems:
        invalid = "invalid before sending: " + "; ".join(problems)
        logger.warning("rejected %s: %s", key, invalid)
        run.record(
            key=key,
            content_hash=content_hash,
            attempt=0,
            endpoint=None,
            outcome=Outcome.REJECTED,
            final=True,
            error=invalid,
        )
        run.count("rejected")
        return None
    headers = {
        "Content-Type": "application/json",
        "Idempotency-Key": idempotency_key(key, content_hash),
        "User-Agent": USER_AGENT,
    }
    return key, content_hash, encode(document), headers


class _Shipper:
    """The attempt loop of one document, over one transport (one kept-alive connection)."""

    def __init__(self, run: _Run, transport: Transport) -> None:
        self.run = run
        self.transport = transport

    def send(self, document: Mapping[str, Any]) -> Outcome:
        """POST one document until a final outcome; raises to stop the whole run."""
        prepared = _prepare(self.run, document)
        if prepared is None:
            return Outcome.REJECTED
        return self.deliver(prepared)

    def deliver(self, prepared: _Prepared) -> Outcome:
        """The attempt loop of a prepared document."""
        run = self.run
        key, content_hash, body, headers = prepared
        flight = run.in_flight.get(key) or _InFlight(content_hash)
        started = run.clock()
        attempt = 0
        retry_no = 0
        while True:
            if run.stop.is_set():
                return Outcome.ABORTED  # the stopping side writes the aborted lines
            attempt += 1
            endpoint = run.endpoints.current
            flight.attempt, flight.endpoint, flight.started = attempt, endpoint, run.clock()
            status: int | None = None
            failover_now = False
            t0 = run.clock()
            run.count("attempts")
            try:
                answer = self.transport.post(endpoint + "/items", body, headers)
            except TransportError as exc:
                verdict = Verdict(Kind.RETRY, error=str(exc))
                if exc.connect:
                    failover_now = run.endpoints.unreachable(endpoint)
            except (KeyboardInterrupt, Interrupted):
                run.record(
                    key=key,
                    content_hash=content_hash,
                    attempt=attempt,
                    endpoint=endpoint,
                    outcome=Outcome.ABORTED,
                    final=True,
                    error="interrupted while sending",
                    ms=int((run.clock() - t0) * 1000),
                )
                raise
            else:
                status = answer.status
                run.endpoints.answered(endpoint)
                verdict = classify(answer, key=key, content_hash=content_hash)
            error = run.scrub(verdict.error) if verdict.error is not None else None
            ms = int((run.clock() - t0) * 1000)
            common: dict[str, Any] = {
                "key": key,
                "content_hash": content_hash,
                "attempt": attempt,
                "endpoint": endpoint,
                "status": status,
                "ms": ms,
            }
            kind = verdict.kind
            if kind in (Kind.SHIPPED, Kind.DUPLICATE, Kind.STALE):
                outcome = {
                    Kind.SHIPPED: Outcome.OK,
                    Kind.DUPLICATE: Outcome.SKIPPED_DUPLICATE,
                    Kind.STALE: Outcome.STALE,
                }[kind]
                run.record(**common, outcome=outcome, final=True, result=verdict.result)
                run.endpoints.succeeded(endpoint)
                if kind is Kind.STALE:
                    logger.info("%s: the ingest API holds a newer version; not applied", key)
                    run.count("stale")
                elif kind is Kind.DUPLICATE:
                    run.count("unchanged")
                elif verdict.result == "updated":
                    run.count("updated")
                else:
                    run.count("created")
                run.breaker.succeeded()
                return outcome
            if kind is Kind.REJECT:
                run.record(**common, outcome=Outcome.REJECTED, final=True, error=error)
                logger.warning("rejected %s: %s", key, run.scrub.clip(error))
                run.count("rejected")
                run.breaker.succeeded()
                return Outcome.REJECTED
            if kind is Kind.AUTH:
                run.record(**common, outcome=Outcome.AUTH_FAILED, final=True, error=error)
                raise AuthError(
                    f"the ingest API at {endpoint} refused the token ({error}); set "
                    f"{TOKEN_ENV} to a valid token with ingest scope and run again"
                )
            if kind is Kind.CLIENT_BUG:
                run.record(**common, outcome=Outcome.ABORTED, final=True, error=error)
                raise ConfigError(
                    f"the ingest API at {endpoint} does not accept what ship.py sends "
                    f"({error}); is it the ingest API of docs/shipping.md?"
                )
            if kind is Kind.ENDPOINT:
                run.record(**common, outcome=Outcome.RETRY, final=False, error=error)
                try:
                    run.endpoints.retire(endpoint, error or "")
                except EndpointUnusable:
                    run.record(**common, outcome=Outcome.ABORTED, final=True, error=error)
                    raise
                continue
            # transient: wait and retry, or give up on this document
            wait: float
            retry_no += 1
            ra = parse_retry_after(verdict.retry_after, now=run.now())
            if ra is not None and ra > run.policy.retry_after_cap:
                run.record(**common, outcome=Outcome.ABORTED, final=True, error=error)
                raise RetryAfterTooLong(
                    f"the ingest API at {endpoint} asked to wait {ra:.0f}s (Retry-After), more "
                    f"than --retry-after-cap {run.policy.retry_after_cap:g}s; run again later"
                )
            if ra is not None:
                wait = ra + run.rng.uniform(0.0, run.policy.backoff_base)
            elif failover_now:
                wait = 0.0
            else:
                wait = run.policy.backoff(retry_no, run.rng)
            spent = run.clock() - started
            if attempt >= run.policy.max_attempts or spent + wait > run.policy.max_item_seconds:
                gave_up = f"gave up after {attempt} attempts in {spent:.1f}s: {error}"
                run.record(**common, outcome=Outcome.FAILED, final=True, error=gave_up)
                logger.error("failed %s: %s", key, run.scrub.clip(gave_up))
                run.count("failed")
                if run.breaker.failed():
                    raise BreakerOpen(
                        f"{run.breaker.in_a_row} documents in a row failed after all retries "
                        f"(last: {run.scrub.clip(error)}); the ingest API seems down "
                        "or overloaded: the rest stays pending, run again later"
                    )
                return Outcome.FAILED
            run.record(
                **common,
                outcome=Outcome.RETRY,
                final=False,
                error=error,
                retry_in_ms=int(wait * 1000),
            )
            run.count("retries")
            logger.debug(
                "retrying %s in %.2fs (attempt %d: %s)", key, wait, attempt, run.scrub.clip(error)
            )
            if wait > 0:
                run.sleep(wait)


def ship(
    documents: Iterable[Mapping[str, Any]],
    *,
    transport: Transport | None = None,
    transports: Callable[[], Transport] | None = None,
    concurrency: int = 1,
    log: ShipLog,
    policy: RetryPolicy,
    endpoints: EndpointPool,
    shipped: ShippedIndex,
    summary: Summary | None = None,
    limit: int | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    now: Callable[[], float] = time.time,
    rng: random.Random | None = None,
    progress: Callable[[Summary], None] | None = None,
    secret: str | None = None,
) -> Summary:
    """Ship ``documents`` (in order), skipping those ``shipped`` says went out with their hash.

    ``shipped`` comes from :func:`~harvest.shipping.shiplog.read_ship_log`; its entries are
    consumed as documents go by, so memory only shrinks during a run. ``limit`` bounds how many
    documents are *sent* (skipped ones do not count). Every attempt is a ship-log line.
    With ``transport``, documents are sent one by one in the calling thread. With
    ``transports`` (a factory: one transport per connection), ``concurrency`` worker threads
    send while the calling thread reads, checks and encodes the next documents (so even one
    connection never waits on the store).

    Returns the :class:`Summary` (the one passed in, updated in place, so a caller still has
    the counts when this raises). Raises :class:`AuthError` (401/403), :class:`BreakerOpen`,
    :class:`RetryAfterTooLong`, :class:`EndpointUnusable`, :class:`ConfigError` (415/411) or
    :class:`ShipLogError`; the documents in flight then have an ``auth-failed``/``aborted`` line.
    """
    summary = summary if summary is not None else Summary()
    if concurrency < 1:
        raise ConfigError("--concurrency must be at least 1")
    if concurrency > 1 and transports is None:
        raise ConfigError("a concurrent run needs a transport factory")
    if transport is not None and transports is not None:
        raise ConfigError("give ship() a transport or a transport factory, not both")
    run = _Run(
        log=log,
        policy=policy,
        endpoints=endpoints,
        summary=summary,
        sleep=sleep,
        clock=clock,
        now=now,
        rng=rng if rng is not None else random.Random(),
        scrub=Scrubber(secret),
        progress=progress,
    )
    pending = _to_send(documents, shipped=shipped, limit=limit, run=run)
    if transports is None:
        if transport is None:
            raise ConfigError("ship() needs a transport or a transport factory")
        shipper = _Shipper(run, transport)
        for document in pending:
            shipper.send(document)
            if progress is not None:
                progress(summary)
        return summary
    _ship_concurrently(pending, run, transports, concurrency)
    return summary


def _to_send(
    documents: Iterable[Mapping[str, Any]],
    *,
    shipped: ShippedIndex,
    limit: int | None,
    run: _Run,
) -> Iterable[Mapping[str, Any]]:
    """The documents to send: the skip rule and ``limit`` applied (skips counted here)."""
    sent = 0
    for document in documents:
        key = document.get("dedupe_key")
        content_hash = document.get("content_hash")
        previous = shipped.pop(key) if isinstance(key, str) else None
        if previous is not None and previous == content_hash:
            run.count("skipped")
            if run.progress is not None:
                run.progress(run.summary)
            continue
        if limit is not None and sent >= limit:
            return
        sent += 1
        if not isinstance(key, str) or not isinstance(content_hash, str):
            logger.error("a document without dedupe_key/content_hash cannot be shipped: skipped")
            run.count("rejected")
            continue
        yield document


def _ship_concurrently(
    pending: Iterable[Mapping[str, Any]],
    run: _Run,
    transports: Callable[[], Transport],
    concurrency: int,
) -> None:
    work: queue.Queue[_Prepared | None] = queue.Queue(maxsize=concurrency * 2)
    errors: list[BaseException] = []

    def worker() -> None:
        transport: Transport | None = None
        try:
            transport = transports()
            shipper = _Shipper(run, transport)
            while True:
                prepared = work.get()
                if prepared is None:
                    return
                key = prepared[0]
                outcome: Outcome | None = None
                try:
                    if not run.stop.is_set():
                        outcome = shipper.deliver(prepared)
                        if run.progress is not None:
                            run.progress(run.summary)
                finally:
                    with run.idle:
                        if outcome is not Outcome.ABORTED:  # else: its aborted line is due
                            run.in_flight.pop(key, None)
                        run.idle.notify_all()
        except BaseException as exc:  # noqa: BLE001 - handed to the dispatching thread
            with run.lock:
                errors.append(exc)
            run.stop.set()
        finally:
            if transport is not None:
                transport.close()

    # A sleeping retry wakes up when the run stops (then the document gets its aborted line).
    def interruptible_sleep(seconds: float) -> None:
        run.stop.wait(seconds)

    run.sleep = interruptible_sleep
    threads = [
        threading.Thread(target=worker, name=f"ship-{i}", daemon=True) for i in range(concurrency)
    ]
    # Slow start: the first document goes alone, so a wrong token, a wrong endpoint or a server
    # that is down costs one request, not one per connection.
    threads[0].start()
    started = 1
    try:
        for dispatched, document in enumerate(pending):
            if dispatched and started < len(threads):
                with run.idle:
                    while run.in_flight and not run.stop.is_set():
                        run.idle.wait(0.5)
                if run.stop.is_set():
                    break
                for thread in threads[1:]:
                    thread.start()
                started = len(threads)
            prepared = _prepare(run, document)
            if prepared is None:
                if run.progress is not None:
                    run.progress(run.summary)
                continue
            key = prepared[0]
            with run.idle:
                while key in run.in_flight and not run.stop.is_set():
                    run.idle.wait(0.5)  # one key is never in flight twice
                if run.stop.is_set():
                    break
                run.in_flight[key] = _InFlight(prepared[1])
            while True:
                try:
                    work.put(prepared, timeout=0.2)
                    break
                except queue.Full:
                    if run.stop.is_set():
                        break
            if run.stop.is_set():
                break
    except BaseException:
        # SIGINT/SIGTERM (or the store failing) in the dispatching thread: stop at once; what
        # is in flight is aborted (its answer, if one comes, is not recorded: the next run
        # posts it again and gets `unchanged`).
        run.abort_in_flight("interrupted while sending")
        raise
    threads = threads[:started]
    try:
        for _ in threads:
            while True:
                try:
                    work.put(None, timeout=0.2)
                    break
                except queue.Full:
                    if run.stop.is_set():
                        _drain(work)
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)
    except BaseException:
        run.abort_in_flight("interrupted while sending")
        raise
    if errors:
        # The documents the other workers did not finish get their aborted lines.
        first = next((e for e in errors if isinstance(e, ShipError)), errors[0])
        run.abort_in_flight(f"stopped: {type(first).__name__}")
        raise first


def _drain(work: queue.Queue[_Prepared | None]) -> None:
    try:
        while True:
            work.get_nowait()
    except queue.Empty:
        pass


@dataclass
class Plan:
    """What a dry run found."""

    new: int = 0
    changed: int = 0
    skip: int = 0
    invalid: int = 0

    @property
    def send(self) -> int:
        return self.new + self.changed


def plan(
    documents: Iterable[Mapping[str, Any]],
    *,
    shipped: ShippedIndex,
    limit: int | None = None,
    out: IO[bytes] | None = None,
) -> Plan:
    """The dry run: which documents a real run would send, skip or reject; nothing is sent.

    A document is rejected when :func:`document_problems` finds it unsendable or when it does
    not match the published JSON Schema of its item format (docs/schema.md).

    With ``out``, each would-be request body is written as one line.
    """
    result = Plan()
    for document in documents:
        key = document.get("dedupe_key")
        previous = shipped.pop(key) if isinstance(key, str) else None
        if previous is not None and previous == document.get("content_hash"):
            result.skip += 1
            continue
        if limit is not None and result.send + result.invalid >= limit:
            break
        problems = document_problems(document) or [
            f"schema: {problem['pointer']} {problem['detail']}"
            for problem in document_schema_problems(document)
        ]
        if problems:
            result.invalid += 1
            logger.warning("would reject %s: %s", key, "; ".join(problems))
            continue
        if previous is None:
            result.new += 1
        else:
            result.changed += 1
        logger.debug("would send %s (%s)", key, "changed" if previous else "new")
        if out is not None:
            out.write(encode(document) + b"\n")
    return result
