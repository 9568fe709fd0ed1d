"""Deploying to scrapyd: build the egg as ``scrapyd-deploy`` does, run a crawl as a scrapyd job.

Everything runs on this machine: a scrapyd with its own directories in ``tmp_path``, answering on
a Unix socket there (no TCP port to pick), and the replica on 127.0.0.1 (port 0, its own pick).
The egg is built from a copy of the tracked files, so the work tree gets no build leftovers.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import exported, mismatches, state_query, truth_by_key
from tests.support.scrapyd import (
    add_version,
    answers,
    api,
    build_egg,
    copy_tracked,
    make_host,
    site_packages,
    wait_finished,
)
from tests.support.waiting import wait_until

#: the host is made by scripts/scrapyd-host, a real pip install (from this machine's index):
#: a minute or two alone, over 10 on a loaded machine; its first test carries it
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_tracked(tmp_path_factory.mktemp("src"))


@pytest.fixture(scope="module")
def egg(src: Path) -> Path:
    return build_egg(src, src / "harvest.egg")


@pytest.fixture(scope="module")
def host_python(tmp_path_factory: pytest.TempPathFactory, src: Path) -> Path:
    """A scrapyd host made by ``scripts/scrapyd-host`` as the README says, from a fresh copy of
    the checkout: harvest's dependencies and scrapyd (pip, from this machine's package index),
    without harvest."""
    home = tmp_path_factory.mktemp("host")
    venv = home / "venv"
    made = subprocess.run(
        [str(src / "scripts" / "scrapyd-host"), str(venv)],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert made.returncode == 0, made.stderr[-3000:]
    assert made.stdout.strip() == (
        f"scrapyd-host: ready: {venv} (dependencies only); start {venv}/bin/scrapyd, "
        "then scrapyd-deploy"
    )
    python = venv / "bin" / "python"
    check = "import scrapy, scrapyd\ntry:\n import harvest\nexcept ImportError:\n print('none')"
    probe = subprocess.run(
        [str(python), "-c", check], capture_output=True, text=True, cwd=home, check=True
    )
    assert probe.stdout.strip() == "none", probe.stderr
    return python


def test_scrapyd_host_refuses_a_venv_with_harvest_installed(
    host_python: Path, src: Path, tmp_path: Path
) -> None:
    """The check looks at the host's interpreter, not at ./harvest of the checkout it runs in."""
    site = site_packages(host_python)
    (site / "harvest-installed-here.pth").write_text(f"{src}\n")
    try:
        again = subprocess.run(
            [str(src / "scripts" / "scrapyd-host"), str(host_python.parents[1])],
            cwd=src,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    finally:
        (site / "harvest-installed-here.pth").unlink()
    assert again.returncode == 1
    assert "scrapyd-host: harvest is installed in" in again.stderr


@dataclass(frozen=True)
class Scrapyd:
    sock: Path  # its Unix socket (the HTTP API)
    home: Path
    python: Path  # the host's interpreter (dependencies only)


@contextlib.contextmanager
def running_scrapyd(home: Path, python: Path) -> Iterator[Path]:
    """scrapyd run by ``python`` with its directories in ``home``; yields its Unix socket."""
    sock = home / "scrapyd.sock"
    (home / "scrapyd.conf").write_text(
        "[scrapyd]\n"
        f"http_port = 0\nunix_socket_path = {sock}\n"
        f"eggs_dir = {home}/eggs\nlogs_dir = {home}/logs\ndbs_dir = {home}/dbs\n"
        "items_dir =\njobs_dir =\npoll_interval = 0.5\nmax_proc = 2\n"
    )
    with (home / "scrapyd.out").open("ab") as out:  # "Process died: exitstatus=5" ...
        proc = subprocess.Popen(
            [str(python), "-m", "scrapyd", f"--pidfile={home}/scrapyd.pid"],
            cwd=home,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until(lambda: answers(sock), timeout=60, what="scrapyd answers", proc=proc)
        yield sock
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture(scope="module")
def scrapyd(
    tmp_path_factory: pytest.TempPathFactory, egg: Path, host_python: Path
) -> Iterator[Scrapyd]:
    home = tmp_path_factory.mktemp("scrapyd")
    with running_scrapyd(home, host_python) as sock:
        add_version(sock, "r1", egg)
        yield Scrapyd(sock, home, host_python)


def test_egg_carries_the_settings_entry_point_and_the_spider(scrapyd: Scrapyd) -> None:
    assert api(scrapyd.sock, "listspiders.json?project=harvest")["spiders"] == ["sipp"]


def test_a_scrapyd_job_harvests_into_an_absolute_workspace(
    scrapyd: Scrapyd, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    with running_replica(cases=20, seed=5, court_id="pn-replika") as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        settings = {
            "HARVEST_WORKSPACE": str(workspace),
            "DOWNLOAD_DELAY": "0",
            "AUTOTHROTTLE_ENABLED": "False",
            "CONCURRENT_REQUESTS_PER_DOMAIN": "8",
        }
        form = [("project", "harvest"), ("spider", "sipp"), ("jobid", "job-pn-replika-1")]
        form += [("base_url", replica.url), ("court_id", "pn-replika")]
        form += [("setting", f"{k}={v}") for k, v in settings.items()]
        assert api(scrapyd.sock, "schedule.json", form)["status"] == "ok"
        wait_finished(scrapyd.sock, "job-pn-replika-1")
    assert mismatches(exported(workspace), truth) == {}
    runs = state_query(workspace, "SELECT job, close_reason FROM runs")
    assert runs == [("job-pn-replika-1", "finished")]


def test_a_relative_workspace_under_scrapyd_fails_with_the_fix(scrapyd: Scrapyd) -> None:
    form = [("project", "harvest"), ("spider", "sipp"), ("jobid", "job-relative")]
    form += [("base_url", "http://127.0.0.1:9/"), ("setting", "HARVEST_WORKSPACE=relative/ws")]
    assert api(scrapyd.sock, "schedule.json", form)["status"] == "ok"
    wait_finished(scrapyd.sock, "job-relative")
    log = scrapyd.home / "logs" / "harvest" / "sipp" / "job-relative.log"
    assert "HARVEST_WORKSPACE must be an absolute path" in log.read_text()


def test_the_egg_carries_the_product_and_not_the_outside_parties(egg: Path) -> None:
    with zipfile.ZipFile(egg) as z:
        top = {name.split("/")[0] for name in z.namelist()}
        settings = z.read("harvest/settings.py").decode()
    assert top == {"EGG-INFO", "harvest", "extensions", "pipelines", "ship.py"}
    assert "DOWNLOAD_TIMEOUT = 60" in settings


def test_the_host_requirements_are_the_dependencies_without_harvest() -> None:
    from scripts.host_requirements import host_requirements

    reqs = host_requirements()
    assert reqs[:4] == ["scrapy>=2.19", "scrapy-playwright>=0.0.48", "itemadapter>=0.12",
                        "requests>=2.32"]  # fmt: skip
    assert "scrapyd>=1.6" in reqs
    assert "setuptools<81" in reqs
    assert not any(r.startswith(("harvest", "scrapyd-client", "starlette")) for r in reqs)


def _run_job(scrapyd: Scrapyd, job: str, workspace: Path) -> str:
    form = [("project", "harvest"), ("spider", "sipp"), ("jobid", job)]
    form += [("base_url", "http://127.0.0.1:9/"), ("court_id", "pn-closed")]
    form += [("setting", f"HARVEST_WORKSPACE={workspace}"), ("setting", "RETRY_TIMES=0")]
    assert api(scrapyd.sock, "schedule.json", form)["status"] == "ok"
    wait_finished(scrapyd.sock, job)
    return (scrapyd.home / "logs" / "harvest" / "sipp" / f"{job}.log").read_text()


def changed_egg(src: Path, tmp_path: Path) -> Path:
    """The project with one setting changed on the deploy machine (60 -> 47 s), as an egg."""
    src2 = tmp_path / "src2"
    shutil.copytree(src, src2, ignore=shutil.ignore_patterns("*.egg", "build", "*.egg-info"))
    settings = src2 / "harvest" / "settings.py"
    text = settings.read_text()
    assert "DOWNLOAD_TIMEOUT = 60\n" in text
    settings.write_text(text.replace("DOWNLOAD_TIMEOUT = 60\n", "DOWNLOAD_TIMEOUT = 47\n"))
    return build_egg(src2, tmp_path / "r2.egg")


def test_a_new_deploy_is_the_code_the_next_job_runs(
    scrapyd: Scrapyd, src: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    first = _run_job(scrapyd, "job-deploy-r1", workspace)
    assert "'DOWNLOAD_TIMEOUT': 60" in first
    add_version(scrapyd.sock, "r2", changed_egg(src, tmp_path))
    second = _run_job(scrapyd, "job-deploy-r2", workspace)
    assert "'DOWNLOAD_TIMEOUT': 47" in second
    assert "'DOWNLOAD_TIMEOUT': 60" not in second


def test_a_host_with_harvest_installed_ignores_every_deploy(
    egg: Path, src: Path, tmp_path: Path
) -> None:
    """Why the host gets the dependencies only: with harvest installed (``pip install .``, what
    the README once said) scrapyd's egg comes after site-packages and never runs."""
    (tmp_path / "host").mkdir()
    (tmp_path / "scrapyd").mkdir()
    python = make_host(tmp_path / "host", installed=src)
    with running_scrapyd(tmp_path / "scrapyd", python) as sock:
        add_version(sock, "r1", egg)
        add_version(sock, "r2", changed_egg(src, tmp_path))
        host = Scrapyd(sock, tmp_path / "scrapyd", python)
        log = _run_job(host, "job-installed", tmp_path / "ws")
    assert "'DOWNLOAD_TIMEOUT': 60" in log  # the installed copy, not the deployed r2


def test_scrapy_status_runs_on_the_host_from_the_deployed_egg(
    scrapyd: Scrapyd, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    _run_job(scrapyd, "job-status", workspace)
    (egg,) = sorted((scrapyd.home / "eggs" / "harvest").glob("r1*.egg"))
    # README, "scrapyd": the deployed egg on PYTHONPATH, the project's settings module named
    env = {
        **os.environ,
        "PYTHONPATH": str(egg),
        "SCRAPY_SETTINGS_MODULE": "harvest.settings",
        "HARVEST_WORKSPACE": str(workspace),
    }
    result = subprocess.run(
        [str(scrapyd.python), "-m", "scrapy", "status", "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    doc = json.loads(result.stdout)
    assert [r["job"] for r in doc["runs"]] == ["job-status"]
    assert doc["courts"][0]["court"] == "pn-closed"
    assert doc["courts"][0]["error"] == 1


def _finished_at(sock: Path, job: str) -> bool:
    return any(j["id"] == job for j in api(sock, "listjobs.json?project=harvest")["finished"])


@pytest.mark.parametrize("cancels", [1, 2])
def test_a_cancelled_job_ends_in_bound_with_exit_5_and_its_summary(
    scrapyd: Scrapyd, tmp_path: Path, cancels: int
) -> None:
    """scrapyd's cancel.json sends SIGINT: once, the job stops within HARVEST_STOP_TIMEOUT
    (DOWNLOAD_TIMEOUT 3 + 15 s); twice, within 2 s of the second. Either way the process exits
    5 (scrapyd logs it) and the job's log ends with the summary; the next job resumes it."""
    from tests.support.scheduler import exchanges

    workspace = tmp_path / "ws"
    job = f"job-cancel-{cancels}"
    log = scrapyd.home / "logs" / "harvest" / "sipp" / f"{job}.log"
    with running_replica(cases=60, seed=9, court_id="pn-replika") as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        settings = {
            "HARVEST_WORKSPACE": str(workspace),
            "DOWNLOAD_DELAY": "0",
            "AUTOTHROTTLE_ENABLED": "False",
            "CONCURRENT_REQUESTS_PER_DOMAIN": "4",
            "DOWNLOAD_TIMEOUT": "3",
        }
        form = [("project", "harvest"), ("spider", "sipp")]
        form += [("base_url", replica.url), ("court_id", "pn-replika")]
        form += [("setting", f"{k}={v}") for k, v in settings.items()]
        assert api(scrapyd.sock, "schedule.json", [*form, ("jobid", job)])["status"] == "ok"
        wait_until(lambda: exchanges(workspace) >= 40, timeout=120, what="the job crawls")
        cancel = [("project", "harvest"), ("job", job)]
        assert api(scrapyd.sock, "cancel.json", cancel)["prevstate"] == "running"
        if cancels == 2:
            wait_until(
                lambda: "Received SIGINT" in log.read_text(), timeout=30, what="SIGINT logged"
            )
            api(scrapyd.sock, "cancel.json", cancel)
        sent = time.monotonic()
        wait_until(lambda: _finished_at(scrapyd.sock, job), timeout=60, what="the job ends")
        took = time.monotonic() - sent
        text = log.read_text()
        resume = f"{job}-resume"
        assert api(scrapyd.sock, "schedule.json", [*form, ("jobid", resume)])["status"] == "ok"
        wait_finished(scrapyd.sock, resume, timeout=900)
    # scrapyd's poll interval is 0.5 s: a job ended within 2 s is seen within 2.5 s
    assert took <= (18.5 if cancels == 1 else 2.5), took
    assert (
        text.rstrip()
        .splitlines()[-1]
        .endswith(
            "exit status 5: stopped before the end with requests still waiting: run the same "
            "command again to resume"
        )
    ), text[-2000:]
    daemon_log = (scrapyd.home / "scrapyd.out").read_text()
    assert f"Process died: exitstatus=5 project='harvest' spider='sipp' job='{job}'" in daemon_log
    assert f"Process finished: project='harvest' spider='sipp' job='{resume}'" in daemon_log
    assert mismatches(exported(workspace), truth) == {}
