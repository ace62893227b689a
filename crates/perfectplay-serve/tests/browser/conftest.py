"""The explorer in a real browser: Debian's Chromium, headless, driven by Selenium through
Debian's ChromeDriver (nothing is downloaded). The command-line tool comes from
$PERFECTPLAY_CLI (browser-tests.sh builds it)."""

import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CLI = os.environ.get("PERFECTPLAY_CLI", "")
ROOT = pathlib.Path(__file__).resolve().parents[4]
SHOTS = pathlib.Path(os.environ.get("PERFECTPLAY_SCREENSHOTS", tempfile.gettempdir()))


def cli(*args):
    """The tool's standard output for `args`."""
    return subprocess.run([CLI, *args], check=True, capture_output=True, text=True).stdout


class Served:
    """`perfectplay serve ARGS` on a free port; its page's address in `url`."""

    def __init__(self, *args):
        self.process = subprocess.Popen(
            [CLI, "serve", *args, "--port", "0", "--no-open", "--quiet"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        line = self.process.stdout.readline()
        assert "http://" in line, line
        self.url = line[line.index("http://"):].split()[0]

    def stop(self):
        self.process.kill()
        self.process.wait()


@pytest.fixture
def serve():
    started = []

    def start(*args):
        s = Served(*args)
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


@pytest.fixture(scope="session")
def browser():
    assert CLI and os.path.exists(CLI), "set PERFECTPLAY_CLI to the perfectplay tool"
    chromium = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    assert chromium and driver_path, "needs Debian's chromium and chromium-driver"
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    profile = tempfile.mkdtemp(prefix="perfectplay-chromium-")
    for flag in [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,1000",
        f"--user-data-dir={profile}",
    ]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def shot(browser):
    """Saves a screenshot of the page under a name (to look at, not compared)."""

    def take(name):
        SHOTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SHOTS / f"{name}.png"))

    return take
