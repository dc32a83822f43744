"""The HTML report opened as a person opens the file: one headless Chromium
per test module (the ``browser`` fixture: import it), a page loaded until
its script has drawn the table, elements found by CSS selector; and text
from the web that would break out of its place if the page let it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser import chromium, missing

WAIT = 10  # seconds: every wait for the page is bounded
EVIL = '"><script>window.pwned=1</script><!--<script>'


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    """One Chromium for the module."""
    why = missing()
    if why:
        pytest.skip(f"no browser for the HTML report's tests: {why}")
    with chromium() as driver:
        yield driver


def load(driver: WebDriver, page: Path) -> float:
    """Open ``page``; seconds until the script has drawn the table."""
    start = time.monotonic()
    driver.get(page.as_uri())
    WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("return document.documentElement.dataset.table") == "ready"
    )
    return time.monotonic() - start


def css(driver: WebDriver | WebElement, selector: str) -> WebElement:
    return driver.find_element(By.CSS_SELECTOR, selector)
