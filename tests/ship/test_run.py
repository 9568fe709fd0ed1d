"""harvest.shipping.run: the attempt loop and run-level guards of ship(), with a scripted
transport and fake time (sequential), and the concurrent path with scripted transports."""

from __future__ import annotations

import dataclasses
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from harvest.base.canonical import document_hash
from harvest.shipping.endpoints import EndpointPool
from harvest.shipping.errors import (
    AuthError,
    BreakerOpen,
    EndpointUnusable,
    ExitStatus,
    RetryAfterTooLong,
)
from harvest.shipping.policy import RetryPolicy
from harvest.shipping.progress import Summary
from harvest.shipping.run import ship
from harvest.shipping.shiplog import ShipLog, ShippedIndex, read_ship_log
from harvest.shipping.transport import Answer, TransportError

A = "http://a.test"
B = "http://b.test"


def doc(i: int, version: int = 0) -> dict[str, Any]:
    d: dict[str, Any] = {
        "dedupe_key": f"sipp.pn-x:{i}/Pdt.G/2024/PN X",
        "source_type": "sipp.pn-x",
        "source_id": f"{i}/Pdt.G/2024/PN X",
        "schema_version": 2,
        "content_hash": "",
        "complete": True,
        "case": {"nomor_perkara": f"{i}/Pdt.G/2024/PN X", "v": version},
        "tabs": {"penetapan": {"hakim": "A"}},
    }
    d["content_hash"] = document_hash(d)
    return d


def ok(result: str = "created") -> Answer:
    status = 201 if result == "created" else 200
    return Answer(status, json.dumps({"result": result}).encode())


def echo(answer: Answer, document: dict[str, Any]) -> Answer:
    """A success answer as the ingest contract has it: naming the key, echoing the hash."""
    if 200 <= answer.status < 300 and answer.body.startswith(b"{"):
        payload = json.loads(answer.body)
        if isinstance(payload, dict) and "result" in payload and "key" not in payload:
            payload = {
                "key": document["dedupe_key"],
                "content_hash": document["content_hash"],
                **payload,
            }
            return dataclasses.replace(answer, body=json.dumps(payload).encode())
    return answer


class Script:
    """A transport answering from a list (Answer or exception) and recording every call."""

    def __init__(self, answers: Iterable[Answer | Exception]) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def post(self, url: str, body: bytes, headers: Any) -> Answer:
        document = json.loads(body)
        self.calls.append((url, document))
        item = self.answers.pop(0)
        if isinstance(item, Exception):
            raise item
        return echo(item, document)

    def close(self) -> None:
        pass


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += seconds


def run(
    tmp_path: Path,
    docs: list[dict[str, Any]],
    answers: Iterable[Answer | Exception],
    *,
    policy: RetryPolicy | None = None,
    endpoints: tuple[str, ...] = (A,),
    shipped: ShippedIndex | None = None,
    summary: Summary | None = None,
) -> tuple[Summary, Script, Clock, list[dict[str, Any]]]:
    transport = Script(answers)
    clock = Clock()
    log = ShipLog.open(tmp_path / "ship-log.jsonl")
    summary = summary or Summary()
    try:
        ship(
            docs,
            transport=transport,
            log=log,
            policy=policy or RetryPolicy(backoff_base=0.5, backoff_cap=30),
            endpoints=EndpointPool(endpoints),
            shipped=shipped or ShippedIndex(),
            summary=summary,
            sleep=clock.sleep,
            clock=clock,
            now=clock,
            rng=random.Random(7),
        )
    finally:
        log.close()
        lines = [json.loads(x) for x in (tmp_path / "ship-log.jsonl").read_text().splitlines()]
    return summary, transport, clock, lines


