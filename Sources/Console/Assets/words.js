// Words for people: revisions named by their message with the short hash beside it, audit
// actions as verbs, roles, and what a signed-in credential may do.
"use strict";
(function () {
  const JC = window.JC;

  /** A revision's name: what it changed (its message) with its short hash, e.g. "New walks (8661be3e7d00)". */
  JC.revisionName = function (revision, message) {
    if (!revision) return "";
    const id = typeof revision === "string" ? revision : revision.revision;
    let text = message || (typeof revision === "string" ? "" : revision.message) || "";
    if (text.length > 60) text = text.slice(0, 57) + "…";
    return text ? "“" + text + "” (" + id.slice(0, 12) + ")" : "revision " + id.slice(0, 12);
  };

  /** Messages of the revisions seen so far, by id (for naming a revision given only its id). */
  JC.revisionMessages = {};
  JC.remember = function (revisions) {
    for (const r of revisions || []) JC.revisionMessages[r.revision] = r.message;
  };
  JC.messageOf = (id) => JC.revisionMessages[id] || "";

  /** A message from the engine with its `code` quotes made plain quotes. */
  JC.plain = (text) => String(text || "").replace(/`([^`]*)`/g, "“$1”");

  /** The audit trail's actions, in words. */
  JC.actionWords = {
    publish: "published",
    keep: "saved a draft",
    activate: "made live",
    rollback: "rolled back",
    emergency_rollback: "rolled back in an emergency",
    approve: "approved",
    schedule: "scheduled",
    cancel_schedule: "cancelled a schedule",
    scheduled_activate: "made live on schedule",
    lift_quarantine: "lifted a quarantine",
    quarantine: "quarantined",
  };
  JC.action = (action) => JC.actionWords[action] || action.replace(/_/g, " ");

  /** The roles, each able to do everything the one before can. */
  const roles = ["viewer", "editor", "publisher", "admin"];
  JC.role = "admin";
  /** Whether the signed-in credential has `role` or a higher one. */
  JC.can = (role) => roles.indexOf(JC.role) >= roles.indexOf(role);
  /** Remembers the role `GET /v1/rules` answered, and hides what it may not do (the server refuses it anyway). */
  JC.setRole = function (role) {
    JC.role = roles.includes(role) ? role : "viewer";
    document.body.dataset.role = JC.role;
  };

  /** The header's "Signed in as NAME (role)", and the role's view of the pages. */
  JC.signedIn = function (rules) {
    JC.signedInAs = rules.signed_in_as || "admin";
    JC.setRole(rules.role || "admin");
    document.getElementById("signed-in").textContent = "Signed in as " + JC.signedInAs + " (" + JC.role + ")";
  };

  /** "p < 0.001" or "p = 0.042". */
  JC.pValue = (p) => (p === null || p === undefined || isNaN(p) ? "–" : p < 0.001 ? "p < 0.001" : "p = " + p.toFixed(3));
  /** A difference of two rates in percentage points: "+21.1 pp". */
  JC.points = (value) => (value === null || value === undefined ? "–" : (value >= 0 ? "+" : "−") + Math.abs(value * 100).toFixed(1) + " pp");
})();
