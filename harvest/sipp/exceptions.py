"""The one exception the SIPP parsers raise."""

from __future__ import annotations


class ParseError(ValueError):
    """A page that does not have the structure its page type must have.

    The message names the page type and what is missing (e.g. ``"list page: no table
    #tablePerkaraAll"``). It is raised for malformed or unexpected pages; error pages served
    with status 200 are recognised earlier by :func:`harvest.sipp.page_error`.
    """
