"""The User-Agent names how a court can reach whoever runs the harvest (``HARVEST_CONTACT``).

``USER_AGENT`` is built from ``HARVEST_CONTACT`` by the :class:`ContactAddon` once every source
of settings has been read, so ``-s HARVEST_CONTACT=...``, a scrapyd ``setting=`` and the
environment variable all take effect. A ``USER_AGENT`` set anywhere (project, spider, command
line) wins over the built one. SIPP binds its CodeIgniter session to the User-Agent: it stays
fixed for the whole crawl.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harvest.settings_error import SettingsError

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

__all__ = ["DEFAULT_CONTACT", "USER_AGENT_TEMPLATE", "ContactAddon", "user_agent"]

#: What the User-Agent says until ``HARVEST_CONTACT`` is set.
DEFAULT_CONTACT = "set HARVEST_CONTACT"
USER_AGENT_TEMPLATE = "harvest-sipp/0.1 (+court case research; contact: {contact})"


def user_agent(contact: str) -> str:
    """The User-Agent naming ``contact``; raises :class:`SettingsError` for unprintable text."""
    contact = contact.strip() or DEFAULT_CONTACT
    if any(not (0x20 <= ord(c) < 0x7F) for c in contact):
        raise SettingsError(
            f"HARVEST_CONTACT={contact!r} goes into the User-Agent header, which takes printable "
            "ASCII only: give an e-mail address or a URL"
        )
    return USER_AGENT_TEMPLATE.format(contact=contact)


class ContactAddon:
    """A Scrapy add-on (``ADDONS``): ``USER_AGENT`` from ``HARVEST_CONTACT`` (add-on priority)."""

    def update_settings(self, settings: BaseSettings) -> None:
        agent = user_agent(str(settings.get("HARVEST_CONTACT") or ""))
        settings.set("USER_AGENT", agent, priority="addon")
