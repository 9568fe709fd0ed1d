"""harvest.shipping.progress: the bar / plain lines and the summary line."""

from __future__ import annotations

from harvest.shipping.progress import Progress, Summary


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_progress_bar_on_a_terminal_and_plain_lines_otherwise() -> None:
    import io

    clock = Clock()
    summary = Summary(total=200, created=40, unchanged=5, skipped=5)
    bar = Progress(io.StringIO(), total=200, tty=True, clock=clock)
    clock.t += 10
    text = bar.render(summary, clock())
    assert text.startswith("[######..................] 50/200  25% 5.0/s ETA 00:00:30")
    assert "shipped 40 unchanged 5 rejected 0 failed 0 skipped 5" in text
    plain = Progress(io.StringIO(), total=200, tty=False, interval=5, clock=clock)
    clock.t += 10
    plain(summary)
    assert plain.stream.getvalue().startswith("progress: 50/200 (25%) 5.0/s ETA 00:00:30 |")
    assert plain.stream.getvalue().endswith("\n")
