"""Is a process named by a lease still alive? Answered for processes of this very machine only.

A lease (:mod:`extensions.pg_store`) names its holder by host name, pid and
:func:`process_identity`: the kernel's boot id and the process's start time in clock ticks
since boot (``/proc/<pid>/stat``, field 22). On the machine that wrote it, that identity tells
a live holder from a dead one at once, without waiting for the lease to expire:

* the same host name and boot id, and no process of that pid: the holder died;
* a process of that pid whose start time differs: the pid was reused, the holder died.

A holder on another host name or another boot (another node, or a machine that shares the host
name) is never judged here: its lease runs out by its TTL. Linux only (``/proc``); elsewhere
:func:`process_identity` is ``None`` and nothing is ever judged dead.

A base module: imports nothing of the project.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

__all__ = ["HolderState", "holder_state", "process_identity"]

_PROC = Path("/proc")


def _boot_id() -> str | None:
    try:
        return (_PROC / "sys/kernel/random/boot_id").read_text().strip() or None
    except OSError:
        return None


def _start_ticks(pid: int) -> int | None:
    """The start time of ``pid`` in clock ticks since boot, ``None`` when there is no such
    process (or no ``/proc``)."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may hold spaces: split after it
    fields = stat[stat.rfind(")") + 2 :].split()
    try:
        return int(fields[19])  # field 22 of the whole line
    except (IndexError, ValueError):
        return None


def process_identity(pid: int | None = None) -> str | None:
    """``<boot id>:<start ticks>`` of ``pid`` (default: this process), ``None`` off Linux."""
    boot = _boot_id()
    ticks = _start_ticks(os.getpid() if pid is None else pid)
    if boot is None or ticks is None:
        return None
    return f"{boot}:{ticks}"


class HolderState:
    """What :func:`holder_state` found: ``dead`` (with ``why``) or not known dead."""

    __slots__ = ("dead", "same_host", "why")

    def __init__(self, *, dead: bool, same_host: bool, why: str = "") -> None:
        self.dead = dead
        self.same_host = same_host
        self.why = why


def holder_state(host: str | None, pid: int | None, identity: str | None) -> HolderState:
    """Judge the holder ``pid`` on ``host`` whose :func:`process_identity` was ``identity``.

    ``same_host``: the holder ran on this machine in its current boot (host name and boot id
    match). ``dead`` only when known: on this machine, its pid is gone or now another process.
    """
    boot = _boot_id()
    if (
        not host
        or host != socket.gethostname()
        or pid is None
        or not identity
        or boot is None
        or identity.partition(":")[0] != boot
    ):
        return HolderState(dead=False, same_host=False)
    ticks = _start_ticks(pid)
    if ticks is None:
        return HolderState(dead=True, same_host=True, why=f"pid {pid} is gone on this host")
    if f"{boot}:{ticks}" != identity:
        return HolderState(
            dead=True,
            same_host=True,
            why=f"pid {pid} on this host is now another process (the holder's pid was reused)",
        )
    return HolderState(dead=False, same_host=True)
