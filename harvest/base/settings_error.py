"""The one error type for a setting that cannot work.

Raised while a component reads its settings (``HARVEST_STATE_*``, ``SIPP_BROWSER*``,
``HARVEST_CONTACT`` ...), before anything is fetched or written. The message names the setting,
the value found, and what to set instead.

Imports nothing (a base module: see ``[tool.importlinter]`` in pyproject.toml).
"""

from __future__ import annotations

__all__ = ["SettingsError"]


class SettingsError(ValueError):
    """A setting has a value that cannot work; the message names it and says what to set."""
