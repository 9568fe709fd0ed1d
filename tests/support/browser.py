"""The browser tests need Debian's Chromium: present, or the test is skipped with the reason."""

from __future__ import annotations

import os

import pytest

from harvest.clearance import DEFAULT_EXECUTABLE

HAS_CHROMIUM = os.access(DEFAULT_EXECUTABLE, os.X_OK)
needs_chromium = pytest.mark.skipif(
    not HAS_CHROMIUM,
    reason=f"{DEFAULT_EXECUTABLE} is missing: install chromium (apt-get install chromium)",
)
