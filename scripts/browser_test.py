"""The console's browser test (run by scripts/browser-test against a live `journey serve`).

Drives headless Chromium through every page, starting from a fresh store with nothing published
(the console publishes the first revision; no shell), one approval required and a credential per
role: sign in (a wrong token first), the rules (search), the editor (an error typed at a known line
and its diagnostic there, the fix, the tests, a change whose unchanged tests fail, the impact
preview with its window, the diff, publishing for approval), approvals by another person (voided
by an edit), a scheduled activation, the history (an emergency rollback), an experiment's report,
the explanation of a dog found by name or owner, what each role sees, the layout at 1024×700 and
1366×900, and the contrast of the line numbers. Saves a screenshot of each page; fails on a
4xx/5xx answer to a console request after sign-in (other than the ones it asks for) and on any
JavaScript error in the browser's console log.

Environment: JOURNEY_CONSOLE_URL, JOURNEY_CONSOLE_TOKEN (a publisher), JOURNEY_CONSOLE_PUBLISHER_TOKEN
(another publisher), JOURNEY_CONSOLE_EDITOR_TOKEN, JOURNEY_CONSOLE_VIEWER_TOKEN,
JOURNEY_CONSOLE_ACCESS_LOG, JOURNEY_CONSOLE_SHOTS.
"""

import sys

sys.dont_write_bytecode = True  # nothing written beside the scripts

from browser_steps import *  # noqa: E402,F401,F403 (the steps, run in order below)
from browser_support import driver, shot, step  # noqa: E402

try:
    sign_in_the_first_time()
    baseline = driver.execute_script("return JC.requests.length")
    search_the_rules()
    first = publish_the_bundled_rules()
    approve_as_pat(first)
    make_live(first)
    rules_page_shows_live("the bundled rules")
    edit_with_a_diagnostic()
    line_numbers_readable()
    unchanged_tests_never_said_to_pass()
    fix_the_tests()
    preview_with_a_window()
    approved = publish_for_approval("by-branch: the strongest branch first")
    approve_as_pat(approved)
    changed = an_edit_voids_the_approval(approved)
    history_names_revisions(changed, "by-branch: the strongest branch's furthest block")
    approve_as_pat(changed)
    schedule_and_cancel(changed, approved)
    emergency_rollback(first)
    experiment_results_in_words()
    numbers_in_words()
    explain_by_name_and_owner()
    no_jargon()
    each_role_sees_what_it_may_do()
    baseline = driver.execute_script("return JC.requests.length")
    layout_at(1366, 757)
    layout_at(1024, 557)
    count = no_failed_requests(0)
    textarea_fallback()
    step(f"passed: {count[0]} requests, {count[1]} answers in the access log")
except Exception as error:
    shot("failed")
    print(f"browser-test: FAILED: {error}", file=sys.stderr)
    for entry in driver.get_log("browser"):
        print(f"browser-test: console {entry['level']}: {entry['message']}", file=sys.stderr)
    driver.quit()
    sys.exit(1)
driver.quit()
