"""The explorer's page in Chromium: the start value from the DOM, a click on a move, a Pig
game played to its end against the strategy, undo, a jump to a typed position, a bad one,
and the distribution, each against what the command line prints."""

import json

from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import ROOT, cli


def ten_digits(x):
    """A number as the page writes it: ten significant digits."""
    return str(float(f"{x:.9e}")).removesuffix(".0")


def wait(browser, condition, timeout=20):
    """Waits for `condition`; the page replaces the position as it goes, so an element found
    a moment ago may be gone: then it asks again."""
    ignored = (StaleElementReferenceException, NoSuchElementException)
    return WebDriverWait(browser, timeout, ignored_exceptions=ignored).until(condition)


def loaded(browser):
    """Waits until the page shows a position (and no request is in flight)."""
    wait(browser, lambda b: b.execute_script(
        "return !page.busy && document.querySelector('#position .position') !== null"))


def position_id(browser):
    return int(browser.find_element(By.CSS_SELECTOR, "#position .position").get_attribute("data-id"))


def test_start_value_move_undo_and_jump(browser, serve, shot):
    s = serve("pig", "--goal", "20")
    browser.get(s.url)
    wait(browser, lambda b: b.find_element(By.ID, "game-value").text != "…")
    value = json.loads(cli("solve", "pig", "--goal", "20", "--json", "-q"))["value"]
    assert browser.find_element(By.ID, "game-value").text == ten_digits(value)
    loaded(browser)
    start = json.loads(cli("explain", "pig", "--goal", "20", "--json", "-q"))
    assert browser.find_element(By.CSS_SELECTOR, "#position .state code").text == start["state"]
    shot("pig-start")
    # Click the move: chance draws the roll; the path grows by one.
    browser.find_element(By.CSS_SELECTOR, "#position tr[data-branch='0']").click()
    wait(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "#path .step")) == 2)
    loaded(browser)
    assert position_id(browser) != 0
    browser.find_element(By.ID, "undo").click()
    wait(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "#path .step")) == 1)
    loaded(browser)
    assert position_id(browser) == 0
    # A position typed in the game's notation.
    box = browser.find_element(By.ID, "jump-state")
    box.send_keys("A 12 B 17, B to move, turn 2")
    browser.find_element(By.CSS_SELECTOR, "#jump button").click()
    wait(browser, lambda b: b.find_element(By.CSS_SELECTOR, "#position .state code").text
         == "A 12 B 17, B to move, turn 2")
    there = json.loads(cli("explain", "pig", "--goal", "20", "--state",
                           "A 12 B 17, B to move, turn 2", "--json", "-q"))
    assert browser.find_element(By.CSS_SELECTOR, ".state-value").text == ten_digits(there["value"])
    shot("pig-jump")
    # A position that is no position: the command line's message, the page still works.
    box.clear()
    box.send_keys("A 99")
    browser.find_element(By.CSS_SELECTOR, "#jump button").click()
    wait(browser, lambda b: b.find_element(By.ID, "error").is_displayed())
    assert "not a Pig position" in browser.find_element(By.ID, "error").text
    browser.find_element(By.ID, "restart").click()
    wait(browser, lambda b: not b.find_element(By.ID, "error").is_displayed())


def test_a_pig_game_played_to_its_end(browser, serve, shot):
    s = serve("pig", "--goal", "20")
    browser.get(s.url)
    loaded(browser)
    browser.find_element(By.ID, "versus").click()  # as A, the first to move
    for _ in range(3000):
        loaded(browser)
        status = browser.find_element(By.ID, "status")
        if "over" in status.get_attribute("class"):
            break
        e = browser.execute_script("return page.explained")
        if e["kind"] == "decision" and e["player"] == "max":
            # Our moves: the strategy's where it has one, else the first.
            rows = browser.find_elements(By.CSS_SELECTOR, "#position tr.optimal") or \
                browser.find_elements(By.CSS_SELECTOR, "#position tr[data-branch]")
            rows[0].click()
        else:
            # Chance and B move by themselves.
            browser.implicitly_wait(0)
            wait(browser, lambda b: b.execute_script("return page.path.length") > 1)
    else:
        raise AssertionError("the game did not end")
    text = browser.find_element(By.ID, "status").text
    assert text.startswith("Game over"), text
    last = browser.find_element(By.CSS_SELECTOR, "#position .state code").text
    assert last in ("A wins", "B wins")
    # The chart has a point per step of the path.
    steps = len(browser.find_elements(By.CSS_SELECTOR, "#path .step"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#chart circle")) == steps
    shot("pig-over")


def test_the_strategy_plays_and_the_distribution_loads(browser, serve, shot):
    args = ["perfect-memory", "--rows", "2", "--cols", "3", "--exact"]
    s = serve(*args)
    browser.get(s.url)
    loaded(browser)
    browser.find_element(By.ID, "load-distribution").click()
    wait(browser, lambda b: b.find_elements(By.ID, "distribution-summary"))
    d = json.loads(cli("distribution", *args, "--json", "-q"))
    mean = browser.find_element(By.CSS_SELECTOR, "#distribution-summary tr td:nth-child(2)").text
    assert mean == ten_digits(d["mean"])
    bars = browser.find_elements(By.CSS_SELECTOR, "#distribution-plot rect")
    assert len(bars) == len(d["pmf"])
    # Exact fractions are shown where the solve was exact.
    assert "=" in browser.find_element(By.CSS_SELECTOR, ".state-value").text
    shot("perfect-memory-distribution")
    browser.find_element(By.ID, "autoplay").click()
    wait(browser, lambda b: "over" in b.find_element(By.ID, "status").get_attribute("class"))
    assert browser.find_element(By.ID, "status").text.startswith("Game over")
    shot("perfect-memory-played")


def test_yahtzee_and_a_prism_model_are_drawn(browser, serve, shot):
    s = serve("yahtzee", "--boxes", "1s,2s,fh,y")
    browser.get(s.url)
    loaded(browser)
    assert len(browser.find_elements(By.CSS_SELECTOR, ".yahtzee .card tr")) == 14
    browser.find_element(By.ID, "draw").click()  # chance rolls the dice
    wait(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, ".dice .die")) == 5)
    shot("yahtzee-rolled")
    s.stop()
    model = ROOT / "crates" / "perfectplay-prism" / "examples" / "pig.prism"
    prop = '<<first>> Pmax=? [ F "first_wins" ]'
    s = serve(str(model), "--const", "GOAL=10", "--prop", prop, "--exact")
    browser.get(s.url)
    loaded(browser)
    names = [c.text for c in browser.find_elements(By.CSS_SELECTOR, ".valuation td code")]
    assert names == ["a", "b", "t", "p", "won"]
    details = browser.find_element(By.ID, "details").text
    assert prop in details and "(a=0,b=0,t=0,p=1,won=0)" in details
    assert '"init"' in browser.find_element(By.CSS_SELECTOR, ".labels").text
    value = json.loads(cli("solve", "pig", "--goal", "10", "--json", "--exact", "-q"))
    assert browser.find_element(By.ID, "game-value").text.endswith("= " + value["exact"])
    browser.find_element(By.CSS_SELECTOR, "#position tr[data-branch='0']").click()
    wait(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "#path .step")) == 2)
    loaded(browser)
    assert not browser.find_element(By.CSS_SELECTOR, ".labels").text.endswith('"init"')
    shot("prism-pig")
