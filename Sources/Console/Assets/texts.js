// The Texts page: every text key with each locale's text (GET /v1/texts); a key edited per
// locale with the checks `journey check` runs (POST /v1/texts/check), its rendering for sample
// arguments with the plural forms chosen (POST /v1/texts/render), saved as a draft revision
// (PUT /v1/texts), previewed and published like any other change.
"use strict";
(function () {
  const JC = window.JC;
  const state = { data: null, key: null, edits: {}, timer: null, sequence: 0 };
  JC.texts = state;

  const $ = (id) => document.getElementById(id);
  const entry = (key) => state.data.keys.find((k) => k.key === key);
  const textOf = (key, code) => (state.edits[key] && state.edits[key][code] !== undefined ? state.edits[key][code] : entry(key).texts[code]);

  function drawList() {
    const filter = $("texts-filter").value.trim().toLowerCase();
    const keys = state.data.keys.filter((k) => !filter || k.key.includes(filter) || Object.values(k.texts).some((t) => t && t.toLowerCase().includes(filter)));
    JC.show(
      "texts-body",
      JC.el("p", { class: "meta" }, keys.length + " of " + state.data.keys.length + " keys; locales " + state.data.locales.join(", ") + " (default " + state.data.default_locale + ")."),
      JC.el(
        "div",
        { class: "scroll" },
        JC.table(
          ["Key"].concat(state.data.locales),
          keys.map((k) => [
            { node: JC.el("button", { type: "button", class: "link", "data-key": k.key, onclick: () => edit(k.key) }, k.key + (state.edits[k.key] ? " (edited)" : "")) },
            ...state.data.locales.map((code) => (textOf(k.key, code) === null || textOf(k.key, code) === undefined ? { text: "(missing)", class: "bad" } : textOf(k.key, code))),
          ])
        )
      )
    );
  }

  function edit(key) {
    state.key = key;
    const k = entry(key);
    const limits = Object.entries(k.limits).map(([code, n]) => code + ": " + n).join(", ");
    JC.show(
      "text-edit",
      JC.el("h3", {}, key),
      JC.el("p", { class: "help" }, (limits ? "Room on screen: " + limits + " characters (each placeholder counts 4). " : "") + (k.arguments.length ? "Placeholders: " + k.arguments.map((a) => "{" + a + "}").join(", ") + ". " : "") + "Plural: {count, plural, one {# день} few {# дня} many {# дней} other {# дня}}; # is the number."),
      state.data.locales.map((code) => {
        const area = JC.el("textarea", { id: "text-" + code, rows: "2", maxlength: "2000", "aria-describedby": "text-" + code + "-problem" });
        area.value = textOf(key, code) || "";
        area.addEventListener("input", () => {
          state.edits[key] = state.edits[key] || {};
          state.edits[key][code] = area.value;
          if (area.value === k.texts[code]) delete state.edits[key][code];
          if (Object.keys(state.edits[key]).length === 0) delete state.edits[key];
          changed();
        });
        return JC.el("div", { class: "field" }, JC.el("label", { for: area.id }, code), area, JC.el("p", { class: "field-problem", id: "text-" + code + "-problem", "aria-live": "polite" }));
      }),
      k.arguments.length
        ? JC.el("fieldset", {}, JC.el("legend", {}, "Sample arguments for the preview"), k.arguments.map((name) => {
            const input = JC.el("input", { id: "text-arg-" + name, type: "text", value: k.plural_arguments.includes(name) ? "5" : "Рекс", size: "12" });
            input.addEventListener("input", () => preview());
            return JC.el("div", { class: "field" }, JC.el("label", { for: input.id }, name), input);
          }))
        : null,
      JC.el("div", { id: "text-preview", "aria-live": "polite" })
    );
    preview();
  }

  async function preview() {
    const key = state.key;
    const k = entry(key);
    const args = {};
    for (const name of k.arguments) {
      const input = $("text-arg-" + name);
      if (input && input.value.trim() !== "") args[name] = input.value.trim();
    }
    const texts = {};
    for (const code of state.data.locales) if (textOf(key, code)) texts[code] = textOf(key, code);
    try {
      const answer = (await JC.api("POST", "/v1/texts/render", { key, texts, args })).data;
      if (key !== state.key) return;
      const samples = Object.entries(answer.plural_samples || {});
      const problems = Object.entries(answer.problems || {});
      JC.show(
        "text-preview",
        JC.el("h4", {}, "What a user reads"),
        JC.table(["Locale", "Text"], Object.entries(answer.rendered).map(([code, text]) => [code, text]).concat(problems.map(([code, problem]) => [code, { text: "Cannot be read yet: " + problem, class: "bad" }]))),
        samples.length ? JC.table(["Locale", "Count", "Form", "Text"], samples.flatMap(([code, list]) => list.map((s) => [code, { text: String(s.count), class: "number" }, s.plural_category, s.text])), "Each plural form, by count") : null
      );
    } catch (error) {
      if (key !== state.key) return;
      JC.show("text-preview", JC.refusal("render the text", error));
    }
  }

  function changed() {
    const count = Object.values(state.edits).reduce((n, byLocale) => n + Object.keys(byLocale).length, 0);
    JC.show("texts-state", count ? "Checking soon…" : "No changes yet.");
    JC.show("texts-draft");
    clearTimeout(state.timer);
    state.timer = setTimeout(() => {
      preview();
      if (count) check();
      else showProblems([]);
    }, 400);
  }

  /** Puts each problem under its text (pointer /texts/KEY/LOCALE of the key shown); lists the rest. */
  function showProblems(problems) {
    for (const element of document.querySelectorAll("#text-edit .field-problem")) element.textContent = "";
    const others = [];
    for (const problem of problems) {
      const parts = (problem.pointer || "").split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
      const target = parts[1] === "texts" && parts[2] === state.key && $("text-" + parts[3] + "-problem");
      if (target) target.textContent += (target.textContent ? " " : "") + problem.message;
      else others.push(problem);
    }
    JC.show("texts-problems", others.map((p) => JC.el("li", {}, (p.where ? p.where + ": " : "") + p.message)));
  }

  async function check() {
    const sequence = ++state.sequence;
    try {
      const report = (await JC.api("POST", "/v1/texts/check", { texts: state.edits })).data;
      if (sequence !== state.sequence) return;
      const problems = report.diagnostics.filter((d) => d.severity === "error").map((d) => ({ pointer: d.pointer, where: d.file ? d.file + ":" + d.line : "", message: d.message }));
      showProblems(problems);
      const warnings = report.diagnostics.filter((d) => d.severity !== "error").length;
      JC.show("texts-state", problems.length ? problems.length + " problem" + (problems.length > 1 ? "s" : "") : "No problems" + (warnings ? " (" + warnings + " warnings)" : "") + ".");
    } catch (error) {
      if (sequence !== state.sequence) return;
      showProblems(JC.problems(error));
      JC.show("texts-state", "Some texts are refused");
    }
  }

  function save(event) {
    return JC.saveDraft(event, {
      prefix: "texts",
      path: "/v1/texts",
      edited: () => Object.keys(state.edits).length > 0,
      nothing: "Nothing to save: no text differs from the published one.",
      body: () => ({ texts: state.edits }),
      problems: showProblems,
      published: async (revision) => {
        state.edits = {};
        await JC.pages.texts.load(revision);
        JC.show("texts-state", "Published: these are the texts served now.");
      },
    });
  }

  JC.pages.texts = {
    async load(revision) {
      state.data = await JC.served("/v1/texts", revision);
      drawList();
      if (state.key && entry(state.key)) edit(state.key);
      else JC.show("text-edit", JC.el("p", { class: "help" }, "Choose a key to edit its texts."));
      JC.show("texts-state", Object.keys(state.edits).length ? "Unsaved changes." : "No changes yet.");
    },
  };

  $("texts-filter").addEventListener("input", () => drawList());
  $("texts-save").addEventListener("click", save);
})();
