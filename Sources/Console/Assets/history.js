// The History page: revisions by name (message and short hash) with author, time and checks;
// approvals, scheduled activations, the diff of any two; making one live (a rollback when it
// was live before, an emergency one without approvals) after a confirmation.
"use strict";
(function () {
  const JC = window.JC;
  let dialog = null;

  /** Asks to confirm an activation; resolves to {message, emergency, at}, or null. */
  function confirmActivation(revision, kind) {
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
          JC.el("p", { id: "activate-when-row" }, JC.el("label", { for: "activate-at" }, "When"), " ", JC.el("input", { id: "activate-at", type: "datetime-local", step: "1" })),
          JC.el("p", { id: "activate-emergency-row" }, JC.el("input", { id: "activate-emergency", type: "checkbox" }), " ", JC.el("label", { for: "activate-emergency" }, "Emergency: roll back now without approvals (shown in red in the audit trail)")),
          JC.el("div", { class: "row" }, JC.el("button", { type: "submit", value: "confirm", id: "activate-confirm" }, "Confirm"), JC.el("button", { type: "submit", value: "cancel", class: "secondary", formnovalidate: true }, "Cancel"))
        )
      );
      document.body.append(dialog);
    }
    const titles = { rollback: "Roll back", activate: "Make live", schedule: "Schedule going live" };
    document.getElementById("activate-at").value = "";
    document.getElementById("activate-title").textContent = titles[kind];
    document.getElementById("activate-what").textContent =
      kind === "schedule" ? "Every instance will serve " + JC.revisionName(revision) + " within a second of the time you choose." : "Every instance will serve " + JC.revisionName(revision) + " within a second.";
    const input = document.getElementById("activate-message");
    input.value = (kind === "rollback" ? "roll back to " : kind === "schedule" ? "scheduled: " : "make live: ") + JC.revisionName(revision);
    document.getElementById("activate-when-row").hidden = kind !== "schedule";
    const at = document.getElementById("activate-at");
    at.required = kind === "schedule";
    if (kind === "schedule" && !at.value) {
      const soon = new Date(Date.now() + 3600 * 1000);
      soon.setMinutes(0, 0, 0);
      at.value = new Date(soon.getTime() - soon.getTimezoneOffset() * 60000).toISOString().slice(0, 19);
    }
    document.getElementById("activate-emergency-row").hidden = kind !== "rollback";
    document.getElementById("activate-emergency").checked = false;
    return new Promise((resolve) => {
      dialog.addEventListener(
        "close",
        () =>
          resolve(
            dialog.returnValue === "confirm"
              ? { message: input.value.trim(), emergency: document.getElementById("activate-emergency").checked, at: at.value ? new Date(at.value).toISOString() : null }
              : null
          ),
        { once: true }
      );
      dialog.returnValue = "";
      dialog.showModal();
      input.select();
    });
  }

  async function activate(revision, kind, button) {
    const answer = await confirmActivation(revision, kind);
    if (!answer || !answer.message) return;
    await JC.busy(button, "history-diff", kind === "schedule" ? "schedule the revision" : "make the revision live", async () => {
      if (kind === "schedule") {
        const schedule = (await JC.api("POST", "/v1/rules/revisions/" + revision.revision + "/schedule", { at: answer.at, message: answer.message })).data.scheduled_activation;
        await JC.pages.history.load();
        JC.show("history-diff", JC.message("ok", JC.revisionName(revision) + " goes live at " + JC.time(schedule.due_at) + "."));
        return;
      }
      await JC.api("POST", "/v1/rules/revisions/" + revision.revision + "/activate", { message: answer.message, emergency: answer.emergency });
      JC.invalidate();
      await JC.pages.history.load();
      JC.show("history-diff", JC.message("ok", JC.revisionName(revision) + " is live now."));
    });
  }

  async function approve(revision, button) {
    await JC.busy(button, "history-diff", "approve the revision", async () => {
      const state = (await JC.api("POST", "/v1/rules/revisions/" + revision.revision + "/approve", { message: "approved in the console" })).data.approvals;
      await JC.pages.history.load();
      JC.show("history-diff", JC.message("ok", "You approved " + JC.revisionName(revision) + " (" + state.have + " of " + state.needed + " approvals)."));
    });
  }

  async function cancelSchedule(schedule, button) {
    await JC.busy(button, "history-diff", "cancel the schedule", async () => {
      await JC.api("DELETE", "/v1/rules/schedules/" + schedule.id, { message: "cancelled in the console" });
      await JC.pages.history.load();
      JC.show("history-diff", JC.message("ok", "Cancelled: " + JC.revisionName(schedule.revision) + " will not go live at " + JC.time(schedule.due_at) + "."));
    });
  }

  function approvalsCell(revision, needed) {
    if (!needed) return "";
    const a = revision.approvals;
    const text = a.have + " of " + a.needed + (a.approvers.length ? " (" + a.approvers.join(", ") + ")" : "");
    return JC.el("span", { class: a.satisfied ? "tag good" : "tag", "data-approvals": revision.revision }, text);
  }

  function actions(revision, isActive, wasLive, needed) {
    const buttons = [];
    if (needed && revision.author !== JC.signedInAs && !isActive) {
      buttons.push(JC.el("button", { type: "button", class: "secondary needs-publisher", "data-approve": revision.revision, onclick: (event) => approve(revision, event.target) }, "Approve"));
    }
    if (!isActive) {
      buttons.push(
        JC.el("button", { type: "button", class: "secondary needs-publisher", "data-revision": revision.revision, onclick: (event) => activate(revision, wasLive ? "rollback" : "activate", event.target) }, wasLive ? "Roll back to this" : "Make live"),
        JC.el("button", { type: "button", class: "secondary needs-publisher", "data-schedule": revision.revision, onclick: (event) => activate(revision, "schedule", event.target) }, "Schedule…")
      );
    }
    return JC.el("span", { class: "actions" }, buttons);
  }

  JC.pages.history = {
    async load() {
      const [list, audit, schedules] = await Promise.all([
        JC.api("GET", "/v1/rules/revisions?limit=50").then((r) => r.data),
        JC.api("GET", "/v1/audit?limit=50").then((r) => r.data),
        JC.api("GET", "/v1/rules/schedules").then((r) => r.data),
      ]);
      JC.remember(list.revisions);
      const needed = list.required_approvals || 0;
      const rows = list.revisions.map((revision) => {
        const isActive = revision.revision === list.active_revision_id;
        const wasLive = Boolean(revision.activation);
        const message = revision.message;
        return [
          JC.el("span", {}, JC.el("strong", {}, message), " ", JC.el("code", { class: "hash" }, revision.revision.slice(0, 12))),
          isActive ? JC.el("span", { class: "tag good" }, "live") : wasLive ? "" : JC.el("span", { class: "tag" }, "draft"),
          JC.time(revision.created_at),
          revision.author,
          JC.el("span", { class: revision.gates.passed ? "tag good" : "tag bad" }, revision.gates.passed ? "checks passed" : "checks failed"),
          approvalsCell(revision, needed),
          actions(revision, isActive, wasLive, needed),
        ];
      });
      const pending = schedules.schedules;
      JC.show(
        "history-body",
        needed ? JC.el("p", { id: "approvals-rule" }, "Going live needs " + needed + " approval" + (needed === 1 ? "" : "s") + " by people other than the revision's author.") : null,
        JC.table(["Revision", "", "Saved", "Author", "Checks", needed ? "Approvals" : "", ""], rows),
        pending.length
          ? JC.table(
              ["Goes live at", "Revision", "Scheduled by", "Why", ""],
              pending.map((s) => [JC.time(s.due_at), JC.revisionName(s.revision, JC.messageOf(s.revision)), s.author, s.message, JC.el("button", { type: "button", class: "secondary needs-publisher", "data-cancel-schedule": String(s.id), onclick: (event) => cancelSchedule(s, event.target) }, "Cancel")]),
              "Scheduled"
            )
          : null,
        JC.el("h3", {}, "Audit trail"),
        JC.table(
          ["When", "Who", "What", "Revision", "Why"],
          audit.audit.map((e) => {
            const subject = /^[0-9a-f]{64}$/.test(e.subject) ? JC.revisionName(e.subject, JC.messageOf(e.subject)) : e.subject;
            const cells = [JC.time(e.at), e.actor, JC.action(e.operation), subject, e.message];
            return e.operation === "emergency_rollback" ? cells.map((text) => ({ text, class: "emergency" })) : cells;
          })
        )
      );
      const options = () => list.revisions.map((r) => JC.el("option", { value: r.revision }, JC.revisionName(r)));
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