def test_created_updated_unchanged_map_to_outcomes(tmp_path: Path) -> None:
    docs = [doc(1), doc(2), doc(3)]
    summary, transport, clock, lines = run(
        tmp_path, docs, [ok("created"), ok("updated"), ok("unchanged")]
    )
    assert [c[0] for c in transport.calls] == [f"{A}/items"] * 3
    assert transport.calls[0][1] == docs[0]  # the body is the document itself
    assert [(x["outcome"], x["result"], x["status"], x["final"]) for x in lines] == [
        ("ok", "created", 201, True),
        ("ok", "updated", 200, True),
        ("skipped-duplicate", "unchanged", 200, True),
    ]
    assert lines[0]["key"] == docs[0]["dedupe_key"]
    assert lines[0]["content_hash"] == docs[0]["content_hash"]
    assert lines[0]["endpoint"] == A
    assert lines[0]["attempt"] == 1
    assert (summary.created, summary.updated, summary.unchanged, summary.shipped) == (1, 1, 1, 2)
    assert clock.sleeps == []


def test_transient_failures_are_retried_with_full_jitter_and_every_attempt_logged(
    tmp_path: Path,
) -> None:
    answers = [
        Answer(500, b'{"detail":"boom"}'),
        TransportError("connection lost: reset", connect=False),
        Answer(502),
        ok("created"),
    ]
    policy = RetryPolicy(backoff_base=0.5, backoff_cap=30)
    summary, transport, clock, lines = run(tmp_path, [doc(1)], answers, policy=policy)
    assert len(transport.calls) == 4
    assert [x["outcome"] for x in lines] == ["retry", "retry", "retry", "ok"]
    assert [x["final"] for x in lines] == [False, False, False, True]
    assert [x["attempt"] for x in lines] == [1, 2, 3, 4]
    assert lines[0]["status"] == 500
    assert lines[0]["error"] == "500 boom"
    assert lines[1]["status"] is None
    assert "connection lost" in lines[1]["error"]
    # Full jitter: the n-th retry sleeps U(0, min(cap, base * 2**(n-1))), with the same rng.
    rng = random.Random(7)
    expected = [rng.uniform(0, 0.5), rng.uniform(0, 1.0), rng.uniform(0, 2.0)]
    assert clock.sleeps == pytest.approx(expected)
    assert [x["retry_in_ms"] for x in lines[:3]] == [int(s * 1000) for s in expected]
    assert (summary.retries, summary.attempts, summary.created) == (3, 4, 1)


def test_retry_after_is_honoured(tmp_path: Path) -> None:
    answers = [Answer(503, b"{}", retry_after="7"), Answer(429, b"{}", retry_after="2"), ok()]
    _, _, clock, lines = run(tmp_path, [doc(1)], answers)
    assert len(clock.sleeps) == 2
    assert 7 <= clock.sleeps[0] <= 7.5  # Retry-After plus at most backoff_base of jitter
    assert 2 <= clock.sleeps[1] <= 2.5
    assert [x["status"] for x in lines] == [503, 429, 201]


def test_retry_after_beyond_the_cap_stops_the_run(tmp_path: Path) -> None:
    policy = RetryPolicy(retry_after_cap=60)
    with pytest.raises(RetryAfterTooLong, match="Retry-After"):
        run(tmp_path, [doc(1), doc(2)], [Answer(503, b"{}", retry_after="3600")], policy=policy)
    lines = [json.loads(x) for x in (tmp_path / "ship-log.jsonl").read_text().splitlines()]
    assert [(x["outcome"], x["final"]) for x in lines] == [("aborted", True)]


def test_attempts_are_bounded_then_failed_and_the_run_goes_on(tmp_path: Path) -> None:
    policy = RetryPolicy(max_attempts=3, backoff_base=0.1)
    answers = [Answer(500)] * 3 + [ok()]
    summary, transport, _, lines = run(tmp_path, [doc(1), doc(2)], answers, policy=policy)
    assert len(transport.calls) == 4
    assert [(x["attempt"], x["outcome"]) for x in lines] == [
        (1, "retry"),
        (2, "retry"),
        (3, "failed"),
        (1, "ok"),
    ]
    assert "gave up after 3 attempts" in lines[2]["error"]
    assert (summary.failed, summary.created) == (1, 1)


