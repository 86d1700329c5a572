"""The console's browser test steps, one function each (scripts/browser_test.py runs them in order)."""
import json
import re
import time
from datetime import datetime, timedelta

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from browser_support import (
    ACCESS_LOG,
    EDITOR,
    EXPECTED_REFUSALS,
    OTHER_PUBLISHER,
    RECOMMENDATION,
    TOKEN,
    URL,
    VIEWER,
    admin,
    admin_get,
    click,
    click_css,
    confirm_dialog,
    contrast_of,
    driver,
    editor_text,
    nav,
    no_horizontal_overflow,
    served_revision_becomes,
    set_editor,
    severe_logs,
    shot,
    sign_in,
    step,
    text_of,
    wait,
    wait_text,
)

def sign_in_the_first_time():
    """Problem 8: nothing of the nav before sign-in; a wrong token refused in words; then pm-ann."""
    driver.get(URL)
    assert driver.execute_script("return typeof window.CodeMirror") == "function", "CodeMirror did not load"
    assert not driver.find_element(By.ID, "nav").is_displayed(), "the nav shows before sign-in"
    assert not driver.find_element(By.ID, "sign-out").is_displayed(), "Sign out shows before sign-in"
    step("sign in with a wrong token")
    driver.find_element(By.ID, "token").send_keys("not-the-token-0123456789")
    click("signin")
    wait_text("notice", "your admin token was not accepted")
    shot("01-signin-refused")
    refused = severe_logs()
    assert all("401" in entry["message"] for entry in refused), f"unexpected errors: {refused}"
    assert driver.execute_script("return sessionStorage.getItem('journey.admin-token')") is None
    step("sign in")
    driver.find_element(By.ID, "token").clear()
    driver.find_element(By.ID, "token").send_keys(TOKEN)
    click("signin")
    wait_text("rules-body", "rules")
    wait_text("signed-in", "Signed in as pm-ann (publisher)")
    assert driver.find_element(By.ID, "nav").is_displayed()
    assert TOKEN not in driver.current_url


def search_the_rules():
    """Problem 6: a search box filters the Rules page."""
    step("search the rules")
    field = driver.find_element(By.ID, "rules-search")
    field.send_keys("recommendation")
    rows = driver.execute_script(
        "const rows = [...document.querySelectorAll('#rules-body tbody tr')];"
        "return [rows.length, rows.filter((r) => !r.hidden).map((r) => r.textContent.toLowerCase())];"
    )
    assert rows[1] and len(rows[1]) < rows[0], rows
    assert all("recommendation" in text for text in rows[1]), rows[1]
    field.send_keys(Keys.CONTROL + "a", Keys.BACKSPACE)
    assert driver.execute_script("return [...document.querySelectorAll('#rules-body tbody tr')].every((r) => !r.hidden)")


def publish_the_bundled_rules():
    """Problem 1: a fresh install is edited and published from the console; no shell."""
    step("a fresh install: the editor starts from the bundled rules")
    wait_text("rules-revision", "Nothing is published yet")
    nav("editor")
    wait.until(lambda d: d.execute_script("return JC.editor.file") == RECOMMENDATION)
    assert editor_text().startswith("rule: recommendation"), "the editor is empty on a fresh install"
    wait_text("editor-base", "Nothing is published yet")
    wait_text("editor-state", "No problems")
    driver.find_element(By.ID, "publish-message").send_keys("the bundled rules")
    click("publish")
    wait_text("publish-result", "needs 1 approval")
    listing = admin_get("/v1/rules/revisions")
    assert listing["active_revision_id"] is None, "activated without an approval"
    shot("02-first-publish-waits")
    return listing["revisions"][0]["revision"]


def approve_as_pat(revision):
    step(f"pat approves {revision[:12]}")
    sign_in(OTHER_PUBLISHER, "pat")
    nav("history")
    click_css(f'button[data-approve="{revision}"]')
    wait_text("history-diff", "You approved")
    sign_in(TOKEN, "pm-ann")


def make_live(revision):
    step(f"make {revision[:12]} live from the history")
    nav("history")
    click_css(f'#history-body button[data-revision="{revision}"]')
    confirm_dialog()
    wait_text("history-diff", "is live now")
    served_revision_becomes(revision)


def rules_page_shows_live(message):
    """Problem 1: the Rules page names what is live without a reload."""
    nav("rules")
    wait_text("rules-revision", f"Live: “{message}”")
    shot("03-rules")


