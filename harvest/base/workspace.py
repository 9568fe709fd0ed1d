"""The isolated workspace (docs/contracts.md): where it is; creating it and its files privately.

Case data names real people: the directory is created ``0700`` and every file in it ``0600``
(:func:`ensure_workspace`, :func:`open_private`, :func:`private_file`). Where it is has one set of
rules, :func:`resolve_workspace`, for the crawl, the commands and ``ship.py`` alike.

Imports nothing of the project (a base module: see ``[tool.importlinter]`` in pyproject.toml).
"""

from __future__ import annotations

import os
from pathlib import Path

#: Environment variable (and Scrapy setting) naming the workspace directory.
WORKSPACE_ENV = "HARVEST_WORKSPACE"
STATE_DB = "state.sqlite"
ITEMS_DB = "items.sqlite"
SHIP_LOG = "ship-log.jsonl"


class WorkspaceError(RuntimeError):
    """The workspace cannot be located or created; the message says what to set."""


def closest_scrapy_cfg(start: Path | None = None) -> Path | None:
    """The nearest ``scrapy.cfg`` in ``start`` (default: the current directory) or above it."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / "scrapy.cfg"
        if candidate.is_file():
            return candidate
    return None


def resolve_workspace(value: str | os.PathLike[str] | None, *, start: Path | None = None) -> Path:
    """The absolute workspace path for a configured value (setting, environment or option).

    ``~`` is expanded. An absolute path is taken as it is. ``None`` or empty means
    ``./workspace`` beside ``scrapy.cfg``; another relative path is taken relative to the
    directory holding ``scrapy.cfg``, found in ``start`` (default: the current directory) or above
    it. Without a ``scrapy.cfg`` (under scrapyd, where the crawl runs in scrapyd's own directory)
    only an absolute path is accepted: :class:`WorkspaceError` says so.
    """
    raw = os.fspath(value) if value else ""
    path = Path(raw).expanduser()
    if raw and path.is_absolute():
        return path
    cfg = closest_scrapy_cfg(start)
    if cfg is None:
        raise WorkspaceError(
            f"{WORKSPACE_ENV} must be an absolute path here: there is no scrapy.cfg in "
            f"{str((start or Path.cwd()).resolve())!r} or above it to place "
            f"{raw or './workspace'!r} beside (under scrapyd, schedule with "
            f"-d setting={WORKSPACE_ENV}=/abs/path/to/workspace)"
        )
    return cfg.parent / (path if raw else "workspace")


def ensure_workspace(path: Path) -> Path:
    """Create the workspace directory ``0700`` (parents as needed) and return it."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(path, 0o700)
    except OSError as exc:
        raise WorkspaceError(
            f"cannot create workspace {str(path)!r}: {exc.strerror}; set {WORKSPACE_ENV} "
            "to a writable directory"
        ) from exc
    return path


def open_private(path: Path, flags: int = os.O_WRONLY) -> int:
    """Open ``path`` with ``flags``, created if missing, its mode ``0600`` whatever it was.

    Returns the file descriptor (close-on-exec). ``O_CREAT`` is implied; give ``O_APPEND``,
    ``O_TRUNC``, ``O_RDWR`` ... as the caller needs. Raises :class:`OSError`.
    """
    fd = os.open(path, flags | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        os.fchmod(fd, 0o600)
    except OSError:
        os.close(fd)
        raise
    return fd


def private_file(path: Path) -> Path:
    """Create ``path`` if missing with mode ``0600`` (and tighten it if it exists)."""
    os.close(open_private(path))
    return path


def secure_sqlite_files(db_path: Path) -> None:
    """Tighten an SQLite database and its WAL/SHM companions to ``0600``."""
    for suffix in ("", "-wal", "-shm"):
        p = Path(f"{db_path}{suffix}")
        if p.exists():
            os.chmod(p, 0o600)
