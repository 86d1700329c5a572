// The Experiments page's forms: create an experiment, change its weights, coverage (a ramp),
// dates and state, reassign everyone, and conclude it by shipping a winner — each a draft
// revision (PUT /v1/experiments/{key}, POST …/conclude) with what it does to users said in
// plain words before it is published.
"use strict";
(function () {
  const JC = window.JC;

  const pct = (fraction) => Math.round(fraction * 1000) / 10;
  const localInput = (iso) => (iso ? new Date(iso).toISOString().slice(0, 16) : "");
  const fromLocal = (value) => (value ? new Date(value + "Z").toISOString().replace(".000Z", "Z") : null);

  function field(id, label, input, help) {
    return JC.el("div", { class: "field" }, JC.el("label", { for: id }, label), input, help ? JC.el("p", { class: "help" }, help) : null, JC.el("p", { class: "field-problem", id: id + "-problem" }));
  }

  /** Marks the fields the API refused (pointer /coverage → #exp-coverage-problem). */
  function markProblems(error) {
    for (const element of document.querySelectorAll("#experiment-edit .field-problem")) element.textContent = "";
    for (const problem of JC.problems(error)) {
      const name = (problem.pointer || "").split("/")[1];
      const target = name && document.getElementById("exp-" + name.replace(/_/g, "-") + "-problem");
      if (target) target.textContent = problem.message;
    }
  }

  async function send(button, method, path, body, doing) {
    JC.show("experiment-draft");
    await JC.busy(button, "experiment-draft", doing, async () => {
      try {
        const answer = (await JC.api(method, path, body)).data;
        markProblems(null);
        JC.draftPanel("experiment-draft", answer, {
          prefix: "exp",
          published: async (revision) => {
            await JC.pages.experiments.load(revision);
          },
        });
      } catch (error) {
        markProblems(error);
        JC.show("experiment-draft", JC.refusal(doing, error));
      }
    });
  }

  /** The form that changes `experiment` (an item of GET /v1/experiments). */
  JC.experimentForm = function (experiment) {
    const key = experiment.key;
    const coverage = JC.el("input", { id: "exp-coverage", type: "number", min: "0", max: "100", step: "any", value: String(pct(experiment.coverage)) });
    const ramp = (value) => JC.el("button", { type: "button", class: "secondary", "data-ramp": String(value), onclick: () => (coverage.value = String(value)) }, value + "%");
    const reassign = JC.el("input", { id: "exp-reassign", type: "checkbox" });
    const weights = experiment.variations.map((v, i) => JC.el("input", { id: "exp-weight-" + i, type: "number", min: "0", max: "100", step: "any", value: String(pct(v.weight)), "aria-label": "Weight of " + v.name + " (%)" }));
    const active = JC.el("select", { id: "exp-active" }, JC.el("option", { value: "true", selected: experiment.active }, "Running (when within its dates)"), JC.el("option", { value: "false", selected: !experiment.active }, "Stopped"));
    const startsAt = JC.el("input", { id: "exp-starts-at", type: "datetime-local", value: localInput(experiment.starts_at) });
    const endsAt = JC.el("input", { id: "exp-ends-at", type: "datetime-local", value: localInput(experiment.ends_at) });
    const winner = JC.el("select", { id: "exp-winner" }, experiment.variations.map((v) => JC.el("option", { value: v.name }, v.name)));

    const save = (event) => {
      const body = {};
      const newCoverage = Number(coverage.value) / 100;
      if (Math.abs(newCoverage - experiment.coverage) > 1e-9) body.coverage = newCoverage;
      const newWeights = weights.map((w) => Number(w.value) / 100);
      if (newWeights.some((w, i) => Math.abs(w - experiment.variations[i].weight) > 1e-9)) body.weights = newWeights;
      if ((active.value === "true") !== experiment.active) body.active = active.value === "true";
      const starts = fromLocal(startsAt.value);
      const ends = fromLocal(endsAt.value);
      if (localInput(experiment.starts_at) !== startsAt.value) body.starts_at = starts;
      if (localInput(experiment.ends_at) !== endsAt.value) body.ends_at = ends;
      if (reassign.checked) body.reassign = true;
      if (Object.keys(body).length === 0) {
        JC.show("experiment-draft", JC.message("warning", "Nothing to save: change a value first."));
        return;
      }
      send(event.target, "PUT", "/v1/experiments/" + encodeURIComponent(key), body, "save the change of " + key);
    };
    const conclude = (event) => send(event.target, "POST", "/v1/experiments/" + encodeURIComponent(key) + "/conclude", { winner: winner.value }, "conclude " + key);

    JC.show(
      "experiment-edit",
      JC.el("h3", { id: "experiment-edit-title", tabindex: "-1" }, "Change " + key),
      JC.el("p", {}, "Status: " + experiment.status + "; bucket version " + experiment.bucket_version + ". A change becomes a draft: you read what it does to users, preview it and publish it."),
      JC.el(
        "fieldset",
        {},
        JC.el("legend", {}, "Who takes part"),
        field("exp-coverage", "Coverage (% of users)", JC.el("span", {}, coverage, " ", ramp(10), ramp(50), ramp(100)), "Ramp up in steps: users already in keep their variation."),
        field("exp-reassign", "Reassign everyone", reassign, "Raises the bucket version from " + experiment.bucket_version + " to " + (experiment.bucket_version + 1) + ": every user is assigned again, and some switch variation."),
        field("exp-weights", "Weights (%)", JC.el("span", {}, experiment.variations.map((v, i) => JC.el("span", { class: "weight" }, v.name + " ", weights[i], " ")))),
      ),
      JC.el("fieldset", {}, JC.el("legend", {}, "When"), field("exp-active", "State", active), field("exp-starts-at", "Starts (UTC)", startsAt, "Empty: as soon as it runs."), field("exp-ends-at", "Ends (UTC)", endsAt, "Empty: until it is stopped.")),
      JC.el("div", { class: "row" }, JC.el("button", { type: "button", id: "exp-save", onclick: save }, "Save as a draft")),
      JC.el("fieldset", {}, JC.el("legend", {}, "Conclude"), field("exp-winner", "Winner", winner, "Everyone gets the winner from then on, and the experiment stops."), JC.el("button", { type: "button", id: "exp-conclude", onclick: conclude }, "Conclude: ship the winner"))
    );
    JC.show("experiment-draft");
    document.getElementById("experiment-edit-title").focus();
  };

  /** The form that creates an experiment. */
  JC.newExperimentForm = function () {
    const key = JC.el("input", { id: "exp-key", type: "text", required: true, pattern: "[A-Za-z0-9_.-]+", placeholder: "reminder-timing" });
    const description = JC.el("input", { id: "exp-description", type: "text", maxlength: "500", size: "60" });
    const variations = JC.el("input", { id: "exp-variation-names", type: "text", placeholder: "control, evening", size: "40" });
    const coverage = JC.el("input", { id: "exp-coverage", type: "number", min: "0", max: "100", step: "any", value: "10" });
    const create = (event) => {
      const body = { description: description.value.trim() || undefined, variation_names: variations.value.split(",").map((v) => v.trim()).filter((v) => v), coverage: Number(coverage.value) / 100 };
      send(event.target, "PUT", "/v1/experiments/" + encodeURIComponent(key.value.trim()), body, "create the experiment");
    };
    JC.show(
      "experiment-edit",
      JC.el("h3", { id: "experiment-edit-title", tabindex: "-1" }, "New experiment"),
      JC.el("p", {}, "It is created stopped, with equal weights: start it when a rule or a flow uses it."),
      field("exp-key", "Key", key),
      field("exp-description", "Description", description),
      field("exp-variation-names", "Variations (the control first, separated by commas)", variations),
      field("exp-coverage", "Coverage (% of users)", coverage),
      JC.el("button", { type: "button", id: "exp-create", onclick: create }, "Create as a draft")
    );
    JC.show("experiment-draft");
  };
})();
