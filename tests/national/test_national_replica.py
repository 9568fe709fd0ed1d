"""The national replica (``python -m reference.sipp_site.national``): many courts from one
process, told apart by loopback address, port and ``Host`` name (docs/replica.md)."""

from __future__ import annotations

import http.client
import json
import random
import socket
from pathlib import Path

import pytest

from reference.sipp_site.national import PlanError, load_plan
from reference.sipp_site.testing import running_national
from tests.support.waiting import wait_until


def _get(url: str, path: str = "", host: str | None = None) -> tuple[int, str, str]:
    rest = url.split("//", 1)[1]
    address, _, tail = rest.partition("/")
    name, port = address.split(":")
    conn = http.client.HTTPConnection(name, int(port), timeout=10)
    try:
        headers = {"Host": host} if host else {}
        conn.request("GET", "/" + tail + path, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.getheader("Location") or "", resp.read().decode("utf-8")
    finally:
        conn.close()


def test_one_process_plays_courts_by_address_port_and_host_name(tmp_path: Path) -> None:
    block = f"127.{random.randint(1, 250)}.{random.randint(1, 250)}"
    courts = [
        {"court_id": "pn-a", "address": f"{block}.2", "cases": 2},
        {"court_id": "pa-b", "variant": "pa", "address": f"{block}.2", "port": "other"},
        {"court_id": "pn-c", "address": f"{block}.2", "host_name": "sipp.pn-c.test"},
        {"court_id": "pn-d", "address": f"{block}.3", "answer": "moved", "moved_to": f"{block}.4"},
        {"court_id": "pn-e", "address": f"{block}.5", "answer": "down"},
        {"court_id": "pn-f", "address": f"{block}.6", "answer": "forbidden"},
        {"court_id": "pn-g", "address": f"{block}.7", "base_path": "/sipp/"},
    ]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"courts": courts}), encoding="utf-8")
    with running_national(plan) as rep:
        a, b = rep.urls["pn-a"], rep.urls["pa-b"]
        assert a.startswith(f"http://{block}.2:")
        assert b.startswith(f"http://{block}.2:")
        assert a != b  # same address, another port
        status, _, page = _get(a)
        assert status == 200
        assert "PENGADILAN NEGERI REPLIKA" in page
        assert "PENGADILAN AGAMA REPLIKA" in _get(b)[2]
        # a virtual host on pn-a's address and port
        assert rep.urls["pn-c"].startswith("http://sipp.pn-c.test:")
        _get(a, host=rep.urls["pn-c"].split("//")[1].rstrip("/"))
        # the replica prints its access log line after it answered: wait for the line
        assert wait_until(lambda: rep.hits("pn-c"), timeout=10, what="pn-c's hit") == ["GET /"]
        status, location, _ = _get(rep.urls["pn-d"], "list_perkara")
        assert (status, location) == (
            301,
            rep.urls["pn-d"].replace(f"{block}.3", f"{block}.4") + "list_perkara",
        )
        assert _get(location.replace("list_perkara", ""))[0] == 200
        address, port = rep.urls["pn-e"].split("//")[1].strip("/").split(":")
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((address, int(port)), 2)
        assert _get(rep.urls["pn-f"])[0] == 403
        assert _get(rep.urls["pn-g"])[0] == 200
        assert rep.urls["pn-g"].endswith("/sipp/")
        assert wait_until(lambda: rep.hits("pn-f"), timeout=10, what="pn-f's hit") == ["GET /"]
        assert rep.hits("pn-e") == []


def test_a_bad_plan_names_the_court_and_the_fix(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"courts": [{"court_id": "pn-x", "address": "10.0.0.1"}]}))
    with pytest.raises(PlanError, match=r"court pn-x: address must be on 127\.0\.0\.0/8"):
        load_plan(plan)
    plan.write_text(json.dumps({"courts": [{"court_id": "pn-x", "address": "127.0.0.9",
                                            "answer": "moved"}]}))  # fmt: skip
    with pytest.raises(PlanError, match="answer 'moved' needs moved_to"):
        load_plan(plan)
