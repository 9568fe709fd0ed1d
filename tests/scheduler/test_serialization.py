"""Stored requests: the same dict Scrapy's ``Request.to_dict`` makes, and back."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from scrapy import FormRequest, Request, Spider

from extensions.serialization import UnserializableRequest, dumps_request, loads_request


class Routed(Spider):
    name = "routed"

    def parse_case(self, response: Any) -> None:
        pass

    def on_error(self, failure: Any) -> None:
        pass

    alias = parse_case  # the same function under a second name


class Other:
    def parse_case(self, response: Any) -> None:  # same name, another class's function
        pass


def nowhere(response: Any) -> None:
    pass


REQUESTS = {
    "callback and errback": lambda s: Request(
        "http://127.0.0.1/a",
        callback=s.parse_case,
        errback=s.on_error,
        meta={"harvest_key": "case|c|1", "cookiejar": 3},
        priority=7,
        cb_kwargs={"n": 1},
    ),
    "callback only": lambda s: Request("http://127.0.0.1/b", callback=s.parse_case),
    "aliased method": lambda s: Request("http://127.0.0.1/c", callback=s.alias),
    "no callback": lambda s: Request("http://127.0.0.1/d", headers={"X-A": "1"}),
    "form subclass": lambda s: FormRequest(
        "http://127.0.0.1/e", formdata={"q": "x"}, callback=s.parse_case
    ),
}


@pytest.mark.parametrize("make", REQUESTS.values(), ids=REQUESTS.keys())
def test_stored_dict_equals_scrapys_and_round_trips(make: Any) -> None:
    spider = Routed()
    request = make(spider)
    blob = dumps_request(request, spider)
    stored, scrapys = pickle.loads(blob), request.to_dict(spider=spider)
    for attr in ("callback", "errback"):  # a method's own name (Scrapy may pick an alias)
        if scrapys[attr] is None:
            assert stored[attr] is None
        else:
            func = getattr(spider, scrapys[attr]).__func__
            assert getattr(spider, stored.pop(attr)).__func__ is func
            del scrapys[attr]
    assert stored == scrapys
    back = loads_request(blob, spider)
    assert back.to_dict(spider=spider) == request.to_dict(spider=spider)
    assert type(back) is type(request)
    if request.callback is not None:
        assert back.callback is not None
        assert back.callback.__func__ is request.callback.__func__  # type: ignore[attr-defined]


def test_a_callback_outside_the_spider_cannot_be_stored() -> None:
    spider = Routed()
    with pytest.raises(UnserializableRequest, match="Callbacks and errbacks must be methods"):
        dumps_request(Request("http://127.0.0.1/x", callback=nowhere), spider)
    with pytest.raises(UnserializableRequest, match="not an instance method"):
        dumps_request(Request("http://127.0.0.1/x", callback=Other().parse_case), spider)
