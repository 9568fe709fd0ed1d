"""The shipper behind ``ship.py``: Scrapy-free, one module per concern.

- :mod:`.cli`: options, workspace, lock, exit statuses (``ship.py``, ``harvest-ship``);
- :mod:`.run`: the run loop: the per-document attempt loop, sequential or over N connections;
- :mod:`.transport`: one HTTP POST over a kept-alive connection;
- :mod:`.policy`: what an answer means (the contract table), backoff, Retry-After, the breaker;
- :mod:`.endpoints`: endpoint URLs, their validation, and fallback;
- :mod:`.shiplog`: the ship-log: reader (skip index), group-committing writer, repair, compaction,
  the workspace lock;
- :mod:`.documents`: the documents read from the item store, checked and encoded;
- :mod:`.progress`: the progress bar / lines and the run's :class:`~.progress.Summary`;
- :mod:`.errors`: exit statuses, outcomes, the expected errors, and token scrubbing.

Options, exit codes and the ship-log format: docs/shipping.md.
"""
