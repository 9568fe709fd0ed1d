"""Keeping a harvested court current (docs/refresh.md): the due policy and the walk planner.

:mod:`harvest.refresh.policy` is pure (dates in, a decision out); :mod:`harvest.refresh.planner`
is what the spider asks, row by row, while it walks the list of a court it harvested before;
:mod:`harvest.refresh.report` is what ``scrapy status`` shows of it per court.
"""
