"""Scrapy extensions switched off by their setting are not even imported.

Scrapy builds every extension of ``EXTENSIONS_BASE`` and lets a switched-off one refuse
(``NotConfigured``) only after importing its module; naming it ``None`` in ``EXTENSIONS`` does not
help, Scrapy imports each key of ``EXTENSIONS`` to compare it with the others. The project
switches off the telnet console and the remote-control server (harvest/settings.py); the latter's
module imports aiohttp and its web server, ~0.2 s of CPU in every crawl, the test suite's ~600
processes included. The :class:`SwitchedOffAddon` (``ADDONS``) runs once every source of settings
has been read and takes each extension whose switch is then off out of ``EXTENSIONS_BASE``, so it
is never imported; one switched on anywhere (``-s REMOTE_CONTROL_ENABLED=True``), or named in
``EXTENSIONS``, is left as Scrapy has it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

__all__ = ["SWITCHES", "SwitchedOffAddon"]

#: Scrapy's extensions (import path) that refuse to start when their boolean setting is false.
SWITCHES = {
    "scrapy.extensions.remote_control.RemoteControl": "REMOTE_CONTROL_ENABLED",
    "scrapy.extensions.telnet.TelnetConsole": "TELNETCONSOLE_ENABLED",
    "scrapy.extensions.memdebug.MemoryDebugger": "MEMDEBUG_ENABLED",
}


class SwitchedOffAddon:
    """A Scrapy add-on (``ADDONS``): each extension of :data:`SWITCHES` whose setting is false
    leaves ``EXTENSIONS_BASE``: not built, not imported (built, it would only refuse)."""

    def update_settings(self, settings: BaseSettings) -> None:
        base = settings["EXTENSIONS_BASE"]
        for path, switch in SWITCHES.items():
            if path in base and not settings.getbool(switch):
                del base[path]