def edit_with_a_diagnostic():
    step("open the recommendation rule; an error typed at line 2; its diagnostic; the fix")
    driver.find_element(By.XPATH, '//*[@id="rules-body"]//button[text()="recommendation"]').click()
    wait.until(lambda d: d.execute_script("return JC.editor.file") == RECOMMENDATION)
    wait_text("editor-state", "No problems")
    driver.execute_script("const cm = JC.editor.cm; cm.focus(); cm.setCursor({line: 1, ch: cm.getLine(1).length});")
    typed = ": oops"
    field = driver.execute_script("return JC.editor.cm.getInputField()")
    field.send_keys(typed)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '#diagnostics li[data-line="2"]'))
    diagnostic = driver.find_element(By.CSS_SELECTOR, '#diagnostics li[data-line="2"]')
    assert "Line 2, column 21" in diagnostic.text, diagnostic.text
    code = diagnostic.get_attribute("data-code")
    assert code and code not in diagnostic.text, f"the raw code {code} is shown: {diagnostic.text}"
    assert driver.find_elements(By.CSS_SELECTOR, ".CodeMirror .cm-line-error"), "the line is not marked"
    shot("04-editor-diagnostic")
    field.send_keys(Keys.BACKSPACE * len(typed))
    wait_text("editor-state", "No problems")
    click("run-tests")
    wait_text("tests-result", "tests passed")


def unchanged_tests_never_said_to_pass():
    """Problem 2: a changed rule whose tests fail is never said to still pass."""
    step("change by-branch without its tests: the warning, then the failing tests")
    set_editor(editor_text().replace("| min_by([-($progress", "| max_by([-($progress"))
    wait.until(lambda d: "changed but its tests" in text_of("diagnostics"))
    click("run-tests")
    wait_text("tests-result", "tests failed")
    shot("05-tests-fail")
    warning = text_of("diagnostics")
    assert "pass" not in warning.replace("Run tests to see which pass", ""), warning
    assert "tests_unchanged" not in warning, warning


def fix_the_tests():
    step("fix the tests in the editor")
    driver.execute_script(
        """const cm = JC.editor.cm;
        cm.setValue(cm.getValue()
          .replace('variant: by-branch\\n    expect: growth-check', 'variant: by-branch\\n    expect: daily-exercise-needs')
          .replace('weakest_topic}\\n    expect: impulse-control-basics', 'weakest_topic}\\n    expect: enrichment-feeding')
          .replace('by_branch_min_progress: 4, by_branch_start: lifestyle}\\n    expect: enrichment-feeding',
                   'by_branch_min_progress: 4, by_branch_start: lifestyle}\\n    expect: socialization-plan')
          .replace('most_progress, by_branch_start: lifestyle}\\n    expect: enrichment-feeding',
                   'most_progress, by_branch_start: lifestyle}\\n    expect: impulse-control-basics'));"""
    )
    wait_text("editor-state", "No problems (1 changed file)")
    click("run-tests")
    wait_text("tests-result", "tests passed")


def preview_with_a_window():
    """Problem 4: the headline counts decisions and replayed events; examples; a window."""
    for days in ("2", "7"):
        step(f"preview the impact over {days} days")
        field = driver.find_element(By.ID, "preview-days")
        field.clear()
        field.send_keys(days)
        click("run-preview")
        wait_text("preview-result", f"Impact over the last {days} days")
    summary = text_of("preview-summary")
    assert "screen decision" in summary and "replayed event" in summary, summary
    assert "dogs active in the last 7 days" in summary, summary
    result = text_of("preview-result")
    assert "today.recommended" in result and "q-123" in result, result
    assert "Only dogs active in this window are replayed" in result
    report = driver.execute_script("return JC.requests.filter((r) => r.path.endsWith('/preview')).length")
    assert report >= 2
    shot("06-editor-preview")
    click("show-diff")
    wait_text("diff-result", "max_by")


def publish_for_approval(message):
    """Problem 3: the message typed after a preview is the revision's, not "draft: …"."""
    step("publish for approval")
    field = driver.find_element(By.ID, "publish-message")
    field.clear()
    field.send_keys(message)
    click("publish")
    wait_text("publish-result", f"“{message}”")
    wait_text("publish-result", "needs 1 approval")
    listing = admin_get("/v1/rules/revisions")["revisions"]
    named = [r["revision"] for r in listing if r["message"] == message]
    assert named, f"no revision has the message {message!r}: {[r['message'] for r in listing]}"
    return named[0]


