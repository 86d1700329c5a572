"""What the console's browser test steps share: the driver, the admin API, waiting and measuring."""

import json
import os
import re
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime, timedelta

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

URL = os.environ["JOURNEY_CONSOLE_URL"]
BASE = URL.rsplit("/console", 1)[0]
TOKEN = os.environ["JOURNEY_CONSOLE_TOKEN"]
SHOTS = os.environ["JOURNEY_CONSOLE_SHOTS"]
# The steps of browser_test.py only (the forms' service has one admin and no access log).
OTHER_PUBLISHER = os.environ.get("JOURNEY_CONSOLE_PUBLISHER_TOKEN")
EDITOR = os.environ.get("JOURNEY_CONSOLE_EDITOR_TOKEN")
VIEWER = os.environ.get("JOURNEY_CONSOLE_VIEWER_TOKEN")
ACCESS_LOG = os.environ.get("JOURNEY_CONSOLE_ACCESS_LOG")
RECOMMENDATION = "Rules/journey/recommendation.yaml"
# Answers the test asks for on purpose (status → count), beside the wrong token's 401.
EXPECTED_REFUSALS = {401: 1}


def step(text):
    print(f"browser-test: {text}", flush=True)


def admin(method, path, token=TOKEN, body=None):
    """(status, JSON) of an admin API call."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Authorization": f"Bearer {token}"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(BASE + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def admin_get(path):
    status, body = admin("GET", path)
    assert status == 200, (path, status, body)
    return body


def served_revision_becomes(revision, seconds=10):
    """Waits until GET /v1/rules serves `revision` (every worker follows within a poll)."""
    deadline = time.time() + seconds
    served = None
    while time.time() < deadline:
        served = admin_get("/v1/rules")["revision"]
        if served == revision:
            return time.time()
        time.sleep(0.05)
    raise AssertionError(f"GET /v1/rules serves {served}, not {revision}")


options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
wait = WebDriverWait(driver, 30)


def shot(name):
    driver.save_screenshot(os.path.join(SHOTS, name + ".png"))


def text_of(element_id):
    return driver.find_element(By.ID, element_id).text


def wait_text(element_id, fragment):
    try:
        wait.until(EC.text_to_be_present_in_element((By.ID, element_id), fragment))
    except Exception:
        shot("failed-" + element_id)
        raise AssertionError(f"#{element_id} never showed {fragment!r}; it shows {text_of(element_id)!r}")


def click(element_id):
    wait.until(EC.element_to_be_clickable((By.ID, element_id))).click()


def click_css(selector):
    """Clicks `selector` once clickable; a page drawn again meanwhile is waited for (no sleep)."""

    def clicked(d):
        try:
            element = d.find_element(By.CSS_SELECTOR, selector)
            if not (element.is_displayed() and element.is_enabled()):
                return False
            element.click()
            return True
        except (StaleElementReferenceException, NoSuchElementException):
            return False

    wait.until(clicked)


def nav(page):
    """Opens `page` and waits until its data is drawn (the console marks the page loaded)."""
    driver.execute_script("document.getElementById('page-' + arguments[0]).removeAttribute('data-loaded')", page)
    if driver.execute_script("return location.hash") == "#" + page:
        driver.execute_script("window.dispatchEvent(new HashChangeEvent('hashchange'))")  # the page again
    else:
        driver.find_element(By.CSS_SELECTOR, f'#nav a[data-page="{page}"]').click()
    wait.until(lambda d: d.find_element(By.ID, "page-" + page).get_attribute("data-loaded") == "true")


def severe_logs():
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def sign_in(token, name):
    """Signs out (when signed in) and in again with `token`; waits for the Rules page."""
    if driver.find_element(By.ID, "sign-out").is_displayed():
        click("sign-out")
    field = wait.until(EC.visibility_of_element_located((By.ID, "token")))
    field.clear()
    field.send_keys(token)
    click("signin")
    wait_text("signed-in", f"Signed in as {name}")
    wait_text("rules-body", "rules")


def set_editor(text):
    driver.execute_script("JC.editor.cm.setValue(arguments[0]);", text)


def editor_text():
    return driver.execute_script("return JC.editor.cm.getValue()")


def confirm_dialog(message=None, emergency=False, at=None):
    wait.until(EC.visibility_of_element_located((By.ID, "activate-dialog")))
    if message is not None:
        field = driver.find_element(By.ID, "activate-message")
        field.clear()
        field.send_keys(message)
    if emergency:
        driver.find_element(By.ID, "activate-emergency").click()
    if at is not None:
        driver.execute_script("document.getElementById('activate-at').value = arguments[0];", at)
    click("activate-confirm")


def no_horizontal_overflow(where):
    widths = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"{where}: the page is {widths[0]} px wide in a {widths[1]} px window"


def contrast_of(selector):
    """The WCAG contrast of the first `selector`'s text against the background behind it."""
    return driver.execute_script(
        """
        const element = document.querySelector(arguments[0]);
        const rgb = (text) => text.match(/[\\d.]+/g).slice(0, 4).map(Number);
        const luminance = ([r, g, b]) => {
          const c = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
          return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
        };
        let node = element, background = null;
        while (node && node.nodeType === 1) {
          const b = rgb(getComputedStyle(node).backgroundColor);
          if (b.length < 4 || b[3] > 0) { background = b; break; }
          node = node.parentElement;
        }
        background = background || [255, 255, 255];
        const [a, b] = [luminance(rgb(getComputedStyle(element).color)), luminance(background)];
        return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        """,
        selector,
    )
