"""Fixtures and hooks for the whole suite.

Parallel runs (pytest-xdist; ``scripts/test`` runs ``-n 4 --dist loadgroup``): each worker is a
process of its own, with its own ``tmp_path`` root, its own PostgreSQL server (``pg_server``: one
a process, however many modules import the fixture) and servers bound to ports they pick
themselves (port 0). A test written for a serial run is safe in a parallel one when it keeps to
``tmp_path`` and the helpers of tests/support; nothing here needs to be named by a test.

Under xdist two hooks shape the distribution (a serial run, ``-n 0``, is untouched):

* tests sharing a module-, class- or package-scoped fixture (one replica crawl, one scrapyd
  host, ...) are kept on one worker (an ``xdist_group`` per module and parameter of those
  fixtures), so the fixture is built once, as in a serial run;
* the tests marked ``slow`` (end-to-end crawls) are handed out first, so the last minutes are
  not spent waiting for one long crawl started at the end.

Before anything runs, the checkout is compiled to bytecode once (tests/support/bytecode.py): the
machines set ``PYTHONDONTWRITEBYTECODE``, so each process the tests start compiled it again.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _pytest.nodeid import NodeId

from tests.support.bytecode import compile_checkout
from tests.support.harvest_run import STARTED, kill_started_since
from tests.support.postgres import pg_database, pg_server, stop_shared_server

__all__ = ["pg_database", "pg_server"]

#: Fixture scopes wider than a test and narrower than a worker's session.
SHARED_SCOPES = frozenset({"module", "class", "package"})


def _distributed(config: pytest.Config) -> bool:
    """Whether this process is an xdist worker (or controller) of a parallel run."""
    return bool(getattr(config.option, "numprocesses", None)) or hasattr(config, "workerinput")


def shared_fixture_group(item: pytest.Item) -> str | None:
    """The group keeping ``item`` with the tests that share its wider-scoped fixtures: its module
    (or class) and the parameter of each such fixture; ``None`` when it has none."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    shared: list[str] = []
    for name in sorted(item.fixturenames):  # type: ignore[attr-defined]
        defs = info.name2fixturedefs.get(name)
        if defs and defs[-1].scope in SHARED_SCOPES and defs[-1].baseid != "":
            shared.append(name)
    if not shared:
        return None
    callspec = getattr(item, "callspec", None)
    indices = getattr(callspec, "indices", {}) if callspec is not None else {}
    params = [f"{name}={indices[name]}" for name in shared if name in indices]
    # xdist splits the group off the node id at the last "@": the group holds neither "@" nor "]"
    scope = item.nodeid.split("::")[0]
    return ":".join([scope, *params]).replace("@", "_").replace("]", "_")


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # once: xdist's workers start after this
        compile_checkout()


def pytest_itemcollected(item: pytest.Item) -> None:
    # here, not in pytest_collection_modifyitems: xdist appends the groups to the node ids there
    if not _distributed(item.config):
        return
    group = shared_fixture_group(item)
    if group is not None and item.get_closest_marker("xdist_group") is None:
        item.add_marker(pytest.mark.xdist_group(group))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _distributed(config):  # the slow ones first (stable: the order within each kind is kept)
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.hookimpl(tryfirst=True)  # before xdist sends the node ids to the controller
def pytest_collection_finish(session: pytest.Session) -> None:
    """``--dist loadgroup`` sees a group as a node id's ``@<group>`` suffix. xdist 3.8 writes it
    to ``item._nodeid``, which pytest 9 no longer reads (``item._id``): set where it is read,
    unless xdist did (a version that works), so groups hold under either."""
    if not getattr(session.config.option, "loadgroup", False):  # False without xdist
        return
    for item in session.items:
        marks = [m.args[0] if m.args else m.kwargs.get("name", "default")
                 for m in item.iter_markers("xdist_group")]  # fmt: skip
        if marks and "@" not in item.nodeid.rpartition("]")[2]:
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(sorted(map(str, set(marks))))}")  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _no_process_outlives_its_test() -> Iterator[None]:
    """A process a test started with ``harvest_run.start`` and left running (its assertion
    failed before it waited) is killed when the test ends, not garbage-collected in the next
    test, which would fail on the ``ResourceWarning``. Module fixtures' processes started before
    this test are left alone."""
    mark = len(STARTED)
    yield
    kill_started_since(mark)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    stop_shared_server()
