"""Fixtures of the replica tests: one shared replica per session, helpers to walk its pages."""

from __future__ import annotations

import re

import pytest
import requests

from reference.sipp_site.testing import Replica, running_replica

TOKEN_LINK = re.compile(r"show_detil/([A-Za-z0-9]+={0,2})\"")
PAGE_TEMPLATE = re.compile(r"window\.open\('([^']*list_perkara/page/)'\+pageNumber\+'(/[^']+)'")


@pytest.fixture(scope="session")
def replica() -> Replica:
    with running_replica(cases=300, seed=7) as rep:
        yield rep


@pytest.fixture(scope="session")
def pa_replica() -> Replica:
    with running_replica(cases=120, seed=3, variant="pa") as rep:
        yield rep


@pytest.fixture
def http() -> requests.Session:
    s = requests.Session()
    s.headers["User-Agent"] = "replica-tests/1.0"
    yield s
    s.close()


def detail_tokens(html: str) -> list[str]:
    return TOKEN_LINK.findall(html)
