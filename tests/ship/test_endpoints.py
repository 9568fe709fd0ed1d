"""harvest.shipping.endpoints: URLs validated (no traceback, no plain-http leak); fallback."""

from __future__ import annotations

import pytest

from harvest.shipping.endpoints import EndpointPool, is_loopback, parse_endpoints
from harvest.shipping.errors import ConfigError, EndpointUnusable


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("http://127.0.0.1:99999/", "is not a valid URL (Port out of range 0-65535)"),
        ("http://127.0.0.1:port/", "is not a valid URL"),
        ("http://[::1", "is not a valid URL (Invalid IPv6 URL)"),
        ("ftp://127.0.0.1/", "is not an http(s) URL"),
        ("127.0.0.1:8900", "is not an http(s) URL"),
        ("http://user:secret@127.0.0.1:8900", "must not carry credentials"),
        ("http://127.0.0.1:8900/?a=1", "must not have a query or fragment"),
    ],
)
def test_malformed_endpoints_are_configuration_errors(value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=None) as info:
        parse_endpoints([value], source="--endpoint")
    assert message in str(info.value)
    assert str(info.value).startswith("--endpoint: ")
    assert info.value.exit_status == 78


@pytest.mark.parametrize(
    "url", ["http://10.1.2.3:8900", "http://ingest.example.org", "http://[2001:db8::1]:80"]
)
def test_plain_http_off_this_machine_needs_the_opt_in(url: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_endpoints([url], source="INGEST_URL")
    assert "plain http to a host that is not this machine" in str(info.value)
    assert "--allow-plain-http" in str(info.value)
    assert parse_endpoints([url], source="INGEST_URL", allow_plain_http=True) == (url,)


def test_loopback_and_https_need_no_opt_in() -> None:
    urls = [
        "http://127.0.0.1:8900/",
        "http://127.9.9.9",
        "http://localhost:1",
        "http://[::1]:8900",
        "https://ingest.example.org",
        "http://127.0.0.1:8900",  # a duplicate once the / is gone
    ]
    assert parse_endpoints(urls, source="--endpoint") == (
        "http://127.0.0.1:8900",
        "http://127.9.9.9",
        "http://localhost:1",
        "http://[::1]:8900",
        "https://ingest.example.org",
    )
    assert [is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "10.0.0.1", "x.test")] == [
        True,
        True,
        True,
        False,
        False,
    ]


def test_no_endpoint_names_both_ways_to_give_one() -> None:
    with pytest.raises(ConfigError, match=r"--endpoint URL .* INGEST_URL"):
        parse_endpoints(["", " "], source="INGEST_URL")


def test_the_pool_starts_with_the_endpoint_that_worked_and_retires_non_apis() -> None:
    pool = EndpointPool(
        ["http://a.test", "http://b.test", "http://c.test"], preferred="http://b.test"
    )
    assert pool.current == "http://b.test"
    assert pool.live == ("http://b.test", "http://c.test", "http://a.test")
    assert pool.unreachable("http://b.test") is True  # try the next at once
    assert pool.current == "http://c.test"
    pool.retire("http://c.test", "answered 404")
    assert pool.current == "http://a.test"
    pool.retire("http://a.test", "answered 404")
    with pytest.raises(EndpointUnusable, match="no usable ingest endpoint left"):
        pool.retire("http://b.test", "answered 200 but not the ingest API's answer")