def test_time_per_document_is_bounded(tmp_path: Path) -> None:
    policy = RetryPolicy(max_attempts=100, max_item_seconds=10, backoff_base=4, backoff_cap=4)
    summary, transport, clock, lines = run(tmp_path, [doc(1)], [Answer(503)] * 100, policy=policy)
    assert summary.failed == 1
    assert sum(clock.sleeps) <= 10
    assert lines[-1]["outcome"] == "failed"
    assert lines[-1]["final"] is True
    assert len(transport.calls) < 100


def test_rejected_documents_are_logged_and_the_run_goes_on(tmp_path: Path) -> None:
    problem = {
        "type": "/problems/invalid-item",
        "detail": "1 member(s) of the document are invalid",
        "errors": [{"pointer": "#/case", "detail": "must be an object"}],
    }
    answers = [Answer(422, json.dumps(problem).encode()), Answer(413, b"{}"), ok()]
    summary, _, clock, lines = run(tmp_path, [doc(1), doc(2), doc(3)], answers)
    assert [(x["outcome"], x["status"], x["final"]) for x in lines] == [
        ("rejected", 422, True),
        ("rejected", 413, True),
        ("ok", 201, True),
    ]
    assert "#/case must be an object" in lines[0]["error"]
    assert (summary.rejected, summary.created) == (2, 1)
    assert clock.sleeps == []


@pytest.mark.parametrize("status", [401, 403])
def test_auth_failure_stops_the_run(tmp_path: Path, status: int) -> None:
    with pytest.raises(AuthError, match="INGEST_TOKEN") as info:
        run(tmp_path, [doc(1), doc(2)], [Answer(status, b'{"detail":"no"}')])
    assert info.value.exit_status == ExitStatus.NOPERM
    lines = [json.loads(x) for x in (tmp_path / "ship-log.jsonl").read_text().splitlines()]
    assert [(x["outcome"], x["status"]) for x in lines] == [("auth-failed", status)]


def test_breaker_stops_after_consecutive_failed_documents(tmp_path: Path) -> None:
    policy = RetryPolicy(max_attempts=2, breaker=3, backoff_base=0.01)
    summary = Summary()
    with pytest.raises(BreakerOpen, match="3 documents in a row"):
        run(tmp_path, [doc(i) for i in range(10)], [Answer(500)] * 20, policy=policy,
            summary=summary)  # fmt: skip
    assert summary.failed == 3  # documents 3..9 were never attempted: they stay pending


def test_a_success_resets_the_breaker(tmp_path: Path) -> None:
    policy = RetryPolicy(max_attempts=1, breaker=2)
    answers = [Answer(500), ok(), Answer(500), ok(), Answer(500)]
    summary, _, _, _ = run(tmp_path, [doc(i) for i in range(5)], answers, policy=policy)
    assert (summary.failed, summary.created) == (3, 2)


def test_unreachable_endpoint_fails_over_at_once_and_the_fallback_sticks(tmp_path: Path) -> None:
    refused = TransportError("cannot connect: refused", connect=True)
    answers = [refused, ok(), ok()]
    _, transport, clock, lines = run(tmp_path, [doc(1), doc(2)], answers, endpoints=(A, B))
    assert [c[0] for c in transport.calls] == [f"{A}/items", f"{B}/items", f"{B}/items"]
    assert clock.sleeps == []  # the next endpoint is tried without waiting
    assert [(x["endpoint"], x["outcome"]) for x in lines] == [
        (A, "retry"),
        (B, "ok"),
        (B, "ok"),
    ]


def test_all_endpoints_unreachable_backs_off_between_rounds(tmp_path: Path) -> None:
    refused = TransportError("cannot connect: refused", connect=True)
    policy = RetryPolicy(max_attempts=5, backoff_base=1, backoff_cap=1)
    _, transport, clock, _ = run(
        tmp_path, [doc(1)], [refused] * 4 + [ok()], policy=policy, endpoints=(A, B)
    )
    assert [c[0].split("/items")[0] for c in transport.calls] == [A, B, A, B, A]
    assert len(clock.sleeps) == 2  # once after each full round, not after every endpoint


