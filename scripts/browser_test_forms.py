"""The console's forms, driven as a product manager would, typing no jq (run by
scripts/browser-test after browser_test.py, on a `journey serve` of its own; the driver and the
helpers it shares with it are in browser_support.py).

Parameters: a reminder delay and the by-branch preference changed by form (a value out of range
refused at its field first), the tests, a draft, its preview and diff, publishing; the app's
Today route then serves the new preference. Experiments: recommendation-v2 ramped from 10% to 50%
coverage, each consequence read before publishing, then concluded with by-branch as the winner,
recorded in the audit trail. Onboarding: a step added to first_launch with the minor-version
choice, the counts of users read before saving and publishing; the app's onboarding route then
serves the new step to a user who had finished the flow. Texts: a plural text previewed for
sample counts, a text over its limit and a text without a plural form refused at their field,
a button's text published in ru and en and served. Both pages fit 1366×757 and 1024×557.
Saves a screenshot of each step; fails on any JavaScript error and on a failed console request
other than the one refusal it provokes.

Environment: JOURNEY_CONSOLE_URL, JOURNEY_CONSOLE_TOKEN, JOURNEY_CONSOLE_SHOTS.
"""
import sys
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from browser_support import TOKEN, URL, admin_get, click, click_css, driver, shot, text_of, wait, wait_text

DELAY = "events.reminders.weigh_again_after"
PREFERS = "recommendation.by_branch_prefers"


START = time.time()


def step(text):
    print(f"browser-test forms: {time.time() - START:5.1f} s  {text}", flush=True)


def served(path, revision, seconds=60):
    """GET `path` (an answer with its `revision`, or a dog view's `decision.revision`) until it
    is of `revision`: each worker of the service follows a publish within a poll."""
    deadline = time.time() + seconds
    while True:
        data = admin_get(path)
        of = data.get("revision") or data.get("decision", {}).get("revision")
        if of == revision or time.time() > deadline:
            assert of == revision, f"{path} is of revision {of}, not {revision}"
            return data
        time.sleep(0.2)


def active_is_served(seconds=60):
    """Waits until GET /v1/rules serves the active revision; returns it."""
    active = admin_get("/v1/rules/revisions")["active_revision_id"]
    deadline = time.time() + seconds
    while time.time() < deadline:
        if admin_get("/v1/rules")["revision"] == active:
            return active
        time.sleep(0.2)
    raise AssertionError(f"the active revision {active} is not served")


def nav(page):
    driver.find_element(By.CSS_SELECTOR, f'#nav a[data-page="{page}"]').click()


def field(name):
    return "param-" + "".join(c if c.isalnum() or c in "_-" else "_" for c in name)


def retype(element_id, text):
    element = wait.until(EC.element_to_be_clickable((By.ID, element_id)))
    element.clear()
    element.send_keys(text)


def publish_draft(prefix, message):
    retype(prefix + "-draft-message", message)
    click(prefix + "-draft-publish")
    wait_text(prefix + "-draft-result", "it is active now")
    return active_is_served()


def sign_in():
    driver.get(URL)
    driver.find_element(By.ID, "token").send_keys(TOKEN)
    click("signin")
    wait_text("signed-in", "Signed in as")