def an_edit_voids_the_approval(approved):
    """An approval is of the content: the edited draft is another revision with none."""
    step("edit the approved draft: the new revision has no approval")
    nav("editor")
    wait.until(lambda d: d.execute_script("return JC.editor.file") == RECOMMENDATION)
    set_editor(editor_text() + "\n# weakest topic first in by-branch\n")
    wait_text("editor-state", "No problems")
    driver.find_element(By.ID, "publish-message").clear()
    revision = publish_for_approval("by-branch: the strongest branch's furthest block")
    assert revision != approved
    wait_text("publish-result", "it has 0")
    status, body = admin("POST", f"/v1/rules/revisions/{revision}/activate", body={"message": "too early"})
    assert status == 409 and body["code"] == "approval_required", (status, body)
    EXPECTED_REFUSALS[409] = EXPECTED_REFUSALS.get(409, 0) + 1
    listing = admin_get("/v1/rules/revisions")["revisions"]
    assert next(r for r in listing if r["revision"] == approved)["approvals"]["have"] == 1
    assert next(r for r in listing if r["revision"] == revision)["approvals"]["have"] == 0
    return revision


def history_names_revisions(revision, message):
    """Problems 3 and 7: History names revisions by message and hash, in plain words."""
    nav("history")
    wait_text("history-body", message)
    row = driver.find_element(By.XPATH, f'//*[@id="history-body"]//tr[.//button[@data-schedule="{revision}"]]')
    assert message in row.text and revision[:12] in row.text, row.text
    assert "draft:" not in row.text, row.text


def schedule_and_cancel(revision, other):
    """A scheduled activation goes live within 1 s of its time; another is cancelled."""
    step("schedule a revision 8 s ahead")
    nav("history")
    due_local = driver.execute_script(
        "const d = new Date(Date.now() + 8000); d.setMilliseconds(0);"
        "return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19);"
    )
    click_css(f'#history-body button[data-schedule="{revision}"]')
    confirm_dialog(message="go live at the time", at=due_local)
    wait_text("history-diff", "goes live at")
    schedule = admin_get("/v1/rules/schedules")["schedules"][0]
    due = datetime.fromisoformat(schedule["due_at"].replace("Z", "+00:00")).timestamp()
    served_at = served_revision_becomes(revision, seconds=15)
    late = served_at - due
    step(f"served {late:+.3f} s after the scheduled time")
    assert -0.05 <= late <= 1.0, f"served {late:.3f} s after the scheduled time"
    step("schedule another in an hour, and cancel it")
    later = (datetime.now() + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S")
    nav("history")
    click_css(f'#history-body button[data-schedule="{other}"]')
    confirm_dialog(message="tomorrow's change", at=later)
    wait_text("history-diff", "goes live at")
    click_css("button[data-cancel-schedule]")
    wait_text("history-diff", "Cancelled")
    audit = text_of("history-body")
    assert "made live on schedule" in audit and "cancelled a schedule" in audit and "scheduled" in audit, audit
    shot("07-history-scheduled")


def emergency_rollback(first):
    step("roll back in an emergency")
    nav("history")
    click_css(f'#history-body button[data-revision="{first}"]')
    confirm_dialog(emergency=True)
    wait_text("history-diff", "is live now")
    served_revision_becomes(first)
    wait_text("history-body", "rolled back in an emergency")
    cells = driver.find_elements(By.CSS_SELECTOR, "#history-body td.emergency")
    assert cells, "the emergency rollback is not marked"
    color = driver.execute_script("return getComputedStyle(arguments[0]).color", cells[0])
    assert color.startswith("rgb(179, 38, 30"), color
    click("compare")
    wait_text("history-diff", "Rules/journey/recommendation.yaml")
    shot("08-history")


def experiment_results_in_words():
    """Problem 5: pp, one p-value, p < 0.001, relative intervals clipped, metrics in words, open windows."""
    step("the experiments' results")
    nav("experiments")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, 'button[data-experiment="recommendation-v2"]'))
    listing = text_of("experiments-body")
    assert "an onboarding flow or none" not in listing, listing
    for key in ("recommendation-v2", "onboarding-first-launch"):
        click_css(f'button[data-experiment="{key}"]')
        wait_text("experiment-report", f"Results of {key}")
        report = admin_get(f"/v1/experiments/{key}/report")
        text = text_of("experiment-report")
        assert "p = 0.000" not in text, text
        for row in driver.find_elements(By.CSS_SELECTOR, "#experiment-report .metric tbody tr"):
            assert len(re.findall(r"\bp [<=]", row.text)) <= 1, f"more than one p-value: {row.text}"
            assert "%" not in row.find_elements(By.TAG_NAME, "td")[4].text, row.text
        assert not re.search(r"[-−](10[1-9]|1[1-9]\d|[2-9]\d\d)\.\d%", text), "a relative change below −100%"
        for title in driver.find_elements(By.CSS_SELECTOR, "#experiment-report .metric h4"):
            assert " where " not in title.text and ".payload" not in title.text, title.text
        if any(m.get("users_with_open_window", 0) > 0 for m in report["metric_results"]):
            assert "windows are still open" in text, text
        if any(v.get("absolute") for m in report["metric_results"] for v in m["variations"]):
            assert " pp" in text, text
    assert driver.find_elements(By.CSS_SELECTOR, "#experiment-report svg circle"), "no chart"
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#funnel svg"))
    shot("09-experiments")


