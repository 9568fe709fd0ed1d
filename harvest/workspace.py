"""The isolated workspace of DESIGN.md: where it is, and creating it and its files privately.

Case data names real people: the directory is created ``0700`` and every file in it ``0600``.
Imports nothing from Scrapy: ``ship.py`` and the item store use it too.
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


def resolve_workspace(value: str | os.PathLike[str] | None) -> Path:
    """The absolute workspace path for a configured value (setting or environment).

    ``None`` or empty means ``./workspace`` beside ``scrapy.cfg``. Relative paths are taken
    relative to the directory holding ``scrapy.cfg``. Without a ``scrapy.cfg`` (under scrapyd,
    where the crawl runs in scrapyd's own directory) only an absolute path is accepted.
    """
    raw = os.fspath(value) if value else ""
    if raw and Path(raw).expanduser().is_absolute():
        return Path(raw).expanduser()
    cfg = closest_scrapy_cfg()
    if cfg is None:
        raise WorkspaceError(
            f"{WORKSPACE_ENV} must be an absolute path here: there is no scrapy.cfg to place "
            f"{raw or './workspace'!r} beside (under scrapyd, schedule with "
            f"-d setting={WORKSPACE_ENV}=/abs/path/to/workspace)"
        )
    return cfg.parent / (raw or "workspace")


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


def private_file(path: Path) -> Path:
    """Create ``path`` if missing with mode ``0600`` (and tighten it if it exists)."""
    fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
    os.close(fd)
    os.chmod(path, 0o600)
    return path


def secure_sqlite_files(db_path: Path) -> None:
    """Tighten an SQLite database and its WAL/SHM companions to ``0600``."""
    for suffix in ("", "-wal", "-shm"):
        p = Path(f"{db_path}{suffix}")
        if p.exists():
            os.chmod(p, 0o600)
