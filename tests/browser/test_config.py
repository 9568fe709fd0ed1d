"""BrowserConfig: the SIPP_BROWSER* settings, parsed and validated without a crawler."""

from __future__ import annotations

import stat

import pytest
from scrapy.settings import Settings

from harvest.base.settings_error import SettingsError
from harvest.clearance import (
    DEFAULT_COOKIES,
    DEFAULT_EXECUTABLE,
    DEFAULT_LAUNCH_ARGS,
    DEFAULT_TIMEOUT,
    BrowserConfig,
)

pytestmark = pytest.mark.browser


@pytest.fixture
def fake_chromium(tmp_path):
    path = tmp_path / "chromium"
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_defaults_browser_off() -> None:
    config = BrowserConfig.from_settings(Settings())
    assert config.mode == "off"
    assert config.enabled is False
    assert config.timeout == DEFAULT_TIMEOUT == 30.0
    assert config.executable == DEFAULT_EXECUTABLE == "/usr/bin/chromium"
    assert config.cookie_names == DEFAULT_COOKIES == ("cf_clearance",)
    assert dict(config.launch_options) == {
        "executable_path": "/usr/bin/chromium",
        "args": list(DEFAULT_LAUNCH_ARGS),
        "headless": True,
    }
    assert "--no-sandbox" in config.launch_options["args"]


def test_challenge_mode_from_command_line_strings(fake_chromium) -> None:
    # what `-s SIPP_BROWSER=Challenge -s SIPP_BROWSER_TIMEOUT=7.5 ...` hands over: strings
    settings = Settings(
        {
            "SIPP_BROWSER": " Challenge ",
            "SIPP_BROWSER_TIMEOUT": "7.5",
            "SIPP_BROWSER_EXECUTABLE": fake_chromium,
            "SIPP_BROWSER_COOKIES": "cf_clearance, my_gate ,",
        }
    )
    config = BrowserConfig.from_settings(settings)
    assert config.mode == "challenge"
    assert config.enabled is True
    assert config.timeout == 7.5
    assert config.executable == fake_chromium
    assert config.cookie_names == ("cf_clearance", "my_gate")
    assert config.launch_options["executable_path"] == fake_chromium


def test_config_is_frozen() -> None:
    config = BrowserConfig.from_settings(Settings())
    with pytest.raises(AttributeError):
        config.mode = "challenge"  # type: ignore[misc]
    with pytest.raises(TypeError):
        config.launch_options["headless"] = False  # type: ignore[index]


@pytest.mark.parametrize("bad", ["on", "true", "always", ""])
def test_unknown_mode_names_the_setting_and_choices(bad: str) -> None:
    with pytest.raises(SettingsError, match=r"SIPP_BROWSER must be one of 'off', 'challenge'"):
        BrowserConfig.from_settings(Settings({"SIPP_BROWSER": bad}))


@pytest.mark.parametrize(
    ("bad", "match"),
    [("soon", "a number of seconds"), ("0", "more than 0"), ("-3", "more than 0")],
)
def test_bad_timeout(bad: str, match: str) -> None:
    with pytest.raises(SettingsError, match=f"SIPP_BROWSER_TIMEOUT must be {match}"):
        BrowserConfig.from_settings(Settings({"SIPP_BROWSER_TIMEOUT": bad}))


def test_empty_cookie_list_is_refused() -> None:
    with pytest.raises(SettingsError, match="SIPP_BROWSER_COOKIES names no cookie"):
        BrowserConfig.from_settings(Settings({"SIPP_BROWSER_COOKIES": " , "}))


def test_missing_executable_is_refused_only_when_the_browser_is_on(tmp_path) -> None:
    missing = str(tmp_path / "no-chromium")
    # off: the executable is never launched, so a wrong path is no error
    assert (
        BrowserConfig.from_settings(Settings({"SIPP_BROWSER_EXECUTABLE": missing})).mode == "off"
    )
    with pytest.raises(SettingsError, match="apt-get install chromium") as info:
        BrowserConfig.from_settings(
            Settings({"SIPP_BROWSER": "challenge", "SIPP_BROWSER_EXECUTABLE": missing})
        )
    assert missing in str(info.value)
    assert "SIPP_BROWSER_EXECUTABLE" in str(info.value)


def test_playwright_launch_options_override_ours(fake_chromium) -> None:
    settings = Settings(
        {
            "SIPP_BROWSER": "challenge",
            "SIPP_BROWSER_EXECUTABLE": "/nonexistent/chromium",
            "PLAYWRIGHT_LAUNCH_OPTIONS": {"executable_path": fake_chromium, "args": ["--x"]},
        }
    )
    config = BrowserConfig.from_settings(settings)
    assert config.launch_options == {
        "executable_path": fake_chromium,
        "args": ["--x"],
        "headless": True,
    }


def test_remote_browser_needs_no_local_executable() -> None:
    settings = Settings(
        {
            "SIPP_BROWSER": "challenge",
            "SIPP_BROWSER_EXECUTABLE": "/nonexistent/chromium",
            "PLAYWRIGHT_CDP_URL": "http://127.0.0.1:9222",
        }
    )
    assert BrowserConfig.from_settings(settings).enabled
