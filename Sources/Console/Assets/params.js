// The Parameters page: every parameter of the rules in a form — a widget by its type, its
// range, unit, default and description — checked as it changes, saved as a draft revision
// (PUT /v1/rules/params), previewed and published like an edit in the code editor.
"use strict";
(function () {
  const JC = window.JC;
  const state = { list: [], edits: {}, timer: null, sequence: 0 };
  JC.params = state;

  const fieldId = (name) => "param-" + name.replace(/[^A-Za-z0-9_-]/g, "_");

  /** The value as written ("30d", 25, true) of what a widget holds; undefined when empty. */
  function widgetValue(p, input) {
    if (p.type === "boolean") return input.checked;
    const raw = input.value.trim();
    if (raw === "") return undefined;
    if (p.type === "integer" || p.type === "number" || p.type === "percent") {
      const number = Number(raw);
      return Number.isFinite(number) ? number : raw;
    }
    return raw;
  }

  function shown(value) {
    if (value === null || value === undefined) return "–";
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  }

  function withUnit(p, value) {
    const unit = p.type === "percent" ? "%" : p.unit ? " " + p.unit : "";
    return shown(value) + (value === null || value === undefined ? "" : unit);
  }

  function widget(p) {
    const id = fieldId(p.name);
    const value = p.name in state.edits ? state.edits[p.name] : p.value;
    const attributes = { id, name: p.name, "data-param": p.name, "aria-describedby": id + "-help" };
    switch (p.type) {
      case "boolean": {
        const box = JC.el("input", { ...attributes, type: "checkbox" });
        box.checked = value === true;
        return box;
      }
      case "enum":
      case "block_id":
      case "branch_id": {
        const choices = p.choices || [];
        return JC.el("select", attributes, choices.map((c) => JC.el("option", { value: c, selected: c === value }, c)));
      }
      case "integer":
      case "number":
      case "percent":
        return JC.el("input", { ...attributes, type: "number", step: p.type === "integer" ? "1" : "any", min: p.type === "percent" ? (p.min !== undefined ? p.min : 0) : p.min, max: p.type === "percent" ? (p.max !== undefined ? p.max : 100) : p.max, value: shown(value) });
      case "time":
        return JC.el("input", { ...attributes, type: "time", value: shown(value) });
      case "date":
        return /^\d{4}-\d\d-\d\d$/.test(String(p.default)) ? JC.el("input", { ...attributes, type: "date", value: shown(value), min: p.min, max: p.max }) : JC.el("input", { ...attributes, type: "text", value: shown(value), placeholder: "2026-12-15T23:59:59+01:00" });
      case "duration":
        return JC.el("input", { ...attributes, type: "text", value: shown(value), placeholder: "30d, 12h, 1h30m", pattern: "^(\\d+(ms|s|m|h|d|w))+$", size: "10" });
      default:
        return JC.el("input", { ...attributes, type: "text", value: shown(value), size: "30" });
    }
  }

  function range(p) {
    if (p.min === undefined && p.max === undefined) return "";
    if (p.min !== undefined && p.max !== undefined) return "from " + withUnit(p, p.min) + " to " + withUnit(p, p.max);
    return p.min !== undefined ? "at least " + withUnit(p, p.min) : "at most " + withUnit(p, p.max);
  }

  function row(p) {
    const id = fieldId(p.name);
    const input = widget(p);
    input.addEventListener(p.type === "boolean" || input.tagName === "SELECT" ? "change" : "input", () => edited(p, input));
    const unit = p.type === "percent" ? "%" : p.unit || "";
    return JC.el(
      "div",
      { class: "param", id: id + "-row" },
      JC.el("label", { for: id }, p.param),
      JC.el("div", { class: "param-input" }, input, unit ? JC.el("span", { class: "unit" }, unit) : null, " ",
        JC.el("button", { type: "button", class: "secondary", title: "Back to the default", onclick: () => reset(p, input) }, "Use default")),
      JC.el("p", { class: "help", id: id + "-help" }, p.description, " ",
        JC.el("span", { class: "meta" }, "Default " + withUnit(p, p.default) + (range(p) ? "; " + range(p) : "") + "; now " + withUnit(p, p.value) + (p.is_default ? " (the default)" : " (set)") + ". "),
        p.declared_at ? JC.el("button", { type: "button", class: "link", onclick: () => JC.openFile(p.declared_at.file, p.declared_at.line) }, "Open in the code editor") : null),
      JC.el("p", { class: "field-problem", id: id + "-problem", "aria-live": "polite" })
    );
  }

  function reset(p, input) {
    if (p.is_default) delete state.edits[p.name];
    else state.edits[p.name] = null;
    if (p.type === "boolean") input.checked = p.default === true;
    else input.value = shown(p.default);
    changed();
  }

  function edited(p, input) {
    const value = widgetValue(p, input);
    if (value === undefined || JSON.stringify(value) === JSON.stringify(p.value)) delete state.edits[p.name];
    else state.edits[p.name] = value;
    changed();
  }

  function changed() {
    const count = Object.keys(state.edits).length;
    JC.show("params-state", count ? "Checking soon…" : "No changes yet.");
    JC.show("params-draft");
    clearTimeout(state.timer);
    if (count) state.timer = setTimeout(check, 400);
    else showProblems([]);
  }

  /** Marks each field a problem names (by its pointer /values/NAME) and lists the rest. */
  function showProblems(problems) {
    for (const element of document.querySelectorAll("#params-body .field-problem")) element.textContent = "";
    for (const element of document.querySelectorAll("#params-body [aria-invalid]")) element.removeAttribute("aria-invalid");
    const others = [];
    for (const problem of problems) {
      const name = problem.pointer && problem.pointer.startsWith("/values/") ? problem.pointer.slice(8).replace(/~1/g, "/").replace(/~0/g, "~") : null;
      const target = name && document.getElementById(fieldId(name) + "-problem");
      if (target) {
        target.textContent = problem.message;
        document.getElementById(fieldId(name)).setAttribute("aria-invalid", "true");
      } else others.push(problem);
    }
    JC.show("params-problems", others.map((p) => JC.el("li", {}, (p.where ? p.where + ": " : "") + p.message)));
  }

  async function check() {
    const sequence = ++state.sequence;
    try {
      const report = (await JC.api("POST", "/v1/rules/params/check", { values: state.edits })).data;
      if (sequence !== state.sequence) return;
      const problems = report.diagnostics.filter((d) => d.severity === "error").map((d) => ({ pointer: d.pointer, where: d.file ? d.file + ":" + d.line : "", message: d.message }));
      showProblems(problems);
      const count = Object.keys(state.edits).length;
      JC.show("params-state", problems.length ? problems.length + " problem" + (problems.length > 1 ? "s" : "") : "No problems (" + count + " changed value" + (count > 1 ? "s" : "") + ")");
    } catch (error) {
      if (sequence !== state.sequence) return;
      showProblems(JC.problems(error));
      JC.show("params-state", "Some values are refused");
    }
  }

  async function runTests(event) {
    JC.show("params-tests", JC.el("p", {}, "Running the tests…"));
    await JC.busy(event.target, "params-tests", "run the tests", async () => {
      const report = (await JC.api("POST", "/v1/rules/params/check", { values: state.edits, tests: true })).data;
      const failed = report.failed_tests || [];
      JC.show(
        "params-tests",
        failed.length === 0 && report.passed
          ? JC.message("ok", "All " + report.tests_run + " tests passed.")
          : JC.message("error", failed.length + " of " + report.tests_run + " tests failed.", report),
        failed.length ? JC.table(["Test", "Where", "Problem"], failed.map((t) => [t.test, t.location, t.message])) : null
      );
    });
  }

  function save(event) {
    return JC.saveDraft(event, {
      prefix: "params",
      path: "/v1/rules/params",
      edited: () => Object.keys(state.edits).length > 0,
      nothing: "Nothing to save: no value differs from the active revision.",
      body: () => ({ values: state.edits }),
      problems: showProblems,
      published: async (revision) => {
        state.edits = {};
        await JC.pages.params.load(revision);
        JC.show("params-state", "Published: these are the values served now.");
      },
    });
  }

  JC.pages.params = {
    async load(revision) {
      const data = await JC.served("/v1/rules/params", revision);
      state.list = data.parameters;
      const owners = [];
      for (const p of state.list) if (!owners.includes(p.owner)) owners.push(p.owner);
      JC.show(
        "params-body",
        state.list.length === 0
          ? JC.el("p", {}, "The rules declare no parameters.")
          : owners.map((owner) => {
              const group = state.list.filter((p) => p.owner === owner);
              const file = group[0].declared_at ? group[0].declared_at.file : "";
              return JC.el("fieldset", { class: "params-group" }, JC.el("legend", {}, owner + " ", JC.el("span", { class: "meta" }, file)), group.map(row));
            })
      );
      JC.show("params-state", Object.keys(state.edits).length ? "Unsaved changes." : "No changes yet.");
    },
  };

  document.getElementById("params-tests-run").addEventListener("click", runTests);
  document.getElementById("params-save").addEventListener("click", save);
})();
