"""The User-Agent names how a court can reach whoever runs the harvest (``HARVEST_CONTACT``).

``USER_AGENT`` is built from ``HARVEST_CONTACT`` by the :class:`ContactAddon` once every source
of settings has been read, so ``-s HARVEST_CONTACT=...``, a scrapyd ``setting=`` and the
environment variable all take effect. A ``USER_AGENT`` set anywhere (project, spider, command
line) wins over the built one. SIPP binds its CodeIgniter session to the User-Agent: it stays
fixed for the whole crawl.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.settings import SETTINGS_PRIORITIES

from harvest.base.settings_error import SettingsError

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

__all__ = [
    "DEFAULT_CONTACT",
    "NO_CONTACT_WARNING",
    "USER_AGENT_TEMPLATE",
    "ContactAddon",
    "user_agent",
]

logger = logging.getLogger(__name__)

#: Logged (WARNING) by a crawl whose User-Agent names no contact.
NO_CONTACT_WARNING = (
    "HARVEST_CONTACT is not set: the User-Agent asks the court to contact nobody. Set it to an "
    "e-mail address or a URL where the court can reach you (environment or -s HARVEST_CONTACT=...)"
)

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
        contact = str(settings.get("HARVEST_CONTACT") or "")
        agent = user_agent(contact)
        settings.set("USER_AGENT", agent, priority="addon")
        explicit = (settings.getpriority("USER_AGENT") or 0) > SETTINGS_PRIORITIES["addon"]
        if not contact.strip() and not explicit:
            logger.warning("%s", NO_CONTACT_WARNING)
