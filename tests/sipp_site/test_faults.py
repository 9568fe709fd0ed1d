"""Each fault kind, switched on alone at rate 1, fails the way a real court does."""

from __future__ import annotations

import contextlib
import http.client
import socket
import time

import pytest
import requests

from reference.sipp_site.testing import running_replica
from tests.support.paths import REPO


def _only(kind: str, *extra: str) -> list[str]:
    return [f"--fault-{kind.replace('_', '-')}", "1", *extra]


@contextlib.contextmanager
def _raw_get(port: int, path: str = "/", timeout: float = 5.0):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        yield conn.getresponse()
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("kind", "status", "marker"),
    [
        ("500", 500, "Internal Server Error"),
        ("502", 502, "502 Bad Gateway"),
        ("503", 503, "503 Service Temporarily Unavailable"),
        ("db_error", 200, "A Database Error Occurred"),
        ("ci_error", 200, "An Error Was Encountered"),
    ],
)
def test_error_responses(kind, status, marker):
    with running_replica(cases=30, extra_args=_only(kind)) as rep:
        r = requests.get(rep.url, timeout=10)
        assert r.status_code == status
        assert marker in r.text
        assert "tablePerkaraAll" not in r.text


def test_php_notice_before_a_valid_page_and_instead_of_a_redirect():
    with running_replica(cases=30, extra_args=_only("php_error")) as rep:
        r = requests.get(rep.url, timeout=10)
        assert r.status_code == 200
        assert r.text.startswith('<div style="border:1px solid #990000')
        assert "A PHP Error was encountered" in r.text
        assert "tablePerkaraAll" in r.text  # the page itself is intact
        token = r.text.split("show_detil/", 1)[1].split('"', 1)[0]
        show = requests.get(rep.url + "show_detil/" + token, allow_redirects=False, timeout=10)
        assert show.status_code == 200  # headers already sent: no redirect
        assert "Cannot modify header information" in show.text


def test_slow_responses_arrive_late_but_correct():
    with running_replica(cases=30, extra_args=[*_only("slow"), "--slow-seconds", "0.6"]) as rep:
        t0 = time.monotonic()
        r = requests.get(rep.url, timeout=10)
        assert time.monotonic() - t0 >= 0.6
        assert r.status_code == 200
        assert "Total : 30 Perkara" in r.text


def test_hang_sends_nothing_then_closes():
    with running_replica(cases=30, extra_args=[*_only("hang"), "--hang-seconds", "1.5"]) as rep:
        with pytest.raises(requests.exceptions.ReadTimeout):
            requests.get(rep.url, timeout=0.5)
        t0 = time.monotonic()
        with pytest.raises(requests.exceptions.ConnectionError):
            requests.get(rep.url, timeout=10)
        assert 1.0 <= time.monotonic() - t0 < 8


def test_connection_reset():
    with (
        running_replica(cases=30, extra_args=_only("reset")) as rep,
        pytest.raises((ConnectionResetError, http.client.RemoteDisconnected)),
        _raw_get(rep.port) as resp,
    ):
        resp.read()


def test_truncated_body():
    with running_replica(cases=30, extra_args=_only("truncate")) as rep:
        with _raw_get(rep.port) as resp:
            assert resp.status == 200
            declared = int(resp.getheader("Content-Length"))
            with pytest.raises(http.client.IncompleteRead) as err:
                resp.read()
        assert 0 < len(err.value.partial) < declared


def test_fault_mix_hits_every_kind_and_leaves_data_alone():
    """With --faults 0.9 some requests still pass and the good ones carry the right data.

    The draws are seeded and the requests sequential, so the sequence of faults is fixed; each
    kind is told by what arrives, never by how long it took (a hang is a connection closed
    without an answer, after 0.2 s, well within the 10 s timeout).
    """
    with running_replica(
        cases=30,
        faults=0.9,
        fault_seed=3,
        extra_args=["--slow-seconds", "0.05", "--hang-seconds", "0.2"],
    ) as rep:
        seen = set()
        for _ in range(120):
            try:
                r = requests.get(rep.url, timeout=10)
            except requests.exceptions.ConnectionError as exc:
                text = str(exc).lower()
                seen.add(
                    "reset"
                    if "reset" in text
                    else "hang"
                    if "without response" in text
                    else "connection-error"
                )
                continue
            except requests.exceptions.ChunkedEncodingError:
                seen.add("truncate")
                continue
            if r.status_code != 200:
                seen.add(str(r.status_code))
            elif "Database Error" in r.text:
                seen.add("db_error")
            elif "An Error Was Encountered" in r.text:
                seen.add("ci_error")
            elif "A PHP Error" in r.text:
                seen.add("php_error")
            else:
                assert "Total : 30 Perkara" in r.text
                seen.add("ok")
        assert {"500", "502", "503", "db_error", "ci_error", "php_error", "ok"} <= seen


def test_bad_fault_options_are_refused():
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "reference.sipp_site", "--faults", "0.5", "--fault-500", "0.8"],
        capture_output=True, text=True, timeout=30, check=False, cwd=REPO,
    )  # fmt: skip
    assert r.returncode == 2
    assert "sum to" in r.stderr


def test_socket_level_reset_is_a_real_rst():
    with running_replica(cases=30, extra_args=_only("reset")) as rep:
        sock = socket.create_connection(("127.0.0.1", rep.port), timeout=5)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        try:
            with pytest.raises(ConnectionResetError):  # a FIN (b"") instead fails: DID NOT RAISE
                sock.recv(100)
        finally:
            sock.close()