def test_read_timeout_retries_the_same_endpoint(tmp_path: Path) -> None:
    timeout = TransportError("read timeout after 30s", connect=False)
    _, transport, _, _ = run(tmp_path, [doc(1)], [timeout, ok("unchanged")], endpoints=(A, B))
    assert [c[0] for c in transport.calls] == [f"{A}/items", f"{A}/items"]


@pytest.mark.parametrize("status", [301, 307, 308, 404, 405])
def test_an_endpoint_that_is_no_ingest_api_is_retired(tmp_path: Path, status: int) -> None:
    answers = [Answer(status, location="http://elsewhere/items"), ok()]
    _, transport, _, lines = run(tmp_path, [doc(1)], answers, endpoints=(A, B))
    assert [c[0] for c in transport.calls] == [f"{A}/items", f"{B}/items"]
    assert lines[0]["outcome"] == "retry"
    assert lines[-1]["outcome"] == "ok"
    with pytest.raises(EndpointUnusable):
        run(tmp_path, [doc(2)], [Answer(status)], endpoints=(A,))


def test_skip_rule_latest_final_ok_with_the_same_hash(tmp_path: Path) -> None:
    d1, d2, d3, d4 = doc(1), doc(2), doc(3), doc(4)
    index = ShippedIndex()
    index.record(d1["dedupe_key"], d1["content_hash"], "ok")  # shipped, same content: skip
    index.record(d2["dedupe_key"], doc(2, version=9)["content_hash"], "ok")  # content changed
    index.record(d3["dedupe_key"], d3["content_hash"], "ok")
    index.record(d3["dedupe_key"], d3["content_hash"], "failed")  # latest final is not ok
    index.record(d4["dedupe_key"], d4["content_hash"], "skipped-duplicate")  # skip too
    summary, transport, _, _ = run(
        tmp_path, [d1, d2, d3, d4], [ok("updated"), ok("unchanged")], shipped=index
    )
    assert [c[1]["dedupe_key"] for c in transport.calls] == [d2["dedupe_key"], d3["dedupe_key"]]
    assert (summary.skipped, summary.updated, summary.unchanged) == (2, 1, 1)
    assert len(index) == 0  # consumed as documents went by


def test_invalid_document_is_rejected_without_a_request(tmp_path: Path) -> None:
    bad = doc(1)
    bad["case"]["v"] = 99  # content no longer matches its content_hash
    summary, transport, _, lines = run(tmp_path, [bad, doc(2)], [ok()])
    assert [c[1]["dedupe_key"] for c in transport.calls] == [doc(2)["dedupe_key"]]
    assert lines[0]["outcome"] == "rejected"
    assert lines[0]["endpoint"] is None
    assert "does not match" in lines[0]["error"]
    assert summary.rejected == 1


def test_limit_counts_sent_documents_only(tmp_path: Path) -> None:
    d = [doc(i) for i in range(5)]
    index = ShippedIndex()
    index.record(d[0]["dedupe_key"], d[0]["content_hash"], "ok")
    transport = Script([ok()] * 5)
    log = ShipLog.open(tmp_path / "ship-log.jsonl")
    summary = ship(
        d, transport=transport, log=log, policy=RetryPolicy(), endpoints=EndpointPool([A]),
        shipped=index, limit=2, sleep=lambda s: None,
    )  # fmt: skip
    log.close()
    assert [c[1]["dedupe_key"] for c in transport.calls] == [
        d[1]["dedupe_key"],
        d[2]["dedupe_key"],
    ]
    assert (summary.skipped, summary.created) == (1, 2)


