"""Headless Chromium through Selenium, for tests of the HTML report and for
bench/screenshot.py: the system's chromium and chromedriver, named
explicitly, so Selenium Manager never looks for (or downloads) either."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
TIMEOUT = 30  # seconds: page loads and scripts


def missing() -> str | None:
    """Why there is no browser to test with, or None."""
    gone = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    return f"no {' or '.join(gone)} (apt-get install chromium chromium-driver)" if gone else None


@contextmanager
def chromium(javascript: bool = True, width: int = 1280, height: int = 900) -> Iterator[WebDriver]:
    """A headless Chromium session, quit however the block ends."""
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
    ):
        options.add_argument(arg)
    if not javascript:
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2}
        )
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        driver.set_page_load_timeout(TIMEOUT)
        driver.set_script_timeout(TIMEOUT)
        yield driver
    finally:
        driver.quit()


def full_page_png(driver: WebDriver) -> bytes:
    """A screenshot of the whole page, not only the window (Chrome DevTools
    Protocol: the layout's full size, captured beyond the viewport)."""
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1},
        },
    )
    return base64.b64decode(shot["data"])
