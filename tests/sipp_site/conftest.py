"""Fixtures of the replica tests: one shared replica per session (page helpers: tests/support)."""

from __future__ import annotations

import pytest
import requests

from reference.sipp_site.testing import Replica, running_replica


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
