// The Rules page: every rule and document of the active revision, with its last change.
"use strict";
(function () {
  const JC = window.JC;

  /** What kind of document a file is, by its first top-level key. */
  JC.documentKind = function (path, text) {
    if (path.endsWith(".jq")) return "jq library";
    if (path.endsWith(".json")) return "test fixture";
    if (path.endsWith(".md")) return "notes";
    const match = /^(rule|rules|flow|catalog|experiments|plugin|challenge|wording):/m.exec(text || "");
    const key = match ? match[1] : "file";
    return { rules: "rules", experiments: "experiments", plugin: "check plugin" }[key] || key;
  };

  /** For each file, the saved revision that last changed it (walking the history oldest first). */
  async function lastChanges(revisions) {
    const recent = revisions.slice(0, 20).reverse();
    const details = await Promise.all(recent.map((revision) => JC.api("GET", "/v1/rules/revisions/" + revision.revision).then((r) => r.data)));
    const changed = {};
    let previous = {};
    for (const detail of details) {
      for (const [path, text] of Object.entries(detail.files)) if (previous[path] !== text) changed[path] = detail;
      previous = detail.files;
    }
    return changed;
  }

  function change(revision) {
    if (!revision) return "not in the last 20 revisions";
    return JC.el("span", {}, revision.author + ", " + JC.time(revision.created_at) + ": ", JC.el("q", {}, revision.message));
  }

  function openButton(file, line, label) {
    return JC.el("button", { type: "button", class: "secondary", onclick: () => JC.openFile(file, line) }, label);
  }

  /** Shows only the rows whose text contains every word of `query`. */
  function filter(query) {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    for (const row of document.querySelectorAll("#rules-body tbody tr")) {
      const text = row.textContent.toLowerCase();
      row.hidden = !words.every((word) => text.includes(word));
    }
  }

  JC.pages.rules = {
    async load() {
      JC.show("rules-body", JC.el("p", {}, "Loading…"));
      // What is live may have changed since the page was drawn (a publish elsewhere): ask again.
      JC.invalidate();
      const [rules, active] = await Promise.all([JC.api("GET", "/v1/rules").then((r) => r.data), JC.active()]);
      if (!active.id) {
        JC.show("rules-revision", "Nothing is published yet: the service serves its bundled rules. Open any file in the Editor and publish it, changed or not, to make the first revision.");
      } else {
        const detail = active.detail;
        const live = active.list.revisions.find((r) => r.revision === active.id) || detail;
        JC.show("rules-revision", "Live: ", JC.el("strong", {}, JC.revisionName(live)), " — made live by " + ((live.activation && live.activation.author) || detail.author) + ", " + JC.time((live.activation && live.activation.activated_at) || detail.created_at) + " (" + detail.gates.summary + ")");
      }
      const changes = active.id ? await lastChanges(active.revisions) : {};
      // A rule's quarantine records: for everyone (input null), or for some dogs or users only.
      const quarantined = new Map();
      for (const q of rules.quarantined) quarantined.set(q.rule, (quarantined.get(q.rule) || []).concat([q]));
      const quarantineTag = (records) => {
        const everyone = records.find((q) => q.input == null);
        if (everyone) return JC.el("span", { class: "tag bad", title: everyone.detail }, "quarantined: " + everyone.reason);
        const inputs = records.map((q) => q.input);
        return JC.el("span", { class: "tag", title: inputs.join("\n") },
          "serving; quarantined for " + inputs.length + (inputs.length === 1 ? " input" : " inputs"));
      };
      const ruleRows = rules.rules.map((rule) => {
        const q = quarantined.get(rule.id);
        return [
          openButton(rule.file, rule.line, rule.id),
          rule.kind,
          JC.el("span", { class: "path" }, rule.file + ":" + rule.line),
          rule.experiment ? rule.experiment + " (" + rule.variant_names.join(", ") + ")" : "—",
          { text: String(rule.test_count), class: "number" },
          q ? quarantineTag(q) : JC.el("span", { class: "tag good" }, "serving"),
          change(changes[rule.file]),
        ];
      });
      const ruleFiles = new Set(rules.rules.map((rule) => rule.file));
      const documents = Object.keys(active.files)
        .filter((path) => !ruleFiles.has(path))
        .sort()
        .map((path) => [openButton(path, 1, path), JC.documentKind(path, active.files[path]), change(changes[path])]);
      const search = JC.el("input", { id: "rules-search", type: "search", placeholder: "rule, file, experiment…", oninput: () => filter(search.value) });
      JC.show(
        "rules-body",
        JC.el("div", { class: "row" }, JC.el("label", { for: "rules-search" }, "Find"), search),
        JC.el("h3", {}, rules.rules.length + " rules"),
        JC.table(["Rule", "Kind", "File", "Experiment (variants)", "Tests", "Status", "Last change"], ruleRows),
        JC.el("h3", {}, "Experiments, flows, catalogs, plugins and other files"),
        JC.table(["File", "Kind", "Last change"], documents)
      );
      document.getElementById("rules-body").classList.add("rules");
    },
  };
})();
