// The Explain page: what a dog's Today screen shows and why (which rule, which variant, which inputs).
"use strict";
(function () {
  const JC = window.JC;

  function card(title, block) {
    if (!block) return JC.el("p", {}, title + ": nothing.");
    return JC.el(
      "div",
      { class: "message ok" },
      JC.el("p", {}, JC.el("strong", {}, title + ": "), block.title + " (", JC.el("code", {}, block.block_id), ", " + block.branch_id + ", " + block.minutes + " min)"),
      block.why ? JC.el("p", {}, "Why the app says: " + block.why) : null
    );
  }

  function inputSummary(input) {
    const parts = [];
    if (input && input.dog) {
      const dog = input.dog;
      parts.push("Dog " + dog.name + " (" + (dog.breed || "no breed") + ")");
      if (dog.metrics) parts.push("metrics: " + Object.entries(dog.metrics).map(([k, v]) => k + " " + v).join(", "));
    }
    if (input && input.blocks) {
      const counts = {};
      for (const block of input.blocks) counts[block.status] = (counts[block.status] || 0) + 1;
      parts.push("blocks: " + Object.entries(counts).map(([k, v]) => v + " " + k).join(", "));
    }
    return parts.join("; ");
  }

  /** "by-branch (sticky, hash 0.6393)" in words, the hash behind a tooltip. */
  const reasons = {
    sticky: "this user was put in it the first time they saw the experiment, and stays",
    assigned: "the experiment's split put this user in it",
    reassigned: "the experiment's split put this user in it again (the split changed)",
    inactive: "the experiment is off, so everyone gets the default",
    not_started: "the experiment has not started, so everyone gets the default",
    ended: "the experiment has ended, so everyone gets the default",
    outside_coverage: "this user is outside the share of users in the experiment",
  };
  JC.assignmentWords = function (text) {
    const match = /^(.+) \(([a-z_]+), hash ([-\d.e]+)\)$/.exec(text || "");
    if (!match) return text || "the rule has one variant";
    return JC.el("span", { title: "assignment: " + match[2] + ", hash " + match[3] }, match[1] + ": " + (reasons[match[2]] || match[2].replace(/_/g, " ")));
  };

  /** The dogs a text names (an id, a name, an owner's user id); one of them is explained. */
  async function findDogs(text) {
    return (await JC.api("GET", "/v1/dogs?find=" + encodeURIComponent(text))).data.dogs;
  }

  async function explain(event, chosen) {
    if (event) event.preventDefault();
    const text = chosen || document.getElementById("explain-dog").value.trim();
    await JC.busy(document.getElementById("explain"), "explain-result", "explain " + text, async () => {
      const dogs = chosen ? [{ dog_id: chosen }] : await findDogs(text);
      if (dogs.length === 0) {
        JC.show("explain-result", JC.message("warning", "No dog has the id, name or owner “" + text + "”."));
        return;
      }
      if (dogs.length > 1) {
        JC.show(
          "explain-result",
          JC.el("p", {}, dogs.length + " dogs match “" + text + "”: choose one."),
          JC.el("ul", { id: "explain-choices" }, dogs.map((d) => JC.el("li", {}, JC.el("button", { type: "button", class: "secondary", "data-dog": d.dog_id, onclick: () => explain(null, d.dog_id) }, d.name + " (" + d.dog_id + "), owner " + d.user_id + (d.breed ? ", " + d.breed : "")))))
        );
        return;
      }
      const dog = dogs[0].dog_id;
      const today = (await JC.api("GET", "/v1/dogs/" + encodeURIComponent(dog) + "/today?explain=true")).data;
      JC.show(
        "explain-result",
        JC.el("h3", {}, "What " + today.dog.name + " (" + today.dog.id + ") sees today"),
        card("Recommended", today.recommended),
        card("Continue", today.continue),
        JC.el("p", {}, "Served by ", JC.revisionName(today.decision.revision, JC.messageOf(today.decision.revision)), "."),
        JC.el("h3", {}, "Why: the rules, in the order they ran"),
        JC.table(
          ["Rule", "Variant", "Chosen because", "Inputs", "Output"],
          today.explanations.map((entry) => [
            JC.el("button", { type: "button", class: "secondary", onclick: () => JC.openFile(entry.file.split(":")[0], Number(entry.file.split(":")[1]) || 1) }, entry.rule),
            entry.variant + (entry.experiment ? " (experiment " + entry.experiment + ")" : ""),
            JC.assignmentWords(entry.assignment),
            JC.el("div", {}, inputSummary(entry.input), JC.el("details", {}, JC.el("summary", {}, "All inputs"), JC.el("pre", {}, JSON.stringify(entry.input, null, 2)))),
            entry.error ? JC.el("span", { class: "tag bad" }, "error: " + JSON.stringify(entry.error)) : JC.el("code", {}, entry.outputs.map((o) => JSON.stringify(o)).join(", ")),
          ])
        ),
        JC.el("details", {}, JC.el("summary", {}, "The whole answer"), JC.el("pre", {}, JSON.stringify(today, null, 2)))
      );
    });
  }

  JC.pages.explain = { load() {} };
  document.getElementById("explain-form").addEventListener("submit", explain);
})();
