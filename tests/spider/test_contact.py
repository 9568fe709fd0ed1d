"""HARVEST_CONTACT reaches the User-Agent from every settings source; an explicit one wins."""

from __future__ import annotations

import pytest
from scrapy.utils.test import get_crawler

from harvest import settings as project
from harvest.base.settings_error import SettingsError
from harvest.contact import DEFAULT_CONTACT, user_agent


def agent_for(**settings: str) -> str:
    crawler = get_crawler(settings_dict={"ADDONS": project.ADDONS, **settings})
    return str(crawler.settings["USER_AGENT"])


def test_the_contact_setting_builds_the_user_agent() -> None:
    assert agent_for(HARVEST_CONTACT="ops@example.org") == (
        "harvest-sipp/0.1 (+court case research; contact: ops@example.org)"
    )


def test_without_a_contact_the_user_agent_asks_for_one() -> None:
    assert (
        agent_for()
        == user_agent("")
        == (f"harvest-sipp/0.1 (+court case research; contact: {DEFAULT_CONTACT})")
    )


def test_an_explicit_user_agent_wins() -> None:
    assert agent_for(HARVEST_CONTACT="ops@example.org", USER_AGENT="mine/1") == "mine/1"


def test_an_unprintable_contact_is_refused_naming_the_setting() -> None:
    with pytest.raises(
        SettingsError, match=r"HARVEST_CONTACT='data\\tteam' goes into the User-Agent header"
    ):
        agent_for(HARVEST_CONTACT="data\tteam")
