// The Editor page: a file of the active revision in CodeMirror (or a plain textarea), checked as
// you type; tests, the impact preview, the diff, and publishing.
"use strict";
(function () {
  const JC = window.JC;
  const state = { base: null, file: null, drafts: {}, cm: null, marks: [], sequence: 0, timer: null, kept: null, diagnostics: [] };
  JC.editor = state;

  const textarea = () => document.getElementById("editor-text");
  const text = () => (state.cm ? state.cm.getValue() : textarea().value);

  function setText(value) {
    if (state.cm) state.cm.setValue(value);
    else textarea().value = value;
  }

  function modeOf(path) {
    return path.endsWith(".yaml") || path.endsWith(".yml") ? "yaml" : "text/plain";
  }

  function setUpEditor() {
    if (state.cm !== null || !window.CodeMirror) return;
    state.cm = window.CodeMirror.fromTextArea(textarea(), {
      mode: "yaml",
      lineNumbers: true,
      indentUnit: 2,
      tabSize: 2,
      extraKeys: { Tab: (cm) => cm.replaceSelection("  "), "Shift-Tab": false, Esc: (cm) => cm.getInputField().blur() },
      screenReaderLabel: "File text",
    });
    state.cm.on("change", changed);
  }

  /** The draft changes since the active revision: path → text. */
  function drafts() {
    return { ...state.drafts };
  }

  function changed() {
    if (!state.file) return;
    const value = text();
    if (value === state.base.files[state.file]) delete state.drafts[state.file];
    else state.drafts[state.file] = value;
    state.kept = null;
    JC.show("editor-state", "Checking soon…");
    clearTimeout(state.timer);
    state.timer = setTimeout(check, 400);
  }

  async function check() {
    if (!JC.can("editor")) {
      JC.show("editor-state", "Read only: a " + JC.role + " reads the rules; an editor checks and changes them.");
      return;
    }
    const sequence = ++state.sequence;
    try {
      const report = (await JC.api("POST", "/v1/rules/check", { files: drafts(), base: "active" })).data;
      if (sequence !== state.sequence) return;
      showDiagnostics(report.diagnostics);
    } catch (error) {
      if (sequence === state.sequence) JC.show("diagnostics", JC.el("li", {}, JC.errorMessage("check the file", error)));
    }
  }

  function goTo(line, column) {
    if (state.cm) {
      state.cm.focus();
      state.cm.setCursor({ line: line - 1, ch: Math.max(0, column - 1) });
      return;
    }
    const lines = textarea().value.split("\n");
    let offset = 0;
    for (let i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
    textarea().focus();
    textarea().setSelectionRange(offset + column - 1, offset + column - 1);
  }

  function showDiagnostics(diagnostics) {
    state.diagnostics = diagnostics;
    for (const mark of state.marks) mark();
    state.marks = [];
    const count = Object.keys(state.drafts).length;
    const here = diagnostics.filter((d) => d.file === state.file);
    JC.show("editor-state", diagnostics.length === 0 ? "No problems" + (count ? " (" + count + " changed file" + (count > 1 ? "s" : "") + ")" : "") : diagnostics.length + " problem" + (diagnostics.length > 1 ? "s" : ""));
    if (state.cm) {
      for (const d of here) {
        const line = Math.max(0, d.line - 1);
        const handle = state.cm.addLineClass(line, "background", "cm-line-error");
        const length = state.cm.getLine(line) === undefined ? 0 : state.cm.getLine(line).length;
        const from = Math.min(Math.max(0, d.column - 1), length);
        const mark = state.cm.markText({ line, ch: from }, { line, ch: Math.max(from + 1, length) }, { className: "cm-diagnostic", attributes: { title: d.message } });
        state.marks.push(() => {
          state.cm.removeLineClass(handle, "background", "cm-line-error");
          mark.clear();
        });
      }
    }
    JC.show(
      "diagnostics",
      diagnostics.length === 0
        ? JC.el("li", { class: "none" }, "No problems found.")
        : diagnostics.map((d) =>
            JC.el(
              "li",
              { class: d.severity, "data-file": d.file, "data-line": d.line, "data-column": d.column, "data-code": d.code, title: "code " + d.code },
              d.file === state.file
                ? JC.el("button", { type: "button", class: "secondary", onclick: () => goTo(d.line, d.column) }, "Line " + d.line + ", column " + d.column)
                : JC.el("button", { type: "button", class: "secondary", onclick: () => JC.openFile(d.file, d.line) }, d.file + " line " + d.line),
              " " + (d.severity === "error" ? "Error" : d.severity === "warning" ? "Warning" : "Note") + ": " + JC.plain(d.message)
            )
          )
    );
  }

  function open(path, line) {
    state.file = path;
    document.getElementById("editor-file").value = path;
    const value = path in state.drafts ? state.drafts[path] : state.base.files[path];
    if (state.cm) state.cm.off("change", changed);
    setText(value);
    if (state.cm) {
      state.cm.setOption("mode", modeOf(path));
      state.cm.on("change", changed);
      state.cm.clearHistory();
      state.cm.refresh();
    }
    if (line) goTo(line, 1);
    check();
  }

  /** Keeps the draft as a revision (gates run, not activated): what preview and diff need. */
  async function keep() {
    if (state.kept) return state.kept;
    const files = drafts();
    if (Object.keys(files).length === 0) throw new Error("nothing changed yet: edit a file first");
    const message = document.getElementById("publish-message").value.trim() || "draft: " + Object.keys(files).join(", ");
    const outcome = (await JC.api("POST", "/v1/rules/revisions", { files, base: "active", message, activate: false })).data;
    state.kept = outcome.published_revision.revision;
    return state.kept;
  }

  function refusalDetail(error) {
    if (!(error instanceof JC.APIError) || error.body.code !== "gates_refused") return null;
    return JC.el("ul", {}, error.body.errors.map((e) => JC.el("li", {}, (e.file ? e.file + ":" + e.line + ":" + e.column + " " : e.location ? e.location + " " : "") + e.message)));
  }

  async function runTests() {
    const button = document.getElementById("run-tests");
    JC.show("tests-result", JC.el("p", {}, "Running the tests…"));
    await JC.busy(button, "tests-result", "run the tests", async () => {
      const report = (await JC.api("POST", "/v1/rules/check", { files: drafts(), base: "active", tests: true })).data;
      const failed = report.failed_tests;
      const blocked = report.diagnostics.filter((d) => d.severity === "error").length;
      JC.show(
        "tests-result",
        failed.length === 0 && blocked === 0
          ? JC.message("ok", "All " + report.tests_run + " tests passed.")
          : JC.message("error", failed.length + " of " + report.tests_run + " tests failed" + (blocked ? "; " + blocked + " problems stop the rules from loading" : "") + ".", report),
        failed.length ? JC.table(["Test", "Where", "Problem", "Expected", "Actual"], failed.map((t) => [t.test, t.location, t.message, JC.el("pre", {}, "expected" in t ? JSON.stringify(t.expected, null, 2) : "–"), JC.el("pre", {}, "actual" in t ? JSON.stringify(t.actual, null, 2) : "–")])) : null
      );
    });
  }

  function examples(list) {
    return JC.el("ul", {}, list.map((e) => JC.el("li", {}, e.dog_id + ": ", JC.el("code", {}, JSON.stringify(e.before)), " → ", JC.el("code", {}, JSON.stringify(e.after)))));
  }

  function countTable(title, object, describe) {
    const entries = Object.entries(object || {});
    if (entries.length === 0) return null;
    return JC.table([title, "Changed"], entries.map(([key, value]) => [key, describe(value)]));
  }

  /** A replayed event's effect type, in words. */
  const effectWords = {
    manifest_created: "a registration's first recommendation",
    analytics_event: "analytics events sent",
    record_added: "profile records added",
    reminder_scheduled: "reminders scheduled",
  };
  const effectName = (type) => effectWords[type] || type.replace(/_/g, " ");
  const short = (value) => {
    const text = JSON.stringify(value);
    return text.length > 160 ? text.slice(0, 157) + "…" : text;
  };

  /** What a replayed event changes: its type, the user, and what it made before and after. */
  function eventExamples(change) {
    if (!change.examples || change.examples.length === 0) return "–";
    return JC.el("ul", {}, change.examples.map((e) => JC.el("li", {}, e.user_id + " (" + e.type + "): ", JC.el("code", {}, short(e.before)), " → ", JC.el("code", {}, short(e.after)))));
  }

  /** The headline: screen decisions and replayed events that change, so that neither hides behind the other. */
  JC.previewHeadline = function (report, days) {
    const events = report.event_impact || {};
    const changedEvents = events.changed || 0;
    const effects = Object.entries(events.by_effect || {}).filter(([, c]) => c.event_count > 0).map(([type, c]) => c.event_count + " × " + effectName(type));
    const decisions = report.changed === 0 ? "No screen decision changes" : report.changed + " of " + report.decisions + " screen decisions change";
    const replay = changedEvents === 0 ? "no replayed event changes" : changedEvents + " of " + (events.replayed || 0) + " replayed events change (" + effects.join(", ") + ")";
    return decisions + " and " + replay + ", over the " + report.dog_count + " dogs active in the last " + days + " day" + (days === 1 ? "" : "s") + ".";
  };

  async function runPreview() {
    const button = document.getElementById("run-preview");
    const days = Math.min(366, Math.max(1, Number(document.getElementById("preview-days").value) || 7));
    JC.show("preview-result", JC.el("p", {}, "Replaying the last " + days + " days under the draft…"));
    await JC.busy(button, "preview-result", "preview the impact", async () => {
      let revision;
      try {
        revision = await keep();
      } catch (error) {
        JC.show("preview-result", JC.errorMessage("preview the impact", error), refusalDetail(error));
        return;
      }
      const report = (await JC.api("POST", "/v1/rules/revisions/" + revision + "/preview", { days })).data;
      const decisions = Object.entries(report.by_decision);
      const events = report.event_impact || {};
      const effects = Object.entries(events.by_effect || {}).filter(([, c]) => c.event_count > 0);
      JC.show(
        "preview-result",
        JC.el("h3", {}, "Impact over the last " + days + " days"),
        JC.el("p", { id: "preview-summary" }, JC.previewHeadline(report, days)),
        JC.el("p", { class: "hint" }, "Only dogs active in this window are replayed; every other dog gets the new rules the next time its screens are drawn. Widen the window to see more of them."),
        decisions.length
          ? JC.table(["Screen decision", "Dogs changed", "Share", "Examples"], decisions.map(([key, c]) => [key, { text: String(c.changed), class: "number" }, JC.percent(c.share), examples(c.examples)]))
          : null,
        countTable("Rule", report.by_rule, (n) => String(n)),
        effects.length
          ? JC.table(["What replayed events make", "Events that change", "Examples (before → after)"], effects.map(([type, c]) => [effectName(type), { text: String(c.event_count), class: "number" }, eventExamples(c)]), "Replayed events (" + (events.replayed || 0) + " events of " + (events.users || 0) + " users)")
          : null,
        countTable("Made by", Object.fromEntries(Object.entries(events.by_consumer || {}).map(([k, v]) => [k.replace(/^rule:/, "rule "), v])), (v) => v + " events"),
        events.refusals && events.refusals.event_count ? JC.message("warning", events.refusals.event_count + " events would be refused by the draft.", events.refusals) : null,
        JC.el("details", {}, JC.el("summary", {}, "The whole report"), JC.el("pre", {}, JSON.stringify(report, null, 2)))
      );
    });
  }

  /** A diff as lines, added and removed marked. */
  JC.renderDiff = function (diff) {
    const counted = (diff.change_counts || {}).rules || {};
    const rules = ["added", "removed", "changed"].filter((k) => counted[k] && counted[k].length).map((k) => "rules " + k + ": " + counted[k].join(", "));
    return JC.el(
      "div",
      { class: "diff" },
      JC.el("p", {}, "From ", JC.revisionName(diff.from, JC.messageOf(diff.from)), " to ", JC.revisionName(diff.to, JC.messageOf(diff.to)), ": " + (diff.file_changes.length === 1 ? "1 file changes." : diff.file_changes.length ? diff.file_changes.length + " files change." : "no file changes.")),
      rules.length ? JC.el("ul", {}, rules.map((r) => JC.el("li", {}, r))) : null,
      diff.file_changes.map((file) =>
        JC.el(
          "div",
          {},
          JC.el("h4", {}, file.change + " " + file.path),
          file.diff_lines
            ? JC.el("pre", {}, file.diff_lines.map((line) => JC.el("span", { class: line.startsWith("+") ? "diff-add" : line.startsWith("-") ? "diff-remove" : "" }, line + "\n")))
            : JC.el("p", {}, "(too large to show line by line)")
        )
      )
    );
  };

  async function showDiff() {
    const button = document.getElementById("show-diff");
    await JC.busy(button, "diff-result", "show the changes", async () => {
      if (!state.base.id) {
        JC.show("diff-result", JC.message("ok", "Nothing is published yet: every file is new. " + Object.keys(drafts()).length + " of them differ from the bundled rules."));
        return;
      }
      let revision;
      try {
        revision = await keep();
      } catch (error) {
        JC.show("diff-result", JC.errorMessage("show the changes", error), refusalDetail(error));
        return;
      }
      const diff = (await JC.api("GET", "/v1/rules/revisions/" + state.base.id + "/diff/" + revision)).data;
      JC.show("diff-result", JC.el("h3", {}, "Changes against the active revision"), JC.renderDiff(diff));
    });
  }

  async function publish(event) {
    event.preventDefault();
    const button = document.getElementById("publish");
    const message = document.getElementById("publish-message").value.trim();
    const files = drafts();
    // Before the first publish the bundled rules themselves can be published, unchanged.
    if (Object.keys(files).length === 0 && state.base.id) {
      JC.show("publish-result", JC.message("warning", "Nothing to publish: no file differs from the active revision."));
      return;
    }
    JC.show("publish-result", JC.el("p", {}, "Publishing…"));
    await JC.busy(button, "publish-result", "publish", async () => {
      try {
        // An editor saves the revision for a publisher to make live; a publisher publishes it.
        const body = { files, base: "active", message };
        if (!JC.can("publisher")) body.activate = false;
        const answer = await JC.api("POST", "/v1/rules/revisions", body);
        if (!JC.can("publisher")) {
          JC.show("publish-result", JC.message("ok", "Saved " + JC.revisionName(answer.data.published_revision.revision, message) + ". A publisher makes it live from History."));
          state.drafts = {};
          state.kept = null;
          JC.invalidate();
          return;
        }
        const outcome = answer.data;
        const id = outcome.published_revision.revision;
        if (answer.status === 202) {
          const a = outcome.approvals;
          // The draft stays open: an edit makes another revision, which needs its own approvals.
          document.getElementById("publish-message").value = "";
          JC.show("publish-result", JC.message("warning", "Saved " + JC.revisionName(id, message) + ", not live yet: it needs " + a.needed + " approval" + (a.needed === 1 ? "" : "s") + " by someone other than you (it has " + a.have + "). Ask a colleague to approve it in History; then make it live there."));
          state.kept = null;
          return;
        }
        JC.show("publish-result", JC.message("ok", "Published " + JC.revisionName(id, message) + " (" + outcome.gates.summary + "); it is live now."));
        state.drafts = {};
        state.kept = null;
        document.getElementById("publish-message").value = "";
        JC.invalidate();
        state.base = await JC.active();
        showDiagnostics([]);
      } catch (error) {
        JC.show("publish-result", JC.errorMessage("publish", error), refusalDetail(error));
      }
    });
  }

  JC.pages.editor = {
    async load() {
      setUpEditor();
      const target = JC.editorTarget;
      JC.editorTarget = null;
      const active = await JC.active();
      if (!state.base || state.base.id !== active.id) {
        state.base = active;
        state.drafts = {};
      }
      const select = document.getElementById("editor-file");
      const paths = Object.keys(active.files).sort();
      JC.show(select, paths.map((path) => JC.el("option", { value: path }, (path in state.drafts ? "● " : "") + path)));
      if (paths.length === 0) {
        JC.show("editor-state", "The service has no rules to edit: ask an engineer to give it a Rules folder.");
        return;
      }
      JC.show("editor-base", active.id ? "" : JC.message("warning", "Nothing is published yet: you are editing the bundled rules the service serves. Publish them (changed or not) to make the first revision."));
      const file = target && target.file in active.files ? target.file : state.file && state.file in active.files ? state.file : paths.includes("Rules/journey/recommendation.yaml") ? "Rules/journey/recommendation.yaml" : paths[0];
      open(file, target && target.line);
    },
  };

  document.getElementById("editor-file").addEventListener("change", (event) => open(event.target.value));
  document.getElementById("editor-text").addEventListener("input", changed);
  document.getElementById("run-tests").addEventListener("click", runTests);
  document.getElementById("run-preview").addEventListener("click", runPreview);
  document.getElementById("show-diff").addEventListener("click", showDiff);
  document.getElementById("publish-form").addEventListener("submit", publish);
})();
