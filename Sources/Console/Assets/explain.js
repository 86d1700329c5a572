// The Explain page: what a dog's Today screen shows and why (which rule, which variant, which inputs).
"use strict";
(function () {
  const JC = window.JC;

  function card(title, block) {
    if (!block) return JC.el("p", {}, title + ": nothing.");
    return JC.el(
      "div",
      { class: "message ok" },
      JC.el("p", {}, JC.el("strong", {}, title + ": "), block.title + " (", JC.el("code", {}, block.block_id), ", " + block.branch + ", " + block.minutes + " min)"),
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

  async function explain(event) {
    event.preventDefault();
    const dog = document.getElementById("explain-dog").value.trim();
    await JC.busy(document.getElementById("explain"), "explain-result", "explain dog " + dog, async () => {
      const today = (await JC.api("GET", "/v1/dogs/" + encodeURIComponent(dog) + "/today?explain=true")).data;
      JC.show(
        "explain-result",
        JC.el("h3", {}, "What " + today.dog.name + " (" + today.dog.id + ") sees today"),
        card("Recommended", today.recommended),
        card("Continue", today.continue),
        JC.el("p", {}, "Served by revision ", JC.el("code", {}, today.decision.revision.slice(0, 12)), "."),
        JC.el("h3", {}, "Why: the rules, in the order they ran"),
        JC.table(
          ["Rule", "Variant", "Chosen because", "Inputs", "Output"],
          today.explain.map((entry) => [
            JC.el("button", { type: "button", class: "secondary", onclick: () => JC.openFile(entry.file.split(":")[0], Number(entry.file.split(":")[1]) || 1) }, entry.rule),
            entry.variant + (entry.experiment ? " (experiment " + entry.experiment + ")" : ""),
            entry.assignment || "the rule has one variant",
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
