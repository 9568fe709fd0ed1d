"""Progress: the run's counts (:class:`Summary`, its final line) and how they are shown while it
runs (a bar with rate and ETA on a terminal, periodic plain lines otherwise)."""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

__all__ = ["DEFAULT_PROGRESS_INTERVAL", "Progress", "ProgressAwareHandler", "Summary"]

DEFAULT_PROGRESS_INTERVAL = 10.0


@dataclass
class Summary:
    """Counts of one run; ``stopped`` says why it ended early, if it did."""

    total: int | None = None
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    stale: int = 0
    rejected: int = 0
    failed: int = 0
    skipped: int = 0
    attempts: int = 0
    retries: int = 0
    stopped: str | None = None

    @property
    def shipped(self) -> int:
        return self.created + self.updated

    @property
    def processed(self) -> int:
        return (
            self.shipped + self.unchanged + self.stale + self.rejected + self.failed + self.skipped
        )

    def line(self, elapsed: float) -> str:
        """The final summary line (docs/shipping.md); ``stale N`` only when there were any."""
        rate = self.processed / elapsed if elapsed > 0 else 0.0
        stale = f", stale {self.stale}" if self.stale else ""
        return (
            f"shipped {self.shipped} (created {self.created}, updated {self.updated}), "
            f"unchanged {self.unchanged}, rejected {self.rejected}, failed {self.failed}, "
            f"skipped {self.skipped}{stale}; {self.attempts} requests, {self.retries} retries, "
            f"{elapsed:.1f}s, {rate:.1f} documents/s"
        )


class Progress:
    """A progress bar with rate and ETA on a terminal; plain periodic lines otherwise."""

    def __init__(
        self,
        stream: IO[str],
        *,
        total: int | None,
        tty: bool,
        interval: float = DEFAULT_PROGRESS_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.total = total
        self.tty = tty
        self.interval = interval
        self.clock = clock
        self.started = clock()
        self._last = self.started
        self._drawn = False
        self._lock = threading.Lock()

    def __call__(self, summary: Summary) -> None:
        t = self.clock()
        if t - self._last < (0.1 if self.tty else self.interval):
            return
        with self._lock:
            self._last = t
            if self.tty:
                self.stream.write("\r\x1b[K" + self.render(summary, t))
                self._drawn = True
            else:
                self.stream.write(self.render(summary, t) + "\n")
            self.stream.flush()

    def render(self, summary: Summary, t: float) -> str:
        done = summary.processed
        elapsed = max(t - self.started, 1e-9)
        rate = done / elapsed
        counts = (
            f"shipped {summary.shipped} unchanged {summary.unchanged} rejected "
            f"{summary.rejected} failed {summary.failed} skipped {summary.skipped} "
            f"retries {summary.retries}"
        )
        if not self.total:
            return f"{done} documents {rate:.1f}/s | {counts}"
        fraction = min(1.0, done / self.total)
        eta = (self.total - done) / rate if rate > 0 else float("inf")
        eta_text = time.strftime("%H:%M:%S", time.gmtime(eta)) if math.isfinite(eta) else "?"
        if self.tty:
            width = 24
            filled = int(fraction * width)
            bar = "#" * filled + "." * (width - filled)
            head = f"[{bar}] {done}/{self.total} {fraction:4.0%}"
        else:
            head = f"progress: {done}/{self.total} ({fraction:.0%})"
        return f"{head} {rate:.1f}/s ETA {eta_text} | {counts}"

    def clear(self) -> None:
        with self._lock:
            if self.tty and self._drawn:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
                self._drawn = False


class ProgressAwareHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Clears the progress bar before a log line, so the two never interleave."""

    def __init__(self, stream: IO[str], progress_ref: list[Progress]) -> None:
        super().__init__(stream)
        self._progress_ref = progress_ref

    def emit(self, record: logging.LogRecord) -> None:
        for progress in self._progress_ref:
            progress.clear()
        super().emit(record)
