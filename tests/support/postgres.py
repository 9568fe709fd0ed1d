"""A throwaway PostgreSQL server for the tests, and a fresh database per test.

``pg_server`` (session): one server per test process (per pytest-xdist worker), however many
modules or conftests import the fixture: it is started by the first test that asks for it and
stopped at the end of the session (:func:`stop_shared_server`, called by tests/conftest.py; at
exit otherwise). With ``HARVEST_TEST_DATABASE_URL`` set (a role allowed to
``CREATE DATABASE``), that server is used and nothing is started. Otherwise the Debian
``postgresql`` binaries (``/usr/lib/postgresql/<ver>/bin``, installed by scripts/bootstrap) build
one in a temporary directory: ``initdb`` (a superuser ``harvest`` with a random password; local
socket connections trusted, TCP ones need the password: scram-sha-256), then ``pg_ctl start``
listening on a free port of 127.0.0.1 and on a unix socket in that directory, with ``fsync``
off (a test server loses nothing it needs on a crash). It is stopped (``pg_ctl stop -m fast``)
and its directory removed at the end of the session.

PostgreSQL refuses to run as root: when the tests run as root, ``initdb``, ``pg_ctl`` and the
server run as the ``postgres`` user the Debian package creates (else ``nobody``) through
``setpriv``, in a directory owned by that user.

``pg_database`` (function): ``CREATE DATABASE`` of a new name for the test (unique across
workers: it holds the process id), its URL (with the password, over TCP) given to the test;
dropped (``WITH (FORCE)``) after it.

Without the binaries and without ``HARVEST_TEST_DATABASE_URL`` the PostgreSQL tests are skipped,
except under CI (``CI`` set), where that is a failure.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

URL_ENV = "HARVEST_TEST_DATABASE_URL"
SUPERUSER = "harvest"


def server_bindir() -> Path | None:
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(candidate, "initdb").exists():
            return Path(candidate)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """A running server: ``admin_url`` (a superuser's), :meth:`url` of one of its databases."""

    def __init__(self, admin_url: str, *, datadir: Path | None = None) -> None:
        self.admin_url = admin_url
        self.datadir = datadir
        self._n = 0

    def url(self, dbname: str) -> str:
        parts = urlsplit(self.admin_url)
        return urlunsplit((parts.scheme, parts.netloc, f"/{dbname}", parts.query, ""))

    def create_database(self) -> str:
        self._n += 1
        name = f"harvest_test_{os.getpid()}_{self._n}_{secrets.token_hex(3)}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return name

    def drop_database(self, name: str) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class ThrowawayServer:
    """initdb + pg_ctl in a temporary directory (as an unprivileged user when root)."""

    def __init__(self, bindir: Path, *, durable: bool = False) -> None:
        self.bindir = bindir
        self.durable = durable  # fsync on (benchmarks); tests run without it
        self.root = Path(tempfile.mkdtemp(prefix="harvest-pg-"))
        self.data = self.root / "data"
        self.password = secrets.token_urlsafe(16)
        self.port = _free_port()
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                user = pwd.getpwnam("nobody")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self.prefix = [
                "setpriv",
                f"--reuid={user.pw_uid}",
                f"--regid={user.pw_gid}",
                "--clear-groups",
                "--",
            ]

    def _run(self, *args: str) -> None:
        proc = subprocess.run(
            [*self.prefix, *args],
            capture_output=True,
            text=True,
            check=False,
            cwd=self.root,
            env={**os.environ, "LC_ALL": "C.UTF-8", "TZ": "UTC"},
            timeout=120,
        )
        if proc.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(
                f"{' '.join(args[:2])} failed ({proc.returncode}): {proc.stderr.strip()} "
                f"{proc.stdout.strip()[-500:]} {tail}"
            )

    def start(self) -> str:
        pwfile = self.root / "pw"
        pwfile.write_text(self.password + "\n")
        if self.prefix:
            os.chown(pwfile, self.root.stat().st_uid, self.root.stat().st_gid)
        pwfile.chmod(0o600)
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            SUPERUSER,
            f"--pwfile={pwfile}",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            "--encoding=UTF8",
            "--no-sync",
        )
        pwfile.unlink()
        # the free port is only free when it was asked for: another process can bind it before
        # the server does, so a start that fails on its address is tried on a new port
        for attempt in range(5):
            try:
                self._start_server()
                break
            except RuntimeError as exc:
                if "already in use" not in str(exc) or attempt == 4:
                    raise
                self.port = _free_port()
        return f"postgresql://{SUPERUSER}:{self.password}@127.0.0.1:{self.port}/postgres"

    def _start_server(self) -> None:
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} "
            f"-c unix_socket_directories={self.root} -c max_connections=60 "
            "-c shared_buffers=32MB -c log_min_messages=warning"
        )
        if not self.durable:
            options += " -c fsync=off -c full_page_writes=off -c synchronous_commit=off"
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.root / "server.log"),
            "-w",
            "-t",
            "60",
            "-o",
            options,
            "start",
        )

    def halt(self) -> None:
        """Stop the server at once, as a crash would (``pg_ctl stop -m immediate``); its data
        stays for :meth:`restart`."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")

    def restart(self) -> None:
        """Start a halted server again: the same data, port and password."""
        self._start_server()

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


@contextlib.contextmanager
def bench_databases(url: str | None) -> Iterator[Callable[[], str]]:
    """For a benchmark: a maker of database URLs. With ``url`` (a database the benchmark may
    fill), that one each time; else a new database on a throwaway server **with fsync on**,
    stopped at the end. Exits when there are neither binaries nor ``url``."""
    if url:
        yield lambda: url
        return
    bindir = server_bindir()
    if bindir is None:
        raise SystemExit("no PostgreSQL binaries: run scripts/bootstrap, or give --url")
    server = ThrowawayServer(bindir, durable=True)
    try:
        pg = PostgresServer(server.start())
        yield lambda: pg.url(pg.create_database())
    finally:
        server.stop()


#: The server of this test process (started once, whoever asks first): see the module docstring.
_shared: PostgresServer | None = None
_shared_throwaway: ThrowawayServer | None = None


def shared_server() -> PostgresServer:
    """This process's test server: ``HARVEST_TEST_DATABASE_URL``'s, else a throwaway one started
    on the first call. Skips (fails under ``CI``) without either."""
    global _shared, _shared_throwaway
    if _shared is not None:
        return _shared
    given = os.environ.get(URL_ENV)
    if given:
        _shared = PostgresServer(given)
        return _shared
    bindir = server_bindir()
    if bindir is None:
        why = (
            "PostgreSQL server binaries not found (initdb): run scripts/bootstrap (it installs "
            f"the Debian package postgresql) or set {URL_ENV}"
        )
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    server = ThrowawayServer(bindir)
    try:
        admin = server.start()
    except BaseException:
        server.stop()
        raise
    _shared_throwaway = server
    _shared = PostgresServer(admin, datadir=server.data)
    atexit.register(stop_shared_server)
    return _shared


def stop_shared_server() -> None:
    """Stop this process's throwaway server, if one was started (idempotent)."""
    global _shared, _shared_throwaway
    server, _shared_throwaway, _shared = _shared_throwaway, None, None
    if server is not None:
        server.stop()


@pytest.fixture(scope="session")
def pg_server() -> PostgresServer:
    return shared_server()


@pytest.fixture
def pg_database(pg_server: PostgresServer) -> Iterator[str]:
    """The URL of a new, empty database (dropped after the test)."""
    name = pg_server.create_database()
    try:
        yield pg_server.url(name)
    finally:
        pg_server.drop_database(name)