def test_stale_is_a_final_outcome_not_an_error_and_the_skip_rule_counts_it(
    tmp_path: Path,
) -> None:
    summary, _, _, lines = run(tmp_path, [doc(1), doc(2)], [ok("stale"), ok("created")])
    assert [(x["outcome"], x["result"], x["final"], x["error"]) for x in lines] == [
        ("stale", "stale", True, None),
        ("ok", "created", True, None),
    ]
    assert (summary.stale, summary.created, summary.failed, summary.rejected) == (1, 1, 0, 0)
    assert summary.line(2.0).startswith(
        "shipped 1 (created 1, updated 0), unchanged 0, rejected 0, failed 0, skipped 0, stale 1;"
    )
    index = read_ship_log(tmp_path / "ship-log.jsonl").shipped
    assert index.pop(doc(1)["dedupe_key"]) == doc(1)["content_hash"]  # not sent again


def test_an_html_200_is_never_logged_ok_and_the_fallback_takes_over(tmp_path: Path) -> None:
    login = Answer(200, b"<html>Sign in</html>", content_type="text/html")
    summary, transport, _, lines = run(tmp_path, [doc(1)], [login, ok()], endpoints=(A, B))
    assert [c[0] for c in transport.calls] == [f"{A}/items", f"{B}/items"]
    assert [(x["endpoint"], x["outcome"], x["status"]) for x in lines] == [
        (A, "retry", 200),
        (B, "ok", 201),
    ]
    assert lines[0]["error"].startswith(
        "answered 200 but not the ingest API's answer: the body is not JSON (text/html"
    )
    assert summary.created == 1
    (tmp_path / "ship-log.jsonl").unlink()
    with pytest.raises(EndpointUnusable, match="not the ingest API's answer"):
        run(tmp_path, [doc(1), doc(2)], [login])
    lines = [json.loads(x) for x in (tmp_path / "ship-log.jsonl").read_text().splitlines()]
    assert [(x["outcome"], x["final"]) for x in lines] == [("retry", False), ("aborted", True)]
    assert not any(x["outcome"] == "ok" for x in lines)


def test_server_text_carrying_the_token_is_scrubbed_from_lines_and_errors(
    tmp_path: Path,
) -> None:
    token = "s3cret/token+abc=0123"
    encoded = "s3cret%2Ftoken%2Babc%3D0123"
    leak = json.dumps({"detail": f"bad token {token}, see /login?next={encoded}"}).encode()
    transport = Script([Answer(500, leak), Answer(401, leak)])
    log = ShipLog.open(tmp_path / "ship-log.jsonl")
    clock = Clock()
    with pytest.raises(AuthError) as info:
        ship(
            [doc(1)], transport=transport, log=log, policy=RetryPolicy(),
            endpoints=EndpointPool([A]), shipped=ShippedIndex(), sleep=clock.sleep,
            clock=clock, now=clock, rng=random.Random(1), secret=token,
        )  # fmt: skip
    log.close()
    lines = [json.loads(x) for x in (tmp_path / "ship-log.jsonl").read_text().splitlines()]
    assert [x["error"] for x in lines] == [
        "500 bad token <token>, see /login?next=<token>",
        "401 bad token <token>, see /login?next=<token>",
    ]
    assert str(info.value) == (
        f"the ingest API at {A} refused the token (401 bad token <token>, see "
        "/login?next=<token>); set INGEST_TOKEN to a valid token with ingest scope and run again"
    )