def explain_by_name_and_owner():
    """Problems 7 and 8: a dog found by name or owner; the variant chosen, in words."""
    step("explain a dog by its name")
    nav("explain")
    field = driver.find_element(By.ID, "explain-dog")
    field.send_keys("q")
    click("explain")
    wait_text("explain-result", "What Q (q-123) sees today")
    result = text_of("explain-result")
    assert "recommendation" in result and "recommendation-v2" in result, result
    assert "sticky, hash" not in result and "hash 0." not in result, result
    shot("10-explain")
    step("explain a dog by its owner")
    field.clear()
    field.send_keys("owner-1")
    click("explain")
    wait.until(lambda d: "sees today" in text_of("explain-result") or d.find_elements(By.CSS_SELECTOR, "#explain-choices"))
    if driver.find_elements(By.CSS_SELECTOR, "#explain-choices"):
        click_css('#explain-choices button[data-dog="q-123"]')
    wait_text("explain-result", "What Q (q-123) sees today")


def no_jargon():
    """Problem 7: none of the words the walk-through did not understand, on any page (the
    editor's own text is the rules, not the console's words)."""
    for page in ("rules", "history", "experiments", "explain"):
        nav(page)
        time.sleep(0)  # the page's load is awaited below
        wait.until(lambda d: d.find_element(By.ID, "page-" + page).is_displayed())
        wait.until(lambda d: "Loading…" not in text_of("page-" + page))
        text = text_of("page-" + page)
        for word in (r"\bKept\b", r"\bkeep\b", r"sticky, hash", r"\bconsumer\b", r"an onboarding flow or none", r"jq_compile", r"tests_unchanged", r"kept history"):
            assert not re.search(word, text), f"the {page} page says {word}: {text[:2000]}"


def each_role_sees_what_it_may_do():
    """Roles: the console hides what a role may not do; the service refuses it anyway."""
    step("a viewer and an editor")
    sign_in(VIEWER, "vic")
    nav("editor")
    wait.until(lambda d: d.execute_script("return JC.editor.file"))
    for element_id in ("run-tests", "run-preview", "publish-form"):
        assert not driver.find_element(By.ID, element_id).is_displayed(), f"a viewer sees #{element_id}"
    nav("history")
    wait_text("history-body", "Audit trail")
    assert not [b for b in driver.find_elements(By.CSS_SELECTOR, "#history-body button") if b.is_displayed()], "a viewer sees buttons"
    status, body = admin("POST", "/v1/rules/check", token=VIEWER, body={"files": {}, "base": "active"})
    assert status == 403 and "editor" in body["message"], (status, body)
    sign_in(EDITOR, "eddie")
    nav("editor")
    wait.until(lambda d: d.execute_script("return JC.editor.file"))
    assert driver.find_element(By.ID, "publish-form").is_displayed() and driver.find_element(By.ID, "run-tests").is_displayed()
    nav("history")
    wait_text("history-body", "Audit trail")
    assert not [b for b in driver.find_elements(By.CSS_SELECTOR, "#history-body button[data-revision]") if b.is_displayed()]
    revision = admin_get("/v1/rules/revisions")["revisions"][0]["revision"]
    status, body = admin("POST", f"/v1/rules/revisions/{revision}/activate", token=EDITOR, body={"message": "no"})
    assert status == 403 and "publisher" in body["message"], (status, body)
    EXPECTED_REFUSALS[403] = EXPECTED_REFUSALS.get(403, 0) + 2
    sign_in(TOKEN, "pm-ann")


