"""The reference ingest API against docs/contracts.md, over real HTTP on 127.0.0.1."""

from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any

import pytest
import requests

from harvest.base.canonical import document_hash
from tests.support.ingest import TOKEN, IngestServer
from tests.support.paths import PY, REPO
from tests.support.waiting import wait_until

AUTH = {"Authorization": f"Bearer {TOKEN}"}
KEY = "sipp.pa-testkota:7/Pdt.G/2024/PA Tst"


def document(version: int = 0) -> dict[str, Any]:
    d: dict[str, Any] = {
        "dedupe_key": KEY,
        "source_type": "sipp.pa-testkota",
        "source_id": "7/Pdt.G/2024/PA Tst",
        "schema_version": 2,
        "content_hash": "",
        "complete": True,
        "case": {"nomor_perkara": "7/Pdt.G/2024/PA Tst", "pihak": "Siti Ãminah", "v": version},
        "tabs": {"riwayat_perkara": [{"tanggal": "2024-01-02"}]},
    }
    d["content_hash"] = document_hash(d)  # the harvest side's definition
    return d


def post(server: IngestServer, body: Any, **kwargs: Any) -> requests.Response:
    headers = {**AUTH, **kwargs.pop("headers", {})}
    return requests.post(f"{server.url}/items", json=body, headers=headers, timeout=5, **kwargs)


def test_upsert_created_unchanged_updated_and_read_back(server: IngestServer) -> None:
    first = post(server, document())
    assert first.status_code == 201
    assert first.json() == {
        "key": KEY,
        "result": "created",
        "version": 1,
        "content_hash": document()["content_hash"],
    }
    assert first.headers["Location"] == "/items/sipp.pa-testkota%3A7%2FPdt.G%2F2024%2FPA%20Tst"
    again = post(server, document())
    assert (again.status_code, again.json()["result"], again.json()["version"]) == (
        200,
        "unchanged",
        1,
    )
    changed = post(server, document(version=1))
    assert (changed.status_code, changed.json()["result"], changed.json()["version"]) == (
        200,
        "updated",
        2,
    )
    read = server.get(KEY)  # the key URL-encoded: it holds '/', ':' and a space
    assert read.status_code == 200
    body = read.json()
    assert body["document"] == document(version=1)
    assert body["content_hash"] == document(version=1)["content_hash"]
    assert body["version"] == 2
    assert read.headers["ETag"] == f'"{body["content_hash"]}"'
    assert server.rows() == {KEY: (document(version=1)["content_hash"], 2)}
    assert [r for _, r in server.log_results()] == ["created", "unchanged", "updated"]
    assert server.get("sipp.pa-testkota:nope").status_code == 404


