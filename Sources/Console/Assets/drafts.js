// A draft revision made by a form (parameters, an experiment, an onboarding flow): what it
// does, its changes, its impact preview and publishing it — the steps the code editor has.
"use strict";
(function () {
  const JC = window.JC;

  /** The problems of a refused request, by field: [{where, message}]. */
  JC.problems = function (error) {
    if (!(error instanceof JC.APIError) || !Array.isArray(error.body.errors)) return [];
    return error.body.errors.map((e) => ({
      pointer: e.pointer || e.path || null,
      where: e.pointer || e.field || (e.file ? e.file + ":" + e.line + ":" + e.column : e.location || ""),
      message: e.message,
    }));
  };

  /** A refused request as a message and its problems listed. */
  JC.refusal = function (doing, error) {
    const problems = JC.problems(error);
    return [JC.errorMessage(doing, error), problems.length ? JC.el("ul", { class: "problems" }, problems.map((p) => JC.el("li", {}, p.where ? JC.el("code", {}, p.where) : null, " " + p.message))) : null];
  };

  function previewView(report) {
    const decisions = Object.entries(report.by_decision || {});
    return [
      JC.el("p", { class: "preview-summary" }, report.changed + " of " + report.decisions + " decisions change, over " + report.dog_count + " active dogs."),
      decisions.length
        ? JC.table(["Decision", "Dogs changed", "Examples"], decisions.map(([key, c]) => [key, { text: String(c.changed), class: "number" }, JC.el("ul", {}, c.examples.map((e) => JC.el("li", {}, e.dog_id + ": " + JSON.stringify(e.before) + " → " + JSON.stringify(e.after))))]))
        : JC.message("ok", "No screen decision changes over the last 7 days."),
      JC.el("details", {}, JC.el("summary", {}, "The whole report"), JC.el("pre", {}, JSON.stringify(report, null, 2))),
    ];
  }

  /**
   * GET `path` (an answer with `revision`), again until it is of `revision` (up to 30 s): each
   * instance of the service follows a publish within a second, and a page reloaded after one
   * must show what is served now. Without `revision`, the first answer.
   */
  JC.served = async function (path, revision) {
    const deadline = Date.now() + 30000;
    for (;;) {
      const data = (await JC.api("GET", path)).data;
      if (!revision || data.revision === revision || Date.now() > deadline) return data;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  /**
   * Shows the draft of `answer` (a PUT of params, an experiment, a flow) in `target`: what it
   * does (`consequences`), Show changes, Preview impact, and Publish with a message.
   * `options.message` fills the message; `options.published(revision)` runs after publishing.
   */
  JC.draftPanel = function (target, answer, options) {
    const opts = options || {};
    const revision = answer.draft_revision.revision;
    const id = (name) => opts.prefix + "-" + name;
    const result = JC.el("div", { id: id("draft-result") });
    const messageInput = JC.el("input", { id: id("draft-message"), type: "text", maxlength: "2000", required: true, value: opts.message || answer.draft_revision.message || "" });
    const showDiff = async (event) => {
      await JC.busy(event.target, result, "show the changes", async () => {
        const active = await JC.active();
        const diff = (await JC.api("GET", "/v1/rules/revisions/" + active.id + "/diff/" + revision)).data;
        JC.show(result, JC.renderDiff(diff));
      });
    };
    const preview = async (event) => {
      JC.show(result, JC.el("p", {}, "Replaying the last 7 days under the draft…"));
      await JC.busy(event.target, result, "preview the impact", async () => {
        const report = (await JC.api("POST", "/v1/rules/revisions/" + revision + "/preview", { days: 7 })).data;
        JC.show(result, previewView(report));
      });
    };
    const publish = async (event) => {
      event.preventDefault();
      const button = event.target.querySelector("button[type=submit]");
      await JC.busy(button, result, "publish", async () => {
        await JC.api("POST", "/v1/rules/revisions/" + revision + "/activate", { message: messageInput.value.trim() });
        JC.invalidate();
        JC.show(result, JC.message("ok", "Published revision " + revision.slice(0, 12) + "; it is active now."));
        if (opts.published) await opts.published(revision);
        // A page drawn again after publishing (a flow's) drops the panel: keep the confirmation.
        if (!result.isConnected) JC.show(target, result);
      });
    };
    const consequences = answer.consequences || [];
    JC.show(
      target,
      JC.message("ok", "Draft " + revision.slice(0, 12) + " is ready (" + answer.gates.summary + "). Nothing changes for users until you publish it."),
      consequences.length ? JC.el("div", { class: "consequences" }, JC.el("h4", {}, "What publishing it does"), JC.el("ul", {}, consequences.map((c) => JC.el("li", {}, c)))) : null,
      JC.el(
        "div",
        { class: "row" },
        JC.el("button", { type: "button", class: "secondary", id: id("draft-diff"), onclick: showDiff }, "Show changes"),
        JC.el("button", { type: "button", class: "secondary", id: id("draft-preview"), onclick: preview }, "Preview impact")
      ),
      JC.el("form", { class: "row", onsubmit: publish }, JC.el("label", { for: id("draft-message") }, "What changes and why"), messageInput, JC.el("button", { type: "submit", id: id("draft-publish") }, "Publish")),
      result
    );
  };

  /**
   * The Save button of a form page (parameters, texts, a flow): `options.nothing` (a warning)
   * when `options.edited()` is false; else `PUT options.path` with `options.body()`, the draft
   * shown by `JC.draftPanel` under `options.prefix` (then `options.shown(answer)`), and a
   * refusal's problems handed to `options.problems` beside the refusal.
   */
  JC.saveDraft = async function (event, options) {
    const target = options.prefix + "-draft";
    if (!options.edited()) {
      JC.show(target, JC.message("warning", options.nothing));
      return;
    }
    await JC.busy(event.target, target, "save the draft", async () => {
      try {
        const answer = (await JC.api("PUT", options.path, options.body())).data;
        JC.draftPanel(target, answer, { prefix: options.prefix, message: answer.draft_revision.message, published: (revision) => options.published(revision, answer) });
        if (options.shown) options.shown(answer);
      } catch (error) {
        options.problems(JC.problems(error));
        JC.show(target, JC.refusal("save the draft", error));
      }
    });
  };
})();