def parameters():
    before = admin_get("/v1/dogs/q-123/today")["recommended"]["block_id"]
    step("parameters: the forms of every rule and document")
    nav("params")
    wait.until(EC.presence_of_element_located((By.ID, field(DELAY))))
    help_text = text_of(field(DELAY) + "-help")
    assert "Default 14d" in help_text and "from 1d to 90d" in help_text, help_text
    assert Select(driver.find_element(By.ID, field(PREFERS))).first_selected_option.text == "most_progress"

    step("a reminder delay out of range is refused at its field")
    retype(field(DELAY), "500d")
    wait_text(field(DELAY) + "-problem", "between")
    shot("forms-01-param-refused")

    step("change the reminder delay and the by-branch preference")
    retype(field(DELAY), "10d")
    Select(driver.find_element(By.ID, field(PREFERS))).select_by_visible_text("weakest_topic")
    wait_text("params-state", "No problems (2 changed values)")
    click("params-tests-run")
    wait_text("params-tests", "tests passed")

    step("save a draft, preview it, see its changes, publish it")
    click("params-save")
    wait_text("params-draft", "is ready")
    click("params-draft-preview")
    wait_text("params-draft-result", "decisions change")
    assert "q-123" in text_of("params-draft-result"), text_of("params-draft-result")
    shot("forms-02-param-preview")
    click("params-draft-diff")
    wait_text("params-draft-result", "weigh_again_after: 10d")
    wait_text("params-draft-result", "by_branch_prefers: weakest_topic")
    published = publish_draft("params", "remind to weigh again after 10 days; by-branch: weakest topic first")
    wait_text("params-state", "Published")
    shot("forms-03-param-published")

    step("the app's Today route serves the new preference")
    after = served("/v1/dogs/q-123/today", published)
    assert after["recommended"]["block_id"] != before, (before, after["recommended"])
    assert after["recommended"]["block_id"] == "bond-building-games", after["recommended"]
    values = {p["name"]: p["value"] for p in served("/v1/rules/params", published)["parameters"]}
    assert values[DELAY] == "10d" and values[PREFERS] == "weakest_topic", values


def experiments():
    key = "recommendation-v2"
    change = f'button[data-change="{key}"]'

    def row():
        """The experiment's row of the list as text ('' while the list loads)."""
        return driver.execute_script(
            "const row = [...document.querySelectorAll('#experiments-body tr')]"
            ".find((r) => r.cells[0] && r.cells[0].textContent === arguments[0]);"
            "return row ? row.innerText : '';",
            key,
        )

    def open_form():
        wait.until(lambda d: row())
        driver.execute_script("document.querySelector(arguments[0]).click()", change)
        wait_text("experiment-edit", "Change " + key)

    step("experiments: the list at a glance")
    nav("experiments")
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, change)))
    assert "running" in row() and "control (control): 50.0%" in row() and "recommendation" in row(), row()

    for old, new in ((100, 10), (10, 50)):
        step(f"ramp {key} from {old}% to {new}%")
        open_form()
        driver.find_element(By.CSS_SELECTOR, f'button[data-ramp="{new}"]').click()
        click("exp-save")
        wait_text("experiment-draft", f"Coverage goes from {old}% to {new}%")
        said = text_of("experiment-draft")
        if new > old:
            assert "keep their variation" in said and "nobody is reassigned" in said, said
        shot(f"forms-04-experiment-ramp-{new}")
        publish_draft("exp", f"ramp {key} to {new}%")
        wait.until(lambda d: f"{new}.0%" in row())

    step(f"conclude {key}: by-branch for everyone")
    Select(driver.find_element(By.ID, "exp-winner")).select_by_visible_text("by-branch")
    click("exp-conclude")
    wait_text("experiment-draft", "Everyone gets `by-branch`")
    shot("forms-05-experiment-conclude")
    concluded = publish_draft("exp", "by-branch wins: ship it to everyone")
    wait.until(lambda d: "concluded" in row())
    assert "by-branch for everyone" in row(), row()
    assert served("/v1/experiments", concluded)["experiments"][0]["winner"] == "by-branch"
    audit = admin_get("/v1/audit")["audit"]
    assert audit[0]["message"] == "by-branch wins: ship it to everyone" and audit[0]["actor"] == "pm-ann", audit[0]
    shot("forms-06-experiments")