def test_bearer_auth_per_rfc_6750(server_factory: Any) -> None:
    server = server_factory("--read-token", "reader-only")
    missing = requests.post(f"{server.url}/items", json=document(), timeout=5)
    assert missing.status_code == 401
    assert missing.headers["WWW-Authenticate"] == 'Bearer realm="ingest"'
    assert missing.headers["Content-Type"] == "application/problem+json"
    wrong = post(server, document(), headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    assert 'error="invalid_token"' in wrong.headers["WWW-Authenticate"]
    reader = post(server, document(), headers={"Authorization": "Bearer reader-only"})
    assert reader.status_code == 403
    assert 'error="insufficient_scope"' in reader.headers["WWW-Authenticate"]
    assert server.rows() == {}
    assert requests.get(f"{server.url}/items/x", timeout=5).status_code == 401


def test_invalid_items_get_422_problem_json_listing_every_problem(server: IngestServer) -> None:
    bad = copy.deepcopy(document())
    bad["case"]["v"] = 5  # content no longer matches content_hash
    bad["dedupe_key"] = "other:key"
    bad["extra"] = 1
    del bad["tabs"]
    response = post(server, bad)
    assert response.status_code == 422
    assert response.headers["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert problem["type"] == "/problems/invalid-item"
    assert problem["status"] == 422
    pointers = sorted(e["pointer"] for e in problem["errors"])
    assert pointers == ["#/dedupe_key", "#/extra", "#/tabs"]
    wrong_hash = document()
    wrong_hash["case"]["v"] = 5
    errors = post(server, wrong_hash).json()["errors"]
    assert errors == [
        {
            "pointer": "#/content_hash",
            "detail": f"does not match the document (the server computed "
            f"{document(version=5)['content_hash']})",
        }
    ]
    assert server.rows() == {}


def test_bad_json_media_type_and_size(server_factory: Any) -> None:
    server = server_factory("--max-body", "2000")
    bad_json = requests.post(
        f"{server.url}/items",
        data=b'{"dedupe_key": ',
        headers={**AUTH, "Content-Type": "application/json"},
        timeout=5,
    )
    assert bad_json.status_code == 400
    assert bad_json.json()["type"] == "/problems/bad-json"
    nan = requests.post(
        f"{server.url}/items",
        data=b'{"x": NaN}',
        headers={**AUTH, "Content-Type": "application/json"},
        timeout=5,
    )
    assert nan.status_code == 400
    form = requests.post(f"{server.url}/items", data={"a": "b"}, headers=AUTH, timeout=5)
    assert form.status_code == 415
    big = document()
    big["case"]["blob"] = "x" * 5000
    big["content_hash"] = document_hash(big)
    too_large = post(server, big)
    assert too_large.status_code == 413
    assert too_large.json()["type"] == "/problems/too-large"
    # streamed without Content-Length, the limit holds too
    chunked = requests.post(
        f"{server.url}/items",
        data=iter([json.dumps(big).encode()[i : i + 500] for i in range(0, 6000, 500)]),
        headers={**AUTH, "Content-Type": "application/json"},
        timeout=5,
    )
    assert chunked.status_code == 413


def test_healthz_and_stats_count_requests(server: IngestServer) -> None:
    assert server.stats()["requests"] == 0
    assert requests.get(f"{server.url}/healthz", timeout=5).json() == {"status": "ok"}
    post(server, document())
    stats = server.stats()
    assert stats["requests"] == 2  # healthz and the POST; /stats itself is not counted
    assert stats["posts"] == 1
    assert stats["results"] == {"created": 1}
    assert stats["statuses"] == {"200": 1, "201": 1}


def test_commit_then_drop_commits_and_answers_nothing(server_factory: Any) -> None:
    server = server_factory("--fault-drop", "1")
    with pytest.raises(requests.ConnectionError):
        post(server, document())
    assert server.rows() == {KEY: (document()["content_hash"], 1)}  # it was committed
    with pytest.raises(requests.ConnectionError):
        post(server, document())  # the retry: unchanged, still one row, version 1
    assert server.rows() == {KEY: (document()["content_hash"], 1)}
    assert [r for _, r in server.log_results()] == ["created", "unchanged"]
    assert server.stats()["faults"] == {"drop": 2}


def test_injected_500_and_503_touch_nothing(server_factory: Any) -> None:
    s500 = server_factory("--fault-500", "1")
    assert post(s500, document()).status_code == 500
    s503 = server_factory("--fault-503", "1", "--retry-after", "4")
    answer = post(s503, document())
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "4"
    assert s500.rows() == {}
    assert s503.rows() == {}


def test_slow_answers_are_slow_then_processed(server_factory: Any) -> None:
    server = server_factory("--fault-slow", "1", "--slow-seconds", "1.5")
    with pytest.raises(requests.ReadTimeout):
        requests.post(f"{server.url}/items", json=document(), headers=AUTH, timeout=(2, 0.3))
    slow = post(server, document())
    assert slow.elapsed.total_seconds() >= 1.4
    assert slow.json()["result"] in ("created", "unchanged")
    assert len(server.rows()) == 1


def test_faults_option_mixes_every_kind(server_factory: Any) -> None:
    server = server_factory("--faults", "1", "--slow-seconds", "0", "--seed", "3")
    for _ in range(40):
        with contextlib.suppress(requests.ConnectionError):
            post(server, document())
    assert set(server.stats()["faults"]) == {"500", "503", "slow", "drop"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--faults", "1.5"], "--faults 1.5 must be between 0 and 1"),
        (["--fault-500", "0.7", "--fault-drop", "0.7"], "they must total at most 1"),
        (["--max-body", "0"], "--max-body 0 must be a positive byte count"),
    ],
)
def test_server_options_are_validated(tmp_path: Any, args: list[str], message: str) -> None:
    import subprocess

    result = subprocess.run(
        [PY, "-m", "reference.ingest_api", "--port", "0", "--token", "t",
         "--db", str(tmp_path / "db.sqlite"), *args],
        cwd=REPO, capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert message in result.stderr


def versioned(content: int, version: int) -> dict[str, Any]:
    return {**document(version=content), "version": version}


def test_the_highest_version_wins_and_an_older_one_is_answered_stale(server: IngestServer) -> None:
    assert post(server, versioned(0, 10)).status_code == 201
    newer = post(server, versioned(1, 20))
    assert (newer.status_code, newer.json()["result"]) == (200, "updated")
    late = post(server, versioned(2, 15))  # a late request of an earlier run
    assert late.status_code == 200
    assert late.json() == {
        "key": KEY,
        "result": "stale",
        "version": 2,
        "content_hash": versioned(2, 15)["content_hash"],
        "current_version": 20,
        "current_content_hash": versioned(1, 20)["content_hash"],
    }
    tie = post(server, versioned(3, 20))  # the same version with other content: first wins
    assert tie.json()["result"] == "stale"
    same_old = post(server, versioned(1, 5))  # older, but the content it holds: unchanged
    assert same_old.json()["result"] == "unchanged"
    same_new = post(server, versioned(1, 30))  # the same content at a newer version
    assert same_new.json()["result"] == "unchanged"
    after = post(server, versioned(2, 25))  # older than 30 now
    assert after.json()["result"] == "stale"
    body = server.get(KEY).json()
    assert body["document"] == versioned(1, 30)
    assert (body["version"], body["source_version"]) == (2, 30)
    assert server.rows() == {KEY: (versioned(1, 30)["content_hash"], 2)}
    assert [r for _, r in server.log_results()] == [
        "created", "updated", "stale", "stale", "unchanged", "unchanged", "stale"
    ]  # fmt: skip
    assert server.stats()["results"] == {"created": 1, "updated": 1, "stale": 3, "unchanged": 2}


def test_a_document_without_version_is_applied_as_before(server: IngestServer) -> None:
    assert post(server, versioned(0, 10)).status_code == 201
    assert post(server, document(version=1)).json()["result"] == "updated"
    assert server.get(KEY).json()["source_version"] is None
    assert post(server, versioned(0, 3)).json()["result"] == "updated"


@pytest.mark.parametrize("bad", [0, -1, "7", 1.5, True, 2**63])
def test_a_bad_version_is_a_422(server: IngestServer, bad: Any) -> None:
    answer = post(server, {**document(), "version": bad})
    assert answer.status_code == 422
    assert answer.json()["errors"] == [
        {"pointer": "#/version", "detail": "must be an integer >= 1"}
    ]


def test_held_requests_wait_for_the_release_file(server_factory: Any, tmp_path: Path) -> None:
    import threading

    release = tmp_path / "release"
    server = server_factory("--hold-first", "1", "--hold-release", str(release))
    answers: list[requests.Response] = []
    held = threading.Thread(target=lambda: answers.append(post(server, versioned(0, 10))))
    held.start()
    wait_until(lambda: server.stats()["posts"] == 1, timeout=10, what="the first POST arrived")
    assert post(server, versioned(1, 20)).json()["result"] == "created"  # not held
    assert answers == []
    release.touch()
    held.join(timeout=10)
    assert [(a.status_code, a.json()["result"]) for a in answers] == [(200, "stale")]
    assert server.get(KEY).json()["document"] == versioned(1, 20)
