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
              { class: d.severity, "data-file": d.file, "data-line": d.line, "data-column": d.column },
              d.file === state.file
                ? JC.el("button", { type: "button", class: "secondary", onclick: () => goTo(d.line, d.column) }, "Line " + d.line + ", column " + d.column)
                : JC.el("button", { type: "button", class: "secondary", onclick: () => JC.openFile(d.file, d.line) }, d.file + " line " + d.line),
              " " + d.severity + ": " + d.message + " ",
              JC.el("code", {}, d.code)
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
    state.kept = outcome.revision.revision;
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
    return JC.el("ul", {}, list.map((e) => JC.el("li", {}, e.dog + ": ", JC.el("code", {}, JSON.stringify(e.before)), " → ", JC.el("code", {}, JSON.stringify(e.after)))));
  }

  function countTable(title, object, describe) {
    const entries = Object.entries(object || {});
    if (entries.length === 0) return null;
    return JC.table([title, "Changed"], entries.map(([key, value]) => [key, describe(value)]));
  }

  async function runPreview() {
    const button = document.getElementById("run-preview");
    JC.show("preview-result", JC.el("p", {}, "Replaying the last 7 days under the draft…"));
    await JC.busy(button, "preview-result", "preview the impact", async () => {
      let revision;
      try {
        revision = await keep();
      } catch (error) {
        JC.show("preview-result", JC.errorMessage("preview the impact", error), refusalDetail(error));
        return;
      }
      const report = (await JC.api("POST", "/v1/rules/revisions/" + revision + "/preview", { days: 7 })).data;
      const decisions = Object.entries(report.by_decision);
      const events = report.events || {};
      JC.show(
        "preview-result",
        JC.el("h3", {}, "Impact over the last 7 days"),
        JC.el("p", { id: "preview-summary" }, report.changed + " of " + report.decisions + " decisions change, over " + report.dogs + " active dogs (" + report.seconds + " s)."),
        decisions.length
          ? JC.table(["Decision", "Dogs changed", "Share", "Examples"], decisions.map(([key, c]) => [key, { text: String(c.changed), class: "number" }, JC.percent(c.share), examples(c.examples)]))
          : JC.message("ok", "No screen decision changes."),
        countTable("Rule", report.by_rule, (n) => String(n)),
        JC.el("h3", {}, "Events replayed"),
        countTable("Effect", events.by_effect, (v) => JSON.stringify(v.events !== undefined ? v.events : v)),
        countTable("Consumer", events.by_consumer, (v) => JSON.stringify(v.events !== undefined ? v.events : v)),
        events.refusals && events.refusals.length ? JC.message("warning", events.refusals.length + " events would be refused by the draft.", events.refusals) : null,
        JC.el("details", {}, JC.el("summary", {}, "The whole report"), JC.el("pre", {}, JSON.stringify(report, null, 2)))
      );
    });
  }

  /** A diff as lines, added and removed marked. */
  JC.renderDiff = function (diff) {
    const s = diff.summary || {};
    const rules = ["rules_added", "rules_removed", "rules_changed"].filter((k) => s[k] && s[k].length).map((k) => k.replace("rules_", "rules ") + ": " + s[k].join(", "));
    return JC.el(
      "div",
      { class: "diff" },
      JC.el("p", {}, "From ", JC.el("code", {}, diff.from.slice(0, 12)), " to ", JC.el("code", {}, diff.to.slice(0, 12)), ": " + (diff.files.length === 1 ? "1 file changes." : diff.files.length ? diff.files.length + " files change." : "no file changes.")),
      rules.length ? JC.el("ul", {}, rules.map((r) => JC.el("li", {}, r))) : null,
      diff.files.map((file) =>
        JC.el(
          "div",
          {},
          JC.el("h4", {}, file.change + " " + file.path),
          file.lines
            ? JC.el("pre", {}, file.lines.map((line) => JC.el("span", { class: line.startsWith("+") ? "diff-add" : line.startsWith("-") ? "diff-remove" : "" }, line + "\n")))
            : JC.el("p", {}, "(too large to show line by line)")
        )
      )
    );
  };

  async function showDiff() {
    const button = document.getElementById("show-diff");
    await JC.busy(button, "diff-result", "show the changes", async () => {
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
    if (Object.keys(files).length === 0) {
      JC.show("publish-result", JC.message("warning", "Nothing to publish: no file differs from the active revision."));
      return;
    }
    await JC.busy(button, "publish-result", "publish", async () => {
      try {
        const outcome = (await JC.api("POST", "/v1/rules/revisions", { files, base: "active", message })).data;
        const id = outcome.revision.revision;
        JC.show("publish-result", JC.message("ok", "Published revision " + id.slice(0, 12) + " (" + outcome.gates.summary + "); it is active now."));
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
        JC.show("editor-state", "No revision is published yet: there is nothing to edit.");
        return;
      }
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
