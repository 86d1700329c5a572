// The Onboarding page: a flow's steps in a form — reorder, add, remove, reword the tooltips
// per locale, pick what completes a new step from the events the app sends — with the version
// decision explicit and counted (GET/PUT /v1/onboarding/flows/{flow_id}, …/check), saved as a
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

  /** A step's trigger as the event picker shows it: {type, value}. */
  function triggerChoice(step) {
    const t = step.completion_trigger || {};
    if (t.tap) return { type: "ui_tap", value: t.tap };
    if (t.swipe) return { type: "ui_swipe", value: t.swipe };
    if (t.visible) return { type: "ui_element_visible", value: t.visible };
    if (t.timer !== undefined) return { type: "timer", value: String(t.timer) };
    if (t.event) return { type: t.event.type, value: (t.event.where && t.event.where.element_id) || "" };
    return { type: "", value: "" };
  }

  /** The trigger of the PUT body for an event of the picker and its value. */
  function triggerBody(type, value) {
    const event = state.data.events.find((e) => e.type === type);
    if (!event) return null;
    if (type === "timer") return { timer: Number(value) };
    return event.field ? { event: type, [event.field]: value } : { event: type };
  }

  /** The step as the PUT body gives it: {id} (kept) with its changed texts and fields, or a new step. */
  function bodyStep(step) {
    if (step.isNew) return step.body;
    const out = { id: step.id };
    const changed = {};
    for (const [code, text] of Object.entries(step.edits || {})) if (text !== step.tooltip.texts[code]) changed[code] = text;
    if (Object.keys(changed).length) out.tooltip = changed;
    const f = step.fields || {};
    if (f.target !== undefined && f.target !== step.target_element_id) out.target_element_id = f.target;
    if (f.highlight !== undefined && f.highlight !== step.highlight.shape) out.highlight_shape = f.highlight;
    const was = triggerChoice(step);
    if (f.type !== undefined && (f.type !== was.type || f.value !== was.value)) out.trigger = triggerBody(f.type, f.value);
    return out;
  }

  const startsOn = () => $("flow-starts-on").value.split(",").map((e) => e.trim()).filter((e) => e);
  const changedFlow = () => JSON.stringify(startsOn()) !== JSON.stringify(state.flow.starts_on || []);

  function body() {
    const version = document.querySelector("input[name=flow-version]:checked");
    const request = { variant: state.variant.name, steps: state.steps.map(bodyStep) };
    if (changedFlow()) request.starts_on = startsOn();
    if (version) request.version_change = version.value;
    return request;
  }

  const changedSteps = () => JSON.stringify(state.steps.map((s) => s.id)) !== JSON.stringify(state.variant.steps.map((s) => s.id));
  const changedTexts = () => state.steps.some((s) => !s.isNew && Object.keys(bodyStep(s)).length > 1);

  /** The picker of what completes a step: the events the app sends (described), and its value. */
  function eventPicker(prefix, chosen, onChange) {
    const select = JC.el("select", { id: prefix + "-event" }, state.data.events.map((e) => JC.el("option", { value: e.type, selected: e.type === chosen.type, title: e.description || "" }, e.says + (e.type === "timer" ? "" : " (" + e.type + ")"))));
    const field = JC.el("div", { class: "field", id: prefix + "-value-field" });
    const about = JC.el("p", { class: "help", id: prefix + "-event-about" });
    const draw = (value) => {
      const event = state.data.events.find((e) => e.type === select.value);
      if (!event) return;
      about.textContent = event.description || "";
      if (!event.field) {
        JC.show(field);
        return;
      }
      const label = event.field === "seconds" ? "Seconds" : event.field === "direction" ? "Direction" : "Element id";
      const input = event.choices
        ? JC.el("select", { id: prefix + "-value" }, event.choices.map((c) => JC.el("option", { value: c, selected: c === value }, c)))
        : JC.el("input", { id: prefix + "-value", type: event.field === "seconds" ? "number" : "text", min: "1", max: "3600", value: value || "" });
      input.addEventListener(input.tagName === "SELECT" ? "change" : "input", () => onChange(select.value, input.value));
      JC.show(field, JC.el("label", { for: input.id }, label), input);
      if (event.choices && !value) onChange(select.value, input.value);
    };
    select.addEventListener("change", () => {
      draw("");
      const input = document.getElementById(prefix + "-value");
      onChange(select.value, input ? input.value : "");
    });
    draw(chosen.value);
    return [JC.el("div", { class: "field" }, JC.el("label", { for: select.id }, "Done when the user"), select), about, field];
  }

  /** A kept step's element, highlight and trigger, editable in place. */
  function stepFields(step, id) {
    const f = (step.fields = step.fields || {});
    const target = JC.el("input", { id: id + "-target", type: "text", maxlength: "200", value: f.target !== undefined ? f.target : step.target_element_id });
    target.addEventListener("input", () => {
      f.target = target.value.trim();
      changed();
    });
    const shape = f.highlight || step.highlight.shape;
    const highlight = JC.el("select", { id: id + "-highlight" }, ["rectangle", "circle"].map((s) => JC.el("option", { value: s, selected: s === shape }, s)));
    highlight.addEventListener("change", () => {
      f.highlight = highlight.value;
      changed();
    });
    const chosen = f.type !== undefined ? { type: f.type, value: f.value } : triggerChoice(step);
    return JC.el(
      "details",
      { id: id + "-fields", open: f.target !== undefined || f.highlight !== undefined || f.type !== undefined },
      JC.el("summary", {}, "Element, trigger, highlight"),
      JC.el("div", { class: "field" }, JC.el("label", { for: target.id }, "Element it highlights"), target),
      JC.el("div", { class: "field" }, JC.el("label", { for: highlight.id }, "Highlight"), highlight),
      eventPicker(id, chosen, (type, value) => {
        f.type = type;
        f.value = value;
        changed();
      })
    );
  }

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
        const shared = (step.tooltip && step.tooltip.shared_with) || [];
        const note = shared.length ? JC.el("p", { class: "help shared", id: id + "-shared-" + code }, "Also shown in variant " + shared.join(", ") + ": rewording it changes it there too.") : null;
        return JC.el("div", { class: "field" }, JC.el("label", { for: input.id }, "Tooltip (" + code + ")"), input, note);
      }),
      step.isNew || step.completion_trigger.expr ? null : stepFields(step, id),
      JC.el("p", { class: "field-problem", id: id + "-problem", "aria-live": "polite" })
    );
  }

  function drawSteps() {
    JC.show("flow-steps", state.steps.map(stepCard));
  }

  /** The form of a new step: the event it waits for comes from the catalogue of app events. */
  function drawNewStep() {
    state.newTrigger = { type: state.data.events[0].type, value: "" };
    JC.show("flow-new-trigger", eventPicker("flow-new", state.newTrigger, (type, value) => (state.newTrigger = { type, value })));
    JC.show("flow-new-tooltips", state.data.locales.map((code) => JC.el("div", { class: "field" }, JC.el("label", { for: "flow-new-tooltip-" + code }, "Tooltip (" + code + ")"), JC.el("input", { id: "flow-new-tooltip-" + code, type: "text", maxlength: "500" }))));
  }

  function addStep() {
    const event = state.data.events.find((e) => e.type === $("flow-new-event").value);
    const value = $("flow-new-value") ? $("flow-new-value").value.trim() : "";
    const tooltip = {};
    for (const code of state.data.locales) tooltip[code] = $("flow-new-tooltip-" + code).value.trim();
    const body = {
      id: $("flow-new-id").value.trim(),
      target_element_id: $("flow-new-target").value.trim(),
      highlight_shape: $("flow-new-highlight").value,
      placement: $("flow-new-position").value,
      can_skip: $("flow-new-skip").checked,
      tooltip,
      trigger: triggerBody(event.type, value),
    };
    state.steps.push({ id: body.id, isNew: true, body, says: "done when the user " + event.says + (value ? " (" + value + ")" : "") });
    for (const id of ["flow-new-id", "flow-new-target", "flow-new-value"]) if ($(id)) $(id).value = "";
    for (const code of state.data.locales) $("flow-new-tooltip-" + code).value = "";
    drawSteps();
    changed();
  }

  function changed() {
    JC.show("flow-draft");
    const steps = changedSteps();
    const any = steps || changedTexts() || changedFlow();
    $("flow-version").hidden = !steps;
    JC.show("flow-state", any ? "Checking soon…" : "No changes yet.");
    clearTimeout(state.timer);
    if (any) state.timer = setTimeout(check, 400);
    else {
      showProblems([]);
      JC.show("flow-kept");
    }
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
    $("flow-version-minor-label").textContent = "Finished users see only the new steps (version " + impact.minor_impact.version + ")";
    $("flow-version-major-label").textContent = "Everyone starts again (version " + impact.major_impact.version + ")";
    JC.show("flow-impact-minor", impact.minor_impact.says);
    JC.show("flow-impact-major", impact.major_impact.says);
    JC.show("flow-kept", impact.kept_impact && impact.kept_impact.says ? impact.kept_impact.says : "");
  }

  async function check() {
    const sequence = ++state.sequence;
    try {
      const report = (await JC.api("POST", "/v1/onboarding/flows/" + state.flow.id + "/check", body())).data;
      if (sequence !== state.sequence) return;
      showProblems([]);
      showImpact(report.impact);
      if (report.shared_texts.length) $("flow-kept").append(JC.el("span", { class: "shared" }, " " + report.shared_texts.join(" ")));
      JC.show("flow-state", report.steps_change ? "No problems: choose what users who started it see, then save." : "No problems (texts only: the version stays " + report.version + ").");
    } catch (error) {
      if (sequence !== state.sequence) return;
      showProblems(JC.problems(error));
      JC.show("flow-state", "Some fields are refused");
    }
  }

  /** The counts of the version choice a saved draft made, above its buttons. */
  function showCounts(answer) {
    if (answer.version_change === "none") return;
    const impact = answer.impact;
    const number = (n) => ({ text: String(n), class: "number" });
    const rows =
      answer.version_change === "minor"
        ? [["finished, will see only the new steps", number(impact.minor_impact.see_new_steps)], ["finished, nothing new", number(impact.minor_impact.see_nothing_new)], ["in the middle, carry on", number(impact.minor_impact.carry_on)], ["in other variants, no change", number(impact.minor_impact.unaffected)]]
        : [["start again from the first step", number(impact.major_impact.start_again)]];
    const counts = JC.table(["Users who started " + answer.flow_id, "Count"], rows);
    $("flow-draft").insertBefore(JC.el("div", { id: "flow-counts" }, counts), $("flow-draft").children[2] || null);
  }

  function save(event) {
    return JC.saveDraft(event, {
      prefix: "flow",
      path: "/v1/onboarding/flows/" + state.flow.id,
      edited: () => changedSteps() || changedTexts() || changedFlow(),
      nothing: "Nothing to save: the steps and their texts are as published.",
      body,
      problems: showProblems,
      shown: showCounts,
      published: async (revision, answer) => {
        await JC.pages.onboarding.load(revision);
        JC.show("flow-state", "Published: version " + answer.version + " is served now.");
      },
    });
  }

  function chooseFlow() {
    state.flow = state.data.flows.find((f) => f.id === $("flow-select").value) || state.data.flows[0];
    JC.show("flow-variant", state.flow.variants.map((v) => JC.el("option", { value: v.name }, v.name + " (" + v.started_users + " started, " + v.finished_users + " finished)")));
    chooseVariant();
  }

  function chooseVariant() {
    state.variant = state.flow.variants.find((v) => v.name === $("flow-variant").value) || state.flow.variants[0];
    state.steps = state.variant.steps.map((s) => ({ ...s, edits: null, fields: null }));
    $("flow-starts-on").value = (state.flow.starts_on || []).join(", ");
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
  $("flow-new-add").addEventListener("click", addStep);
  $("flow-save").addEventListener("click", save);
  $("flow-starts-on").addEventListener("input", changed);
  for (const radio of document.querySelectorAll("input[name=flow-version]")) radio.addEventListener("change", () => JC.show("flow-draft"));
})();
