"""Requests to bytes and back, the way Scrapy's disk queues do it (``to_dict`` + pickle 4).

Callbacks and errbacks are stored by spider-method name, so a request whose callback is a lambda,
a closure or a function outside the spider cannot be stored. That is an error
(:class:`UnserializableRequest`), never a silent in-memory fallback: a request that only lives in
memory is lost by the next crash.
"""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING

from scrapy.utils.request import request_from_dict

if TYPE_CHECKING:
    from scrapy import Request, Spider

__all__ = ["UnserializableRequest", "dumps_request", "loads_request"]

PICKLE_PROTOCOL = 4


class UnserializableRequest(ValueError):
    """The request cannot be stored (callback not a spider method, unpicklable meta...)."""


def dumps_request(request: Request, spider: Spider) -> bytes:
    try:
        return pickle.dumps(request.to_dict(spider=spider), protocol=PICKLE_PROTOCOL)
    except (ValueError, TypeError, AttributeError, pickle.PicklingError) as exc:
        raise UnserializableRequest(
            f"cannot store {request!r} in the request state: {exc}. Callbacks and errbacks must "
            "be methods of the spider, and meta/cb_kwargs must hold only picklable data"
        ) from exc


def loads_request(blob: bytes, spider: Spider) -> Request:
    try:
        return request_from_dict(pickle.loads(blob), spider=spider)
    except Exception as exc:
        raise UnserializableRequest(
            f"cannot rebuild a stored request for spider {spider.name!r}: {exc}. Was the state "
            "written by another spider or an incompatible version?"
        ) from exc
