// The console's client of the admin API, and the small DOM helpers every page uses.
"use strict";
const JC = (window.JC = window.JC || {});

/** Every request the page made: {method, path, status} (the browser test reads it). */
JC.requests = [];

/** The admin token, kept in this tab's sessionStorage only (never in a URL). */
JC.token = {
  get: () => sessionStorage.getItem("journey.admin-token"),
  set: (token) => sessionStorage.setItem("journey.admin-token", token),
  clear: () => sessionStorage.removeItem("journey.admin-token"),
};

/** A refused or failed request: the status, the API's {code, message, errors}, and what was asked. */
JC.APIError = class extends Error {
  constructor(status, body, request) {
    super((body && body.message) || "status " + status);
    this.status = status;
    this.body = body || {};
    this.request = request;
  }
};

/** Calls the admin API with the token; resolves to {status, data}; throws JC.APIError when not 2xx. */
JC.api = async function (method, path, body) {
  const headers = { Authorization: "Bearer " + (JC.token.get() || "") };
  const init = { method, headers, cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const request = method + " " + path;
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    JC.requests.push({ method, path, status: 0 });
    throw new JC.APIError(0, { code: "network_error", message: String(error) }, request);
  }
  JC.requests.push({ method, path, status: response.status });
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (error) {
    data = { code: "not_json", message: text.slice(0, 500) };
  }
  if (!response.ok) throw new JC.APIError(response.status, data, request);
  return { status: response.status, data };
};

/** What went wrong, in words a product manager reads. */
JC.explainError = function (error) {
  if (!(error instanceof JC.APIError)) return "the page hit an unexpected problem (" + String(error) + ").";
  const code = error.body.code;
  if (error.status === 0) return "the service did not answer. Is it running, and is the network up?";
  if (error.status === 401) return "your admin token was not accepted. Check it and sign in again.";
  if (code === "admin_disabled") return "the admin pages are turned off on this service: ask an engineer to start it with admin credentials.";
  if (code === "role_required") return (error.body.message || "your role may not do that") + ". Ask an admin for a higher role.";
  if (code === "approval_required") return (error.body.message || "it needs approvals first") + ".";
  if (code === "gates_refused") return "the change was refused because it has problems (listed below). Nothing was published.";
  if (error.status === 404) return "it was not found (" + (error.body.message || "no such thing") + ").";
  if (error.status === 422) return "the service refused it: " + (error.body.message || "invalid") + ".";
  if (error.status === 503) return "the service could not read or write its data right now. Try again in a minute.";
  return "the service answered with an error (status " + error.status + ").";
};

/** Creates an element: JC.el("td", {class: "number"}, "12", child…); strings become text. */
JC.el = function (tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
};

/** Replaces the children of `target` (an element or its id). */
JC.show = function (target, ...children) {
  const element = typeof target === "string" ? document.getElementById(target) : target;
  element.replaceChildren(...children.flat().filter((child) => child !== null && child !== undefined));
  return element;
};

/** A table: headers and rows of cells (a cell is text, a node, or {text|node, class}). */
JC.table = function (headers, rows, caption) {
  const cell = (tag, value) => {
    if (value && typeof value === "object" && !(value instanceof Node) && !Array.isArray(value)) {
      return JC.el(tag, { class: value.class }, value.node || value.text);
    }
    return JC.el(tag, {}, value);
  };
  return JC.el(
    "table",
    {},
    caption ? JC.el("caption", {}, caption) : null,
    JC.el("thead", {}, JC.el("tr", {}, headers.map((header) => JC.el("th", { scope: "col" }, header)))),
    JC.el("tbody", {}, rows.map((row) => JC.el("tr", {}, row.map((value) => cell("td", value)))))
  );
};

/** A message box: kind is "error", "ok" or "warning"; detail (any JSON) goes behind a <details>. */
JC.message = function (kind, text, detail) {
  return JC.el(
    "div",
    { class: "message " + kind, role: kind === "error" ? "alert" : "status" },
    JC.el("p", {}, text),
    detail === undefined ? null : JC.el("details", {}, JC.el("summary", {}, "Technical detail"), JC.el("pre", {}, typeof detail === "string" ? detail : JSON.stringify(detail, null, 2)))
  );
};

/** The message for a failed action ("open the rules"), with the code, message and errors one click away. */
JC.errorMessage = function (doing, error) {
  const detail = error instanceof JC.APIError ? { request: error.request, status: error.status, ...error.body } : String(error && error.stack ? error.stack : error);
  return JC.message("error", "Could not " + doing + ": " + JC.explainError(error), detail);
};

/** "2026-12-01 13:44" in the browser's time zone. */
JC.time = function (iso) {
  if (!iso) return "";
  const date = new Date(iso);
  if (isNaN(date)) return iso;
  const pad = (n) => String(n).padStart(2, "0");
  return date.getFullYear() + "-" + pad(date.getMonth() + 1) + "-" + pad(date.getDate()) + " " + pad(date.getHours()) + ":" + pad(date.getMinutes());
};

/** A percentage with one decimal. */
JC.percent = (value) => (value === null || value === undefined ? "–" : (value * 100).toFixed(1) + "%");

/** Runs `action` with `button` disabled, and shows a failure in `target` as a message. */
JC.busy = async function (button, target, doing, action) {
  if (button) button.disabled = true;
  try {
    return await action();
  } catch (error) {
    JC.show(target, JC.errorMessage(doing, error));
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
};

/** The active revision with its files (cached until JC.invalidate()). */
JC.active = async function () {
  if (!JC.activeCache) {
    JC.activeCache = (async () => {
      const list = (await JC.api("GET", "/v1/rules/revisions?limit=50")).data;
      if (JC.remember) JC.remember(list.revisions);
      if (!list.active_revision_id) {
        // Nothing published yet: the service serves its folders, and a draft starts from them.
        const served = (await JC.api("GET", "/v1/rules/files")).data;
        return { id: null, files: served.files, source: served.source, revisions: list.revisions, list };
      }
      const detail = (await JC.api("GET", "/v1/rules/revisions/" + list.active_revision_id)).data;
      return { id: list.active_revision_id, detail, files: detail.files, source: "revision", revisions: list.revisions, list };
    })();
    JC.activeCache.catch(() => (JC.activeCache = null));
  }
  return JC.activeCache;
};

/** Forgets the cached active revision (after a publish or a rollback). */
JC.invalidate = () => (JC.activeCache = null);

/** The pages, by name: {load()} each (filled by the page scripts). */
JC.pages = JC.pages || {};
