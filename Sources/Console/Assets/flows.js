// The Onboarding page: a flow's steps in a form — reorder, add, remove, reword the tooltips
// per locale, pick what completes a new step from the events the app sends — with the version
// decision explicit and counted (GET/PUT /v1/onboarding/flows/{flow}, …/check), saved as a
// draft revision, previewed and published like any other change.
"use strict";
(function () {
  const JC = window.JC;
  const state = { data: null, flow: null, variant: null, steps: [], timer: null, sequence: 0, impact: null };
  JC.flows = state;

  const $ = (id) => document.getElementById(id);

  function trigger(step) {
    const t = step.completion_trigger || {};
    if (t.tap) return "taps " + t.tap;
    if (t.swipe) return "swipes " + t.swipe;
    if (t.visible) return "sees " + t.visible;
    if (t.timer !== undefined) return "waits " + t.timer + " s";
    if (t.event) return "sends " + t.event.type + (t.event.where && t.event.where.element_id ? " on " + JSON.stringify(t.event.where.element_id) : "");
    return "custom";
  }

  /** The step as the PUT body gives it: {id} (kept), with its changed texts, or a new step. */
  function bodyStep(step) {
    if (step.isNew) return step.body;
    const changed = {};
    for (const [code, text] of Object.entries(step.edits || {})) if (text !== step.tooltip.texts[code]) changed[code] = text;
    return Object.keys(changed).length ? { id: step.id, tooltip: changed } : { id: step.id };
  }

  function body() {
    const version = document.querySelector("input[name=flow-version]:checked");
    const request = { variant: state.variant.name, steps: state.steps.map(bodyStep) };
    if (version) request.version_change = version.value;
    return request;
  }

  const changedSteps = () => JSON.stringify(state.steps.map((s) => s.id)) !== JSON.stringify(state.variant.steps.map((s) => s.id));
  const changedTexts = () => state.steps.some((s) => !s.isNew && Object.keys(bodyStep(s)).length > 1);

  function move(index, by) {
    const to = index + by;
    if (to < 0 || to >= state.steps.length) return;
    const [step] = state.steps.splice(index, 1);
    state.steps.splice(to, 0, step);
    drawSteps();
    changed();
  }

  function remove(index) {
    state.steps.splice(index, 1);
    drawSteps();
    changed();
  }

  function stepCard(step, index) {
    const id = "flow-step-" + index;
    const locales = state.data.locales;
    const texts = step.isNew ? step.body.tooltip : step.tooltip.texts;
    return JC.el(
      "li",
      { class: "flow-step" + (step.isNew ? " new" : ""), id, "data-step": step.id },
      JC.el(
        "div",
        { class: "row" },
        JC.el("strong", {}, (index + 1) + ". " + step.id),
        JC.el("span", { class: "meta" }, step.isNew ? " new: " + step.says : " on " + step.target_element_id + ", done when the user " + trigger(step)),
        JC.el("button", { type: "button", class: "secondary", "aria-label": "Move " + step.id + " up", disabled: index === 0, onclick: () => move(index, -1) }, "Up"),
        JC.el("button", { type: "button", class: "secondary", "aria-label": "Move " + step.id + " down", disabled: index === state.steps.length - 1, onclick: () => move(index, 1) }, "Down"),
        JC.el("button", { type: "button", class: "secondary", id: id + "-remove", "aria-label": "Remove " + step.id, onclick: () => remove(index) }, "Remove")
      ),
      locales.map((code) => {
        const input = JC.el("input", { id: id + "-tooltip-" + code, type: "text", maxlength: "500", value: (step.edits && step.edits[code]) || texts[code] || "", disabled: step.isNew || !(step.tooltip && step.tooltip.key) });
        input.addEventListener("input", () => {
          step.edits = step.edits || {};
          step.edits[code] = input.value;
          changed();
        });
        return JC.el("div", { class: "field" }, JC.el("label", { for: input.id }, "Tooltip (" + code + ")"), input);
      }),
      JC.el("p", { class: "field-problem", id: id + "-problem", "aria-live": "polite" })
    );
  }

  function drawSteps() {
    JC.show("flow-steps", state.steps.map(stepCard));
  }

  /** The form of a new step: the event it waits for comes from the events the app sends. */
  function drawNewStep() {
    const events = state.data.events;
    const select = $("flow-new-event");
    JC.show(select, events.map((e) => JC.el("option", { value: e.type }, e.says + (e.type === "timer" ? "" : " (" + e.type + ")"))));
    JC.show("flow-new-tooltips", state.data.locales.map((code) => JC.el("div", { class: "field" }, JC.el("label", { for: "flow-new-tooltip-" + code }, "Tooltip (" + code + ")"), JC.el("input", { id: "flow-new-tooltip-" + code, type: "text", maxlength: "500" }))));
    eventChosen();
  }

  function eventChosen() {
    const event = state.data.events.find((e) => e.type === $("flow-new-event").value);
    const label = event.field === "seconds" ? "Seconds" : event.field === "direction" ? "Direction" : "Element id";
    const input = event.choices
      ? JC.el("select", { id: "flow-new-value" }, event.choices.map((c) => JC.el("option", { value: c }, c)))
      : JC.el("input", { id: "flow-new-value", type: event.field === "seconds" ? "number" : "text", min: "1", max: "3600" });
    JC.show("flow-new-value-field", JC.el("label", { for: "flow-new-value" }, label), input);
  }

  function addStep() {
    const event = state.data.events.find((e) => e.type === $("flow-new-event").value);
    const value = $("flow-new-value").value.trim();
    const tooltip = {};
    for (const code of state.data.locales) tooltip[code] = $("flow-new-tooltip-" + code).value.trim();
    const body = {
      id: $("flow-new-id").value.trim(),
      target_element_id: $("flow-new-target").value.trim(),
      highlight: $("flow-new-highlight").value,
      position: $("flow-new-position").value,
      can_skip: $("flow-new-skip").checked,
      tooltip,
      trigger: event.type === "timer" ? { timer: Number(value) } : { event: event.type, [event.field]: value },
    };
    state.steps.push({ id: body.id, isNew: true, body, says: "done when the user " + event.says + (value ? " (" + value + ")" : "") });
    for (const id of ["flow-new-id", "flow-new-target", "flow-new-value"]) $(id).value = "";
    for (const code of state.data.locales) $("flow-new-tooltip-" + code).value = "";
    drawSteps();
    changed();
  }

  function changed() {
    JC.show("flow-draft");
    const steps = changedSteps();
    $("flow-version").hidden = !steps;
    JC.show("flow-state", steps || changedTexts() ? "Checking soon…" : "No changes yet.");
    clearTimeout(state.timer);
    if (steps || changedTexts()) state.timer = setTimeout(check, 400);
    else showProblems([]);
  }

  /** Marks each step a problem names (/steps/N/…) and lists the rest. */
  function showProblems(problems) {
    for (const element of document.querySelectorAll("#flow-steps .field-problem")) element.textContent = "";
    const others = [];
    for (const problem of problems) {
      const match = /^\/steps\/(\d+)/.exec(problem.pointer || "");
      const target = match && $("flow-step-" + match[1] + "-problem");
      if (target) target.textContent += (target.textContent ? " " : "") + problem.message;
      else others.push(problem);
    }
    JC.show("flow-problems", others.map((p) => JC.el("li", {}, (p.where ? p.where + ": " : "") + p.message)));
  }

  function showImpact(impact) {
    state.impact = impact;
    $("flow-version-minor-label").textContent = "Finished users see only the new steps (version " + impact.minor.version + ")";
    $("flow-version-major-label").textContent = "Everyone starts again (version " + impact.major.version + ")";
    JC.show("flow-impact-minor", impact.minor.says);
    JC.show("flow-impact-major", impact.major.says);
  }

  async function check() {
    const sequence = ++state.sequence;
    try {
      const report = (await JC.api("POST", "/v1/onboarding/flows/" + state.flow.id + "/check", body())).data;
      if (sequence !== state.sequence) return;
      showProblems([]);
      showImpact(report.impact);
      JC.show("flow-state", report.steps_change ? "No problems: choose what users who started it see, then save." : "No problems (texts only: the version stays " + report.version + ").");
    } catch (error) {
      if (sequence !== state.sequence) return;
      showProblems(JC.problems(error));
      JC.show("flow-state", "Some fields are refused");
    }
  }

  async function save(event) {
    if (!changedSteps() && !changedTexts()) {
      JC.show("flow-draft", JC.message("warning", "Nothing to save: the steps and their texts are as published."));
      return;
    }
    await JC.busy(event.target, "flow-draft", "save the draft", async () => {
      try {
        const answer = (await JC.api("PUT", "/v1/onboarding/flows/" + state.flow.id, body())).data;
        const impact = answer.impact;
        const counts = answer.version_change === "none" ? null : JC.table(
          ["Users who started " + answer.flow, "Count"],
          answer.version_change === "minor"
            ? [["finished, will see only the new steps", { text: String(impact.minor.see_new_steps), class: "number" }], ["finished, nothing new", { text: String(impact.minor.see_nothing_new), class: "number" }], ["in the middle, carry on", { text: String(impact.minor.carry_on), class: "number" }], ["in other variants, no change", { text: String(impact.minor.unaffected), class: "number" }]]
            : [["start again from the first step", { text: String(impact.major.start_again), class: "number" }]]
        );
        JC.draftPanel("flow-draft", answer, {
          prefix: "flow",
          message: answer.revision.message,
          published: async (revision) => {
            await JC.pages.onboarding.load(revision);
            JC.show("flow-state", "Published: version " + answer.version + " is served now.");
          },
        });
        if (counts) $("flow-draft").insertBefore(JC.el("div", { id: "flow-counts" }, counts), $("flow-draft").children[2] || null);
      } catch (error) {
        showProblems(JC.problems(error));
        JC.show("flow-draft", JC.refusal("save the draft", error));
      }
    });
  }

  function chooseFlow() {
    state.flow = state.data.flows.find((f) => f.id === $("flow-select").value) || state.data.flows[0];
    JC.show("flow-variant", state.flow.variants.map((v) => JC.el("option", { value: v.name }, v.name + " (" + v.started_users + " started, " + v.finished_users + " finished)")));
    chooseVariant();
  }

  function chooseVariant() {
    state.variant = state.flow.variants.find((v) => v.name === $("flow-variant").value) || state.flow.variants[0];
    state.steps = state.variant.steps.map((s) => ({ ...s, edits: null }));
    for (const radio of document.querySelectorAll("input[name=flow-version]")) radio.checked = false;
    JC.show("flow-about", "Version " + state.flow.version + (state.flow.experiment ? "; variants chosen by the experiment " + state.flow.experiment : "") + (state.flow.starts_on ? "; starts on " + state.flow.starts_on.join(", ") : "") + (state.flow.after ? "; after " + state.flow.after : "") + ". " + state.flow.started_users + " users started it.");
    drawSteps();
    changed();
  }

  JC.pages.onboarding = {
    async load(revision) {
      state.data = await JC.served("/v1/onboarding/flows", revision);
      const chosen = state.flow && state.flow.id;
      JC.show("flow-select", state.data.flows.map((f) => JC.el("option", { value: f.id, selected: f.id === chosen }, (f.title || f.id) + " (" + f.id + ")")));
      drawNewStep();
      chooseFlow();
    },
  };

  $("flow-select").addEventListener("change", chooseFlow);
  $("flow-variant").addEventListener("change", chooseVariant);
  $("flow-new-event").addEventListener("change", eventChosen);
  $("flow-new-add").addEventListener("click", addStep);
  $("flow-save").addEventListener("click", save);
  for (const radio of document.querySelectorAll("input[name=flow-version]")) radio.addEventListener("change", () => JC.show("flow-draft"));
})();
