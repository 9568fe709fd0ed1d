"""Requests to bytes and back, the way Scrapy's disk queues do it (``to_dict`` + pickle 4).

Callbacks and errbacks are stored by spider-method name, so a request whose callback is a lambda,
a closure or a function outside the spider cannot be stored. That is an error
(:class:`UnserializableRequest`), never a silent in-memory fallback: a request that only lives in
memory is lost by the next crash.
"""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

from scrapy.utils.request import request_from_dict

from .store import REQUEST_FORMAT

if TYPE_CHECKING:
    from scrapy import Request, Spider

__all__ = ["REQUEST_FORMAT", "UnserializableRequest", "dumps_request", "loads_request"]

PICKLE_PROTOCOL = 4


class UnserializableRequest(ValueError):
    """The request cannot be stored (callback not a spider method, unpicklable meta...)."""


def _method_name(spider: Spider, func: object) -> str | None:
    """The name of the spider method ``func`` is bound from, if found by that name.

    Scrapy's ``Request.to_dict`` searches every member of the spider (``inspect.getmembers``,
    ~0.2 ms a request); a bound method names itself, so one ``getattr`` confirms it.
    """
    inner = getattr(func, "__func__", None)
    name = getattr(inner, "__name__", None)
    if isinstance(name, str) and getattr(getattr(spider, name, None), "__func__", None) is inner:
        return name
    return None


def _to_dict(request: Request, spider: Spider) -> dict[str, Any]:
    """``request.to_dict(spider=spider)``, the same dict, without the member search."""
    names = {}
    for attr in ("callback", "errback"):
        func = getattr(request, attr)
        if callable(func):
            name = _method_name(spider, func)
            if name is None:
                return request.to_dict(spider=spider)  # Scrapy's own search (and its error)
            names[attr] = name
    if not names:
        return request.to_dict(spider=spider)
    data = request.replace(callback=None, errback=None).to_dict(spider=spider)
    data.update(names)
    return data


def dumps_request(request: Request, spider: Spider) -> bytes:
    try:
        return pickle.dumps(_to_dict(request, spider), protocol=PICKLE_PROTOCOL)
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