def viewport(width, height):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def layout_at(width, height):
    """Problem 6: no page wider than the window; Problems, Run tests and Publish in view; funnel labels apart."""
    step(f"layout at {width}×{height}")
    viewport(width, height)
    for page in ("rules", "history", "explain"):
        nav(page)
        wait.until(lambda d: d.find_element(By.ID, "page-" + page).is_displayed())
        wait.until(lambda d: "Loading…" not in text_of("page-" + page))
        no_horizontal_overflow(f"{page} at {width}")
    nav("experiments")
    click_css('button[data-experiment="onboarding-first-launch"]')
    wait_text("experiment-report", "Results of onboarding-first-launch")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#funnel svg"))
    no_horizontal_overflow(f"experiments at {width}")
    overlaps = driver.execute_script(
        """const found = [];
        for (const chart of document.querySelectorAll('#funnel svg')) {
          const boxes = [...chart.querySelectorAll('.step-label')].map((t) => t.getBoundingClientRect());
          for (let i = 1; i < boxes.length; i++) if (boxes[i].left < boxes[i - 1].right - 0.5) found.push(i);
        }
        return found;"""
    )
    assert not overlaps, f"funnel step labels overlap at {overlaps}"
    shot(f"11-experiments-{width}")
    driver.get("about:blank")
    driver.get(URL + "#editor")
    wait.until(lambda d: d.execute_script("return window.JC && JC.editor && JC.editor.file") == RECOMMENDATION)
    wait_text("editor-state", "No problems")
    for element_id in ("run-tests", "publish", "diagnostics"):
        bottom = driver.execute_script("return arguments[0].getBoundingClientRect().bottom", driver.find_element(By.ID, element_id))
        assert bottom <= height, f"#{element_id} ends at {bottom} px, below the {height}-px window"
    no_horizontal_overflow(f"editor at {width}")
    shot(f"12-editor-{width}")


def line_numbers_readable():
    """Problem 8: CodeMirror's line numbers at 4.5:1 or more."""
    ratio = contrast_of(".CodeMirror-linenumber")
    step(f"line numbers contrast {ratio:.2f}:1")
    assert ratio >= 4.5, f"line numbers contrast {ratio:.2f}:1"


def no_failed_requests(baseline):
    requests = driver.execute_script("return JC.requests")
    failed = [r for r in requests[baseline:] if r["status"] >= 400 or r["status"] == 0]
    assert not failed, f"console requests that failed: {failed}"
    with open(ACCESS_LOG, encoding="utf-8") as log:
        answers = [json.loads(line) for line in log if line.strip()]
    bad = {}
    for answer in answers:
        if answer["status"] >= 400:
            bad[answer["status"]] = bad.get(answer["status"], 0) + 1
    assert bad == EXPECTED_REFUSALS, f"4xx/5xx in the access log: {bad}, expected {EXPECTED_REFUSALS}"
    errors = severe_logs()
    assert not errors, f"JavaScript errors: {errors}"
    return len(requests), len(answers)


def textarea_fallback():
    step("without CodeMirror: the textarea fallback")
    viewport(1400, 1000)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/console/vendor/codemirror/*"]})
    driver.get("about:blank")  # a new load of the page (a new hash alone would not load it again)
    driver.get(URL + "#editor")
    wait.until(lambda d: d.execute_script("return window.JC && JC.editor && JC.editor.file") == RECOMMENDATION)
    assert driver.execute_script("return typeof window.CodeMirror") == "undefined", "CodeMirror was not blocked"
    area = driver.find_element(By.ID, "editor-text")
    assert area.is_displayed() and area.get_attribute("value").startswith("rule: recommendation")
    driver.execute_script("const a = arguments[0]; const end = a.value.indexOf('\\n', a.value.indexOf('\\n') + 1); a.focus(); a.setSelectionRange(end, end);", area)
    area.send_keys(": oops")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '#diagnostics li[data-line="2"]'))
    shot("13-editor-textarea")
    others = [e for e in severe_logs() if "ERR_BLOCKED_BY_CLIENT" not in e["message"]]
    assert not others, f"JavaScript errors without CodeMirror: {others}"


def numbers_in_words():
    """Problem 5 on numbers the sample data does not reach: p-values and differences in pp."""
    values = driver.execute_script("return [JC.pValue(0.0000000179), JC.pValue(0.0421), JC.points(0.211), JC.points(-0.05)]")
    assert values == ["p < 0.001", "p = 0.042", "+21.1 pp", "−5.0 pp"], values