def viewport(width, height):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def fits(page):
    """No horizontal scrolling on `page` at the two window sizes the console is checked at."""
    for width, height in ((1366, 757), (1024, 557)):
        viewport(width, height)
        widths = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], f"{page} at {width}: the page is {widths[0]} px wide in a {widths[1]} px window"
        shot(f"forms-{page}-{width}")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def onboarding():
    flow = "first_launch"
    listed = admin_get("/v1/onboarding/flows")
    pages = next(f for f in listed["flows"] if f["id"] == flow)["variants"][0]
    finished = pages["finished_users"]
    assert pages["name"] == "pages" and finished > 0, pages
    user = "onb-2"
    assert admin_get(f"/v1/users/{user}/onboarding")["current"] is None, "onb-2 finished first_launch and first_tracker"

    step("onboarding: add a step to first_launch (pages), the trigger picked from the app's events")
    nav("onboarding")
    wait.until(EC.presence_of_element_located((By.ID, "flow-step-3")))
    assert Select(driver.find_element(By.ID, "flow-variant")).first_selected_option.get_attribute("value") == "pages"
    retype("flow-new-id", "meet_stats")
    retype("flow-new-target", "stats_tab")
    options = [o.get_attribute("value") for o in Select(driver.find_element(By.ID, "flow-new-event")).options]
    catalogue = [e["type"] for e in admin_get("/v1/app-events")["events"] if e["field"]]
    assert options == catalogue + ["timer"] and "ui_text_changed" in options, (options, catalogue)
    Select(driver.find_element(By.ID, "flow-new-event")).select_by_value("ui_text_changed")
    wait_text("flow-new-event-about", "The text of a field changed")
    Select(driver.find_element(By.ID, "flow-new-event")).select_by_value("ui_tap")
    retype("flow-new-value", "stats_tab")
    Select(driver.find_element(By.ID, "flow-new-highlight")).select_by_value("circle")
    retype("flow-new-tooltip-ru", "Здесь видно, как растут ваши серии.")
    retype("flow-new-tooltip-en", "Here you see your streaks grow.")
    click("flow-new-add")
    wait.until(EC.presence_of_element_located((By.ID, "flow-step-4")))

    step("the version decision, counted before saving")
    wait_text("flow-impact-minor", f"{finished} of the {finished} users who finished `pages` will see the new step `meet_stats`")
    wait_text("flow-impact-major", "Everyone starts again")
    assert "version 1.1" in text_of("flow-version-minor-label") and "version 2.0" in text_of("flow-version-major-label")
    click("flow-version-minor")
    shot("forms-07-flow-minor")
    click("flow-save")
    wait_text("flow-draft", "is ready")
    wait_text("flow-counts", "finished, will see only the new steps")
    assert f"finished, will see only the new steps {finished}" in text_of("flow-counts"), text_of("flow-counts")
    click("flow-draft-diff")
    wait_text("flow-draft-result", "- id: meet_stats")
    published = publish_draft("flow", "onboarding: show where streaks live")
    # The page is drawn again once the new version is served; the confirmation stays.
    wait_text("flow-state", "Published: version 1.1 is served now.")
    assert "it is active now" in text_of("flow-draft-result"), text_of("flow-draft")
    shot("forms-08-flow-published")

    step("the app's onboarding route serves the new step to a user who had finished")
    deadline = time.time() + 60
    while True:
        current = admin_get(f"/v1/users/{user}/onboarding")["current"]
        if current or time.time() > deadline:
            break
        time.sleep(0.2)
    assert current and current["version"] == "1.1" and current["step"]["id"] == "meet_stats", current
    assert current["step"]["tooltip"]["text"] == "Здесь видно, как растут ваши серии.", current
    flows = served("/v1/onboarding/flows", published)
    steps = [s["id"] for s in next(f for f in flows["flows"] if f["id"] == flow)["variants"][0]["steps"]]
    assert steps[-1] == "meet_stats", steps

    step("a kept step's element, trigger and highlight, and starts_on, edited in place: the version stays")
    wait.until(EC.presence_of_element_located((By.ID, "flow-step-4")))
    click_css("#flow-step-0-fields summary")
    retype("flow-step-0-target", "intro_page_one")
    Select(wait.until(EC.element_to_be_clickable((By.ID, "flow-step-0-highlight")))).select_by_value("circle")
    Select(wait.until(EC.element_to_be_clickable((By.ID, "flow-step-0-event")))).select_by_value("ui_tap")
    retype("flow-step-0-value", "intro_next")
    retype("flow-starts-on", "app_opened, habit_checked")
    shared = text_of("flow-step-3-shared-en")
    assert "Also shown in variant single_page" in shared, shared
    retype("flow-step-3-tooltip-en", "Your day's habits live here.")
    wait_text("flow-kept", "keeps version 1.1")
    # The check of the last edit (the shared tooltip) may answer after an earlier one said 1.1.
    wait_text("flow-kept", "also shown in variant `single_page`")
    kept = text_of("flow-kept")
    assert "`welcome_page`" in kept and "who did it do not see it again" in kept and "starts on `app_opened`, `habit_checked`" in kept, kept
    assert "also shown in variant `single_page`" in kept, kept
    assert not driver.find_element(By.ID, "flow-version").is_displayed()
    click("flow-save")
    wait_text("flow-draft", "is ready")
    assert "also shown in variant `single_page`" in text_of("flow-draft"), text_of("flow-draft")
    click("flow-draft-diff")
    wait_text("flow-draft-result", "completion_trigger: {tap: \"intro_next\"}")
    diff = text_of("flow-draft-result")
    assert "starts_on: [app_opened, habit_checked]" in diff and "highlight: circle" in diff and "target_element_id: \"intro_page_one\"" in diff, diff
    shot("forms-08b-flow-kept-edit")
    fits("onboarding")


