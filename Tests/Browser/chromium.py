"""Headless Chromium through Selenium, as the browser tests and benchmarks start it.

`chromium()` is a context manager: it yields a driver whose profile lives in a temporary
folder, and on leaving quits the browser and removes that folder.
"""
import contextlib
import os
import shutil
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


@contextlib.contextmanager
def chromium(configure=None):
    """Yields a headless Chromium driver; `configure(options)` may add options first."""
    profile = tempfile.mkdtemp(prefix="evtool-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("EVTOOL_TEST_CHROMIUM", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,1600", "--no-first-run", "--disable-extensions",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--user-data-dir=" + profile]:
        options.add_argument(argument)
    if configure:
        configure(options)
    service = Service(os.environ.get("EVTOOL_TEST_CHROMEDRIVER", "/usr/bin/chromedriver"))
    try:
        driver = webdriver.Chrome(options=options, service=service)
        try:
            yield driver
        finally:
            driver.quit()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
