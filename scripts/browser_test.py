"""The console's browser test (run by scripts/browser-test against a live `journey serve`).

Drives headless Chromium through every page: sign in (a wrong token first), the rules, the
editor (an error typed at a known line and its diagnostic there, the fix, the tests, a change,
the impact preview, the diff, publishing), the history (rolling back), an experiment's report
and the explanation of a dog. Saves a screenshot of each page; fails on a 4xx/5xx answer to a
console request after sign-in and on any JavaScript error in the browser's console log.

Environment: JOURNEY_CONSOLE_URL, JOURNEY_CONSOLE_TOKEN, JOURNEY_CONSOLE_ACCESS_LOG,
JOURNEY_CONSOLE_SHOTS.
"""
import json
import os
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

URL = os.environ["JOURNEY_CONSOLE_URL"]
BASE = URL.rsplit("/console", 1)[0]
TOKEN = os.environ["JOURNEY_CONSOLE_TOKEN"]
ACCESS_LOG = os.environ["JOURNEY_CONSOLE_ACCESS_LOG"]
SHOTS = os.environ["JOURNEY_CONSOLE_SHOTS"]
RECOMMENDATION = "Rules/journey/recommendation.yaml"


def step(text):
    print(f"browser-test: {text}", flush=True)


def admin_get(path):
    request = urllib.request.Request(BASE + path, headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def served_revision_becomes(revision, seconds=10):
    """Waits until GET /v1/rules serves `revision` (every worker follows within a poll)."""
    deadline = time.time() + seconds
    served = None
    while time.time() < deadline:
        served = admin_get("/v1/rules")["revision"]
        if served == revision:
            return
        time.sleep(0.2)
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


def nav(page):
    driver.find_element(By.CSS_SELECTOR, f'#nav a[data-page="{page}"]').click()


def severe_logs():
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


try:
    # --- sign in: a wrong token is refused in words, then the right one -------------------------
    driver.get(URL)
    assert driver.execute_script("return typeof window.CodeMirror") == "function", "CodeMirror did not load"
    step("sign in with a wrong token")
    driver.find_element(By.ID, "token").send_keys("not-the-token-0123456789")
    click("signin")
    wait_text("notice", "your admin token was not accepted")
    shot("01-signin-refused")
    refused = severe_logs()
    assert all("401" in entry["message"] for entry in refused), f"unexpected errors: {refused}"
    baseline = driver.execute_script("return JC.requests.length")
    assert driver.execute_script("return sessionStorage.getItem('journey.admin-token')") is None

    step("sign in")
    driver.find_element(By.ID, "token").clear()
    driver.find_element(By.ID, "token").send_keys(TOKEN)
    click("signin")
    wait_text("rules-body", "rules")
    wait_text("rules-revision", "the bundled rules")
    wait_text("signed-in", "Signed in as pm-ann")
    assert TOKEN not in driver.current_url
    first = admin_get("/v1/rules")["revision"]
    shot("02-rules")

    # --- the editor: an error typed at line 2, its diagnostic at line 2, the fix --------------
    step("open the recommendation rule")
    driver.find_element(By.XPATH, '//*[@id="rules-body"]//button[text()="recommendation"]').click()
    wait.until(lambda d: d.execute_script("return JC.editor.file") == RECOMMENDATION)
    wait_text("editor-state", "No problems")
    step("type an error at the end of line 2")
    driver.execute_script("const cm = JC.editor.cm; cm.focus(); cm.setCursor({line: 1, ch: cm.getLine(1).length});")
    typed = ": oops"
    field = driver.execute_script("return JC.editor.cm.getInputField()")
    field.send_keys(typed)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '#diagnostics li[data-line="2"]'))
    diagnostic = driver.find_element(By.CSS_SELECTOR, '#diagnostics li[data-line="2"]')
    assert "Line 2, column 21" in diagnostic.text, diagnostic.text
    assert driver.find_elements(By.CSS_SELECTOR, ".CodeMirror .cm-line-error"), "the line is not marked"
    shot("03-editor-diagnostic")
    step("fix it")
    field.send_keys(Keys.BACKSPACE * len(typed))
    wait_text("editor-state", "No problems")
    step("run the tests")
    click("run-tests")
    wait_text("tests-result", "tests passed")

    # --- a real change: max_by in by-branch (and its test), tests, preview, diff, publish -------
    step("change the by-branch variant and its test")
    driver.execute_script(
        """const cm = JC.editor.cm;
        cm.setValue(cm.getValue().replace('| min_by([-($progress', '| max_by([-($progress')
          .replace('variant: by-branch\\n    expect: growth-check', 'variant: by-branch\\n    expect: daily-exercise-needs')
          .replace('weakest_topic}\\n    expect: impulse-control-basics', 'weakest_topic}\\n    expect: enrichment-feeding')
          .replace('by_branch_min_progress: 4, by_branch_start: lifestyle}\\n    expect: enrichment-feeding',
                   'by_branch_min_progress: 4, by_branch_start: lifestyle}\\n    expect: socialization-plan')
          .replace('most_progress, by_branch_start: lifestyle}\\n    expect: enrichment-feeding',
                   'most_progress, by_branch_start: lifestyle}\\n    expect: impulse-control-basics'));"""
    )
    wait_text("editor-state", "No problems (1 changed file)")
    click("run-tests")
    wait_text("tests-result", "All 67 tests passed")
    driver.find_element(By.ID, "publish-message").send_keys("by-branch: the strongest branch's furthest block")
    step("preview the impact")
    click("run-preview")
    wait_text("preview-result", "decisions change")
    summary = text_of("preview-summary")
    assert not summary.startswith("0 of"), summary
    assert "today.recommended" in text_of("preview-result") and "q-123" in text_of("preview-result")
    shot("04-editor-preview")
    step("show the changes")
    click("show-diff")
    wait_text("diff-result", "max_by")
    step("publish")
    click("publish")
    wait_text("publish-result", "Published revision")
    shot("05-editor-published")
    short = text_of("publish-result").split("Published revision ")[1][:12]
    revisions = admin_get("/v1/rules/revisions")
    assert revisions["active"].startswith(short), (short, revisions["active"])
    served_revision_becomes(revisions["active"])

    # --- history: roll back to the bundled rules ---------------------------------------------------
    step("roll back in the history")
    nav("history")
    wait_text("history-body", "Roll back to this")
    driver.find_element(By.CSS_SELECTOR, f'#history-body button[data-revision="{first}"]').click()
    wait.until(EC.visibility_of_element_located((By.ID, "activate-dialog")))
    shot("06-history-confirm")
    click("activate-confirm")
    wait_text("history-diff", "is active now")
    served_revision_becomes(first)
    wait_text("history-body", "roll back to " + first[:12])
    click("compare")
    wait_text("history-diff", "Rules/journey/recommendation.yaml")
    shot("07-history")

    # --- experiments ---------------------------------------------------------------------------------
    step("open an experiment's results")
    nav("experiments")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, 'button[data-experiment="recommendation-v2"]'))
    driver.find_element(By.CSS_SELECTOR, 'button[data-experiment="recommendation-v2"]').click()
    wait_text("experiment-report", "Results of recommendation-v2")
    assert driver.find_elements(By.CSS_SELECTOR, "#experiment-report svg circle"), "no chart"
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#funnel svg"))
    shot("08-experiments")

    # --- explain ---------------------------------------------------------------------------------------
    step("explain q-123")
    nav("explain")
    driver.find_element(By.ID, "explain-dog").send_keys("q-123")
    click("explain")
    wait_text("explain-result", "What Q (q-123) sees today")
    result = text_of("explain-result")
    assert "recommendation" in result and "recommendation-v2" in result, result
    shot("09-explain")

    # --- no failed request after sign-in, no JavaScript error ------------------------------------
    requests = driver.execute_script("return JC.requests")
    failed = [r for r in requests[baseline:] if r["status"] >= 400 or r["status"] == 0]
    assert not failed, f"console requests that failed: {failed}"
    with open(ACCESS_LOG, encoding="utf-8") as log:
        answers = [json.loads(line) for line in log if line.strip()]
    bad = [a for a in answers if a["status"] >= 400]
    assert len(bad) == 1 and bad[0]["status"] == 401, f"4xx/5xx in the access log: {bad}"
    errors = severe_logs()
    assert not errors, f"JavaScript errors: {errors}"

    # --- without CodeMirror (the package missing): a textarea, the same diagnostics ---------------
    step("without CodeMirror: the textarea fallback")
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/console/vendor/codemirror/*"]})
    driver.get("about:blank")  # a new load of the page (a new hash alone would not load it again)
    driver.get(URL + "#editor")
    wait.until(lambda d: d.execute_script("return window.JC && JC.editor && JC.editor.file") == RECOMMENDATION)
    assert driver.execute_script("return typeof window.CodeMirror") == "undefined", "CodeMirror was not blocked"
    area = driver.find_element(By.ID, "editor-text")
    assert area.is_displayed() and area.get_attribute("value").startswith("rule: recommendation")
    driver.execute_script("const a = arguments[0]; const end = a.value.indexOf('\\n', a.value.indexOf('\\n') + 1); a.focus(); a.setSelectionRange(end, end);", area)
    area.send_keys(typed)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '#diagnostics li[data-line="2"]'))
    shot("10-editor-textarea")
    others = [e for e in severe_logs() if "ERR_BLOCKED_BY_CLIENT" not in e["message"]]
    assert not others, f"JavaScript errors without CodeMirror: {others}"
    step(f"passed: {len(requests)} requests, {len(answers)} answers in the access log")
except Exception as error:
    shot("failed")
    print(f"browser-test: FAILED: {error}", file=sys.stderr)
    for entry in driver.get_log("browser"):
        print(f"browser-test: console {entry['level']}: {entry['message']}", file=sys.stderr)
    driver.quit()
    sys.exit(1)
driver.quit()