def texts():
    button = "onboarding.first_launch.button"
    plural = "onboarding.steps_left"
    step("texts: every key listed; a plural text previewed for sample counts")
    nav("texts")
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, f'button[data-key="{plural}"]')))
    keys = admin_get("/v1/texts")["keys"]
    assert len(driver.find_elements(By.CSS_SELECTOR, "#texts-body button[data-key]")) == len(keys)
    click_key = lambda key: driver.find_element(By.CSS_SELECTOR, f'button[data-key="{key}"]').click()
    click_key(plural)
    wait_text("text-preview", "Осталось 5 шагов")
    for fragment in ("Остался 1 шаг", "Осталось 2 шага", "Осталось 11 шагов", "Остался 21 шаг", "2 steps left"):
        wait_text("text-preview", fragment)
    retype("text-arg-count", "3")
    wait_text("text-preview", "Осталось 3 шага")
    shot("forms-09-text-plural")

    step("a Russian plural without its few form is refused at its field")
    retype("text-ru", "{count, plural, one {Остался # шаг} many {Осталось # шагов} other {Осталось # шага}}")
    wait_text("text-ru-problem", "few")
    retype("text-ru", "{count, plural, =0 {Последний шаг} one {Остался # шаг} few {Осталось # шага} many {Осталось # шагов} other {Осталось # шага}}")
    wait_text("texts-state", "No changes yet")

    step("a button's text over its limit is refused; a shorter one published in ru and en")
    click_key(button)
    retype("text-ru", "Вот это технологии, просто невероятно")
    wait_text("text-ru-problem", "room for 24")
    shot("forms-10-text-too-long")
    retype("text-ru", "Поехали!")
    retype("text-en", "Let's go!")
    wait_text("texts-state", "No problems")
    wait_text("text-preview", "Поехали!")
    click("texts-save")
    wait_text("texts-draft", "is ready")
    click("texts-draft-diff")
    wait_text("texts-draft-result", "Поехали!")
    published = publish_draft("texts", "the first launch's button: shorter")
    shot("forms-11-text-published")
    served_texts = {k["key"]: k["texts"] for k in served("/v1/texts", published)["keys"]}
    assert served_texts[button] == {"ru": "Поехали!", "en": "Let's go!"}, served_texts[button]
    fits("texts")


try:
    sign_in()
    baseline = driver.execute_script("return JC.requests.length")
    parameters()
    experiments()
    onboarding()
    texts()
    requests = driver.execute_script("return JC.requests")[baseline:]
    failed = [r for r in requests if r["status"] >= 400 or r["status"] == 0]
    expected = [r for r in failed if r["path"] == "/v1/rules/params/check" and r["status"] == 422]
    assert failed == expected and expected, f"console requests that failed: {failed}"
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and "/v1/rules/params/check" not in e["message"]]
    assert not errors, f"JavaScript errors: {errors}"
    step(f"passed: {len(requests)} requests")
except Exception as error:
    shot("forms-failed")
    print(f"browser-test forms: FAILED: {error!r}", file=sys.stderr)
    print("browser-test forms: last requests: " + driver.execute_script("return JSON.stringify(JC.requests.slice(-8))"), file=sys.stderr)
    print("browser-test forms: experiments: " + driver.execute_script("return document.getElementById('experiments-body').innerText"), file=sys.stderr)
    for entry in driver.get_log("browser"):
        print(f"browser-test forms: console {entry['level']}: {entry['message']}", file=sys.stderr)
    driver.quit()
    sys.exit(1)
driver.quit()
