"""Extensions switched off by their setting are taken out of EXTENSIONS_BASE (never imported);
switched on from any settings source, they stay as Scrapy has them."""

from __future__ import annotations

import pytest
from scrapy.utils.test import get_crawler

from harvest import settings as project
from harvest.switched_off import SWITCHES

REMOTE = "scrapy.extensions.remote_control.RemoteControl"
TELNET = "scrapy.extensions.telnet.TelnetConsole"


def extensions_of(**settings: str) -> dict[str, int | None]:
    crawler = get_crawler(
        settings_dict={
            "ADDONS": project.ADDONS,
            "EXTENSIONS": project.EXTENSIONS,
            "TELNETCONSOLE_ENABLED": project.TELNETCONSOLE_ENABLED,
            "REMOTE_CONTROL_ENABLED": project.REMOTE_CONTROL_ENABLED,
            **settings,
        }
    )
    # what the extension manager builds (and imports) each entry of
    return dict(crawler.settings.get_component_priority_dict_with_base("EXTENSIONS"))


def test_the_projects_switched_off_extensions_are_not_built() -> None:
    extensions = extensions_of()
    assert REMOTE not in extensions
    assert TELNET not in extensions
    assert "scrapy.extensions.memdebug.MemoryDebugger" not in extensions  # MEMDEBUG: False
    assert extensions["scrapy.extensions.logstats.LogStats"] == 0  # the others as they were
    assert extensions["extensions.progress.ProgressReporter"] == 0


@pytest.mark.parametrize("switch", ["REMOTE_CONTROL_ENABLED", "TELNETCONSOLE_ENABLED"])
def test_one_switched_on_from_the_command_line_stays(switch: str) -> None:
    path = next(path for path, name in SWITCHES.items() if name == switch)
    assert extensions_of(**{switch: "True"})[path] == 0


def test_every_switch_is_a_setting_scrapy_has() -> None:
    from scrapy.settings import default_settings

    for path, switch in SWITCHES.items():
        assert getattr(default_settings, switch) in (True, False)  # Scrapy has TELNETCONSOLE 1
        assert path in default_settings.EXTENSIONS_BASE