class Threaded:
    """Transports for the concurrent path: each records what it sends; answers are computed
    from the request (key and hash echoed) after ``delay`` seconds of real time."""

    def __init__(self, delay: float = 0.005, status: int = 201) -> None:
        self.delay = delay
        self.status = status
        self.lock = threading.Lock()
        self.in_flight: Counter[str] = Counter()
        self.max_in_flight = 0
        self.max_same_key = 0
        self.keys: list[str] = []
        self.made = 0
        self.closed = 0

    def __call__(self) -> Threaded:
        with self.lock:
            self.made += 1
        return self

    def post(self, url: str, body: bytes, headers: Any) -> Answer:
        document = json.loads(body)
        key = document["dedupe_key"]
        with self.lock:
            self.in_flight[key] += 1
            self.keys.append(key)
            self.max_same_key = max(self.max_same_key, self.in_flight[key])
            self.max_in_flight = max(self.max_in_flight, sum(self.in_flight.values()))
        time.sleep(self.delay)
        with self.lock:
            self.in_flight[key] -= 1
        if self.status != 201:
            return Answer(self.status, b'{"detail":"no"}')
        return echo(ok("created"), document)

    def close(self) -> None:
        with self.lock:
            self.closed += 1


def test_concurrent_delivery_uses_n_connections_and_never_sends_a_key_twice_at_once(
    tmp_path: Path,
) -> None:
    docs = [doc(i) for i in range(40)]
    docs[20:20] = [doc(3, version=1), doc(3, version=2)]  # one key three times, in a row
    transports = Threaded()
    log = ShipLog.open(tmp_path / "ship-log.jsonl")
    summary = ship(
        docs, transports=transports, concurrency=4, log=log, policy=RetryPolicy(),
        endpoints=EndpointPool([A]), shipped=ShippedIndex(),
    )  # fmt: skip
    log.close()
    assert transports.made == transports.closed == 4
    assert transports.max_in_flight == 4
    assert transports.max_same_key == 1
    assert len(transports.keys) == 42
    assert summary.created == 42
    lines = [json.loads(x) for x in (tmp_path / "ship-log.jsonl").read_text().splitlines()]
    assert len(lines) == 42
    assert all(x["final"] and x["outcome"] == "ok" for x in lines)
    key3 = doc(3)["dedupe_key"]
    assert [x["content_hash"] for x in lines if x["key"] == key3] == [
        doc(3)["content_hash"],
        doc(3, version=1)["content_hash"],
        doc(3, version=2)["content_hash"],
    ]  # a key's versions leave in order, each after the one before was answered


def test_concurrent_run_starts_with_one_request_so_a_wrong_token_costs_one(
    tmp_path: Path,
) -> None:
    transports = Threaded(status=401)
    log = ShipLog.open(tmp_path / "ship-log.jsonl")
    with pytest.raises(AuthError):
        ship(
            [doc(i) for i in range(20)], transports=transports, concurrency=4, log=log,
            policy=RetryPolicy(), endpoints=EndpointPool([A]), shipped=ShippedIndex(),
        )  # fmt: skip
    log.close()
    assert len(transports.keys) == 1
    lines = [json.loads(x) for x in (tmp_path / "ship-log.jsonl").read_text().splitlines()]
    assert [(x["outcome"], x["status"]) for x in lines] == [("auth-failed", 401)]


def test_concurrent_breaker_stops_and_in_flight_documents_get_aborted_lines(
    tmp_path: Path,
) -> None:
    transports = Threaded(status=500, delay=0.002)
    log = ShipLog.open(tmp_path / "ship-log.jsonl")
    summary = Summary()
    policy = RetryPolicy(max_attempts=2, breaker=3, backoff_base=0.001, backoff_cap=0.001)
    with pytest.raises(BreakerOpen):
        ship(
            [doc(i) for i in range(50)], transports=transports, concurrency=4, log=log,
            policy=policy, endpoints=EndpointPool([A]), shipped=ShippedIndex(), summary=summary,
        )  # fmt: skip
    log.close()
    lines = [json.loads(x) for x in (tmp_path / "ship-log.jsonl").read_text().splitlines()]
    finals = Counter(x["key"] for x in lines if x["final"])
    assert set(finals.values()) == {1}  # every document that was sent has one final line
    sent = {x["key"] for x in lines}
    assert set(finals) == sent
    assert summary.failed >= 3
    assert {x["outcome"] for x in lines if x["final"]} <= {"failed", "aborted"}
    assert len(sent) < 50  # the rest stays pending
