"""A court on https (issue 11, finding 6): certificates verified by default, a clear error naming
the opt-out, and the court's own ``http://`` links (SIPP behind a TLS proxy) upgraded, never
fetched in clear."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import (
    REPO,
    crawl_command,
    exported,
    mismatches,
    state_query,
    truth_by_key,
)
from tests.support.servers import self_signed, tls_terminator

COURT = "pn-replika"

pytestmark = pytest.mark.slow


def _crawl(
    url: str, ws: Path, *, ca: Path | None = None, settings: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SSL_CERT_FILE"}
    if ca is not None:
        env["SSL_CERT_FILE"] = str(ca)
    return subprocess.run(
        crawl_command(url, COURT, ws, settings=settings),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )


def test_an_https_court_is_verified_upgraded_and_never_fetched_in_clear(tmp_path: Path) -> None:
    good = self_signed(tmp_path, ip="127.0.0.1")
    wrong_name = self_signed(tmp_path, ip=None, dns="other.example")
    with running_replica(cases=12, seed=41, court_id=COURT) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        with tls_terminator(replica.port, good) as court:
            port = court.port
            # a self-signed certificate is refused by default, with the way out named
            refused = _crawl(court.url, tmp_path / "refused")
            # trusted through OpenSSL's SSL_CERT_FILE: verified, and the replica's http:// links
            # are upgraded (the TLS port does not speak plain http: the crawl would fail)
            trusted = _crawl(court.url, tmp_path / "trusted", ca=good)
            # the per-crawl opt-out
            opted_out = _crawl(
                court.url,
                tmp_path / "opted-out",
                settings={"DOWNLOAD_VERIFY_CERTIFICATES": "False"},
            )
        with tls_terminator(replica.port, wrong_name) as court:
            # a certificate for another name is refused even when its CA is trusted
            mismatch = _crawl(court.url, tmp_path / "mismatch", ca=wrong_name)

    assert refused.returncode == 1, refused.stderr[-3000:]
    assert "failed verification" in refused.stderr
    assert "-s DOWNLOAD_VERIFY_CERTIFICATES=False" in refused.stderr
    assert (
        "scrapy crawl: the crawl stopped early (harvest_tls_error): the court's TLS "
        "certificate failed verification"
    ) in refused.stderr
    ((key, status, reason),) = state_query(
        tmp_path / "refused", "SELECT key, status, last_error FROM requests"
    )
    assert (key, status) == (f"list|{COURT}|all|1", "error")
    assert reason.startswith(f"TLS certificate of 127.0.0.1:{port} failed verification (")
    assert "certificate verify failed" in reason
    assert reason.endswith(
        "if you trust this court anyway, crawl with -s DOWNLOAD_VERIFY_CERTIFICATES=False, or "
        "add its CA with SSL_CERT_FILE=/path/to/ca.pem"
    )

    for result, ws in ((trusted, "trusted"), (opted_out, "opted-out")):
        assert result.returncode == 0, result.stderr[-3000:]
        assert mismatches(exported(tmp_path / ws), truth) == {}
        assert "'harvest/guard/upgraded':" in result.stderr
        urls = state_query(tmp_path / ws, "SELECT DISTINCT substr(url, 1, 6) FROM url_log")
        assert urls == [("https:",)]

    assert mismatch.returncode == 1, mismatch.stderr[-3000:]
    assert "failed verification" in mismatch.stderr
    assert not state_query(tmp_path / "mismatch", "SELECT key FROM requests WHERE status = 'ok'")
