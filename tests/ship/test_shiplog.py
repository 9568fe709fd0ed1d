"""ship-log.jsonl: the skip index read back, torn tails cut, the workspace lock."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from harvest.shipping.errors import ShipLogError, WorkspaceLocked
from harvest.shipping.shiplog import (
    ShipLog,
    WorkspaceLock,
    compact_log,
    read_ship_log,
    repair_tail,
)
from tests.support.paths import REPO

H1 = "sha256:" + "1" * 64
H2 = "sha256:" + "2" * 64


def line(
    key: str, h: str, outcome: str, *, final: bool = True, endpoint: str = "http://a"
) -> dict:
    return {
        "final": final,
        "key": key,
        "content_hash": h,
        "outcome": outcome,
        "time": "2026-11-30T00:00:00.000Z",
        "attempt": 1,
        "endpoint": endpoint,
        "status": 201,
        "result": None,
        "error": None,
        "ms": 3,
    }


def write(path: Path, records: list[dict], *, sync: bool = True) -> None:
    log = ShipLog.open(path)
    for r in records:
        log.write(r, sync=sync and r["final"])
    log.close()


def test_latest_final_line_wins(tmp_path: Path) -> None:
    path = tmp_path / "ship-log.jsonl"
    write(
        path,
        [
            line("k:a", H1, "ok"),
            line("k:b", H1, "ok"),
            line("k:b", H2, "rejected"),  # latest final of b is not ok
            line("k:c", H1, "failed"),
            line("k:c", H2, "skipped-duplicate"),
            line("k:d", H1, "ok", endpoint="http://b"),
            line("k:d", H2, "retry", final=False),  # non-final lines do not count
        ],
    )
    state = read_ship_log(path)
    assert state.endpoint == "http://b"  # the last final ok/skipped-duplicate line
    assert state.shipped.count_shipped() == 3
    assert state.shipped.pop("k:a") == H1
    assert state.shipped.pop("k:b") is None
    assert state.shipped.pop("k:c") == H2
    assert state.shipped.pop("k:d") == H1
    assert state.shipped.pop("k:zzz") is None
    assert state.bad_lines == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_escaped_keys_foreign_member_order_and_bad_lines_take_the_slow_path(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ship-log.jsonl"
    odd_key = 'sipp.pn-x:12/Pid "quoted" \\ back/2024'
    write(path, [line(odd_key, H1, "ok"), line("k:plain", H1, "ok")])
    with path.open("ab") as f:
        reordered = {"key": "k:foreign", "outcome": "ok", "content_hash": H2, "final": True}
        f.write(json.dumps(reordered).encode() + b"\n")
        f.write(b"this is not json\n")
        f.write(json.dumps(line("k:after", H1, "ok")).encode() + b"\n")
    state = read_ship_log(path)
    assert state.shipped.pop(odd_key) == H1
    assert state.shipped.pop("k:plain") == H1
    assert state.shipped.pop("k:foreign") == H2
    assert state.shipped.pop("k:after") == H1
    assert state.bad_lines == 1


def test_fast_and_slow_paths_agree_on_a_large_log(tmp_path: Path) -> None:
    path = tmp_path / "ship-log.jsonl"
    records = []
    for i in range(30000):
        key = f"k:{i % 7000}"
        outcome = ("ok", "retry", "rejected", "skipped-duplicate", "failed")[i % 5]
        h = f"sha256:{i:064x}"
        records.append(line(key, h, outcome, final=outcome != "retry"))
    write(path, records, sync=False)
    expected: dict[str, str | None] = {}
    for r in records:
        if r["final"]:
            ok = r["outcome"] in ("ok", "skipped-duplicate")
            expected[r["key"]] = r["content_hash"] if ok else None
    state = read_ship_log(path)
    assert {k: state.shipped.pop(k) for k in expected} == expected


def test_missing_log_is_empty(tmp_path: Path) -> None:
    state = read_ship_log(tmp_path / "nope.jsonl")
    assert len(state.shipped) == 0
    assert state.endpoint is None


@pytest.mark.parametrize(
    ("tail", "why"),
    [
        (b'{"final":true,"key":"k:torn","content_ha', "no newline"),
        (b"\x00\x00\x00\x00\x00\x00", "NUL bytes left by a crash"),
        (b'{"final":true,"key":"k:torn"\n', "newline but not JSON"),
        (b"garbage\n\x00\x00", "two bad lines"),
    ],
)
def test_torn_tail_is_cut_and_earlier_lines_kept(tmp_path: Path, tail: bytes, why: str) -> None:
    path = tmp_path / "ship-log.jsonl"
    write(path, [line("k:a", H1, "ok"), line("k:b", H2, "ok")])
    good = path.read_bytes()
    with path.open("ab") as f:
        f.write(tail)
    state = read_ship_log(path)  # a reader (the dry run) ignores it without touching the file
    assert path.read_bytes() == good + tail
    assert state.shipped.pop("k:b") == H2
    assert repair_tail(path) == len(tail), why
    assert path.read_bytes() == good
    assert repair_tail(path) == 0


def test_repair_of_an_empty_or_missing_log(tmp_path: Path) -> None:
    assert repair_tail(tmp_path / "missing.jsonl") == 0
    only_garbage = tmp_path / "g.jsonl"
    only_garbage.write_bytes(b'{"final":tr')
    assert repair_tail(only_garbage) == 11
    assert only_garbage.read_bytes() == b""


def test_the_lock_refuses_a_second_holder_naming_the_first(tmp_path: Path) -> None:
    lock_path = tmp_path / "ship-log.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import sys, time; from pathlib import Path;"
                "from harvest.shipping.shiplog import WorkspaceLock;"
                "lock = WorkspaceLock(Path(sys.argv[1])); lock.acquire();"
                "print('held', flush=True);"
                "time.sleep(30)"
            ),
            str(lock_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(WorkspaceLocked, match=f"pid {holder.pid}"):
            WorkspaceLock(lock_path).acquire()
    finally:
        holder.kill()
        holder.communicate()
    # The holder died (SIGKILL): the lock went with it, nothing stale to clean up.
    lock = WorkspaceLock(lock_path)
    lock.acquire()
    assert json.loads(lock_path.read_text())["pid"] == os.getpid()
    assert stat.S_IMODE(lock_path.stat().st_mode) == 0o600
    lock.release()


def test_repair_never_cuts_more_than_the_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "ship-log.jsonl"
    write(path, [line("k:a", H1, "ok")])
    with path.open("ab") as f:
        f.write(b"mid-file garbage\n")
    write(path, [line("k:b", H1, "ok")])
    with path.open("ab") as f:
        f.write(b"bad one\nbad two\n")
    kept = path.read_bytes()[: -len(b"bad two\n")]
    assert repair_tail(path) == len(b"bad two\n")  # only the last line: the rest is not a tail
    assert path.read_bytes() == kept
    state = read_ship_log(path)
    assert state.shipped.pop("k:a") == H1
    assert state.shipped.pop("k:b") == H1


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_group_commit_fsyncs_final_lines_by_count_and_by_age_and_at_close(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ship-log.jsonl"
    clock = FakeClock()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    log = ShipLog(path, fd, sync_every=3, sync_seconds=0.5, clock=clock)
    log.write(line("k:a", H1, "retry", final=False), sync=False)
    log.write(line("k:a", H1, "ok"), sync=True)
    log.write(line("k:b", H1, "ok"), sync=True)
    assert log.syncs == 0  # two final lines, younger than 0.5 s: not yet
    assert path.read_bytes().count(b"\n") == 3  # but every line is written at once
    log.write(line("k:c", H1, "ok"), sync=True)
    assert log.syncs == 1  # the third final line
    log.write(line("k:d", H1, "ok"), sync=True)
    clock.t += 0.6
    log.write(line("k:e", H1, "retry", final=False), sync=False)
    assert log.syncs == 1  # retry lines never force a sync
    log.write(line("k:e", H1, "ok"), sync=True)
    assert log.syncs == 2  # the oldest unsynced final line is 0.6 s old
    log.write(line("k:f", H1, "ok"), sync=True)
    log.close()
    assert log.syncs == 3  # the tail at close
    assert len(read_ship_log(path).shipped) == 6


def test_the_flusher_keeps_the_time_bound_while_no_line_comes(tmp_path: Path) -> None:
    import time

    log = ShipLog.open(tmp_path / "ship-log.jsonl", sync_every=1000, sync_seconds=0.05)
    log.start_flusher()
    try:
        log.write(line("k:a", H1, "ok"), sync=True)
        deadline = time.monotonic() + 5
        while log.syncs == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert log.syncs == 1
    finally:
        log.close()


def test_a_sealed_log_drops_late_answers_but_takes_the_aborted_lines(tmp_path: Path) -> None:
    path = tmp_path / "ship-log.jsonl"
    log = ShipLog.open(path)
    log.seal()
    log.write(line("k:late", H1, "ok"), sync=True)
    log.write_sealed(line("k:a", H1, "aborted"))
    log.write(line("k:late", H1, "ok"), sync=True)
    log.close()
    assert [json.loads(x)["key"] for x in path.read_text().splitlines()] == ["k:a"]


def test_a_write_error_is_a_ship_log_error_and_stays_one(tmp_path: Path) -> None:
    path = tmp_path / "ship-log.jsonl"
    fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o600)  # writes fail with EBADF
    log = ShipLog(path, fd)
    with pytest.raises(ShipLogError, match=r"cannot write ship-log .*nothing after this was sent"):
        log.write(line("k:a", H1, "ok"), sync=True)
    with pytest.raises(ShipLogError):
        log.write(line("k:b", H1, "ok"), sync=True)
    log.close()


def compacted_log(path: Path) -> list[dict]:
    esc = 'k:"quoted"\\key'
    records = [
        line("k:a", H1, "retry", final=False),
        line("k:a", H1, "ok", endpoint="http://a"),
        line("k:b", H1, "ok"),
        line("k:b", H2, "retry", final=False),
        line("k:b", H2, "failed"),  # latest final of b is a failure: b is sent again
        line("k:c", H1, "ok"),
        line("k:c", H2, "ok"),  # c changed and shipped again: H2 wins
        line("k:d", H1, "skipped-duplicate"),
        line("k:e", H1, "stale"),
        line(esc, H1, "ok"),  # a key with JSON escapes (the slow path)
        line("k:f", H1, "rejected"),
        line("k:g", H1, "aborted"),
        line("k:h", H2, "ok", endpoint="http://b"),  # the endpoint that worked last
        line("k:i", H1, "retry", final=False),
    ]
    write(path, records)
    with path.open("ab") as f:
        f.write(b"not json at all\n")
        f.write(json.dumps(line("k:j", H1, "ok"), sort_keys=True).encode() + b"\n")
    return records


def skip_set(path: Path, keys: list[str]) -> dict[str, str | None]:
    state = read_ship_log(path)
    return {k: state.shipped.pop(k) for k in keys}


def test_compaction_keeps_one_line_per_shipped_key_and_the_same_skip_set(tmp_path: Path) -> None:
    path = tmp_path / "ship-log.jsonl"
    compacted_log(path)
    keys = [
        "k:a",
        "k:b",
        "k:c",
        "k:d",
        "k:e",
        'k:"quoted"\\key',
        "k:f",
        "k:g",
        "k:h",
        "k:i",
        "k:j",
    ]
    before = read_ship_log(path)
    expected = skip_set(path, keys)
    assert expected == {
        "k:a": H1, "k:b": None, "k:c": H2, "k:d": H1, "k:e": H1, 'k:"quoted"\\key': H1,
        "k:f": None, "k:g": None, "k:h": H2, "k:i": None, "k:j": H1,
    }  # fmt: skip
    old_lines = path.read_bytes().splitlines(keepends=True)
    result = compact_log(path)
    assert (result.lines_before, result.lines_after) == (16, 7)
    assert result.bytes_after == path.stat().st_size < result.bytes_before
    new_lines = path.read_bytes().splitlines(keepends=True)
    assert [json.loads(x)["key"] for x in new_lines] == [
        "k:a", "k:c", "k:d", "k:e", 'k:"quoted"\\key', "k:h", "k:j"
    ]  # fmt: skip
    assert all(x in old_lines for x in new_lines)  # byte for byte
    assert [old_lines.index(x) for x in new_lines] == sorted(old_lines.index(x) for x in new_lines)
    assert len({json.loads(x)["key"] for x in new_lines}) == len(new_lines)
    assert skip_set(path, keys) == expected
    after = read_ship_log(path)
    assert after.endpoint == before.endpoint
    assert after.shipped.count_shipped() == before.shipped.count_shipped() == 7
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ship-log.jsonl"]
    again = compact_log(path)  # idempotent
    assert (again.lines_before, again.lines_after) == (7, 7)
    assert path.read_bytes().splitlines(keepends=True) == new_lines
