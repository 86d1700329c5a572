// The History page: revisions with author, time, message and gates; the diff of any two;
// activating an earlier one (a rollback) after a confirmation.
"use strict";
(function () {
  const JC = window.JC;
  let dialog = null;

  /** Asks to confirm an activation, with its message; resolves to the message, or null. */
  function confirmActivation(revision, isRollback) {
    if (!dialog) {
      dialog = JC.el(
        "dialog",
        { id: "activate-dialog", "aria-labelledby": "activate-title" },
        JC.el(
          "form",
          { method: "dialog" },
          JC.el("h3", { id: "activate-title" }, ""),
          JC.el("p", { id: "activate-what" }, ""),
          JC.el("label", { for: "activate-message" }, "Why"),
          " ",
          JC.el("input", { id: "activate-message", type: "text", required: true, maxlength: "2000" }),
          JC.el("div", { class: "row" }, JC.el("button", { type: "submit", value: "confirm", id: "activate-confirm" }, "Confirm"), JC.el("button", { type: "submit", value: "cancel", class: "secondary", formnovalidate: true }, "Cancel"))
        )
      );
      document.body.append(dialog);
    }
    document.getElementById("activate-title").textContent = isRollback ? "Roll back" : "Make active";
    document.getElementById("activate-what").textContent = "Every instance will serve revision " + revision.revision.slice(0, 12) + " (" + revision.message + ") within a second.";
    const input = document.getElementById("activate-message");
    input.value = (isRollback ? "roll back to " : "activate ") + revision.revision.slice(0, 12);
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => resolve(dialog.returnValue === "confirm" ? input.value.trim() : null), { once: true });
      dialog.returnValue = "";
      dialog.showModal();
      input.select();
    });
  }

  async function activate(revision, isRollback, button) {
    const message = await confirmActivation(revision, isRollback);
    if (!message) return;
    await JC.busy(button, "history-diff", "activate the revision", async () => {
      await JC.api("POST", "/v1/rules/revisions/" + revision.revision + "/activate", { message });
      JC.invalidate();
      await JC.pages.history.load();
      JC.show("history-diff", JC.message("ok", "Revision " + revision.revision.slice(0, 12) + " is active now."));
    });
  }

  JC.pages.history = {
    async load() {
      const [list, audit] = await Promise.all([JC.api("GET", "/v1/rules/revisions?limit=50").then((r) => r.data), JC.api("GET", "/v1/audit?limit=50").then((r) => r.data)]);
      const activeIndex = list.revisions.findIndex((r) => r.revision === list.active);
      const rows = list.revisions.map((revision, index) => {
        const isActive = revision.revision === list.active;
        return [
          JC.el("code", {}, revision.revision.slice(0, 12)),
          isActive ? JC.el("span", { class: "tag good" }, "active") : "",
          JC.time(revision.created_at),
          revision.author,
          revision.message,
          JC.el("span", { class: revision.gates.passed ? "tag good" : "tag bad" }, revision.gates.summary),
          isActive
            ? ""
            : JC.el(
                "button",
                { type: "button", class: "secondary", "data-revision": revision.revision, onclick: (event) => activate(revision, index > activeIndex, event.target) },
                index > activeIndex ? "Roll back to this" : "Make active"
              ),
        ];
      });
      JC.show(
        "history-body",
        JC.table(["Revision", "", "Kept", "Author", "Message", "Gates", ""], rows),
        JC.el("h3", {}, "Audit trail"),
        JC.table(["When", "Who", "What", "Revision", "Why"], audit.audit.map((e) => [JC.time(e.at), e.actor, e.action, JC.el("code", {}, e.subject.slice(0, 12)), e.message]))
      );
      const options = () => list.revisions.map((r) => JC.el("option", { value: r.revision }, r.revision.slice(0, 12) + " — " + r.message));
      JC.show("compare-from", options());
      JC.show("compare-to", options());
      if (list.revisions.length > 1) document.getElementById("compare-from").value = list.revisions[1].revision;
    },
  };

  document.getElementById("compare-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const from = document.getElementById("compare-from").value;
    const to = document.getElementById("compare-to").value;
    await JC.busy(document.getElementById("compare"), "history-diff", "compare the revisions", async () => {
      const diff = (await JC.api("GET", "/v1/rules/revisions/" + from + "/diff/" + to)).data;
      JC.show("history-diff", JC.renderDiff(diff));
    });
  });
})();
