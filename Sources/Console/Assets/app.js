// The console's shell: sign in, the navigation between pages, sign out.
"use strict";
(function () {
  const JC = window.JC;
  const names = ["rules", "editor", "params", "onboarding", "texts", "history", "experiments", "explain"];

  function showPage(name) {
    for (const section of document.querySelectorAll(".page")) section.hidden = section.id !== "page-" + name;
    for (const link of document.querySelectorAll("#nav a")) {
      if (link.dataset.page === name) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    JC.show("notice");
    const page = JC.pages[name];
    const section = document.getElementById("page-" + name);
    section.removeAttribute("data-loaded");
    // data-loaded="true" once the page's data is drawn (the browser test waits for it).
    Promise.resolve(page && page.load ? page.load() : null)
      .catch((error) => JC.show("notice", JC.errorMessage("open the " + name + " page", error)))
      .finally(() => section.setAttribute("data-loaded", "true"));
  }

  function route() {
    if (!JC.token.get()) return showPage("signin");
    const name = location.hash.slice(1).split("/")[0];
    showPage(names.includes(name) ? name : "rules");
  }

  /** Opens the editor on `file` (at `line`), from any page. */
  JC.openFile = function (file, line) {
    JC.editorTarget = { file, line };
    if (location.hash === "#editor") route();
    else location.hash = "#editor";
  };

  async function signIn(event) {
    event.preventDefault();
    const input = document.getElementById("token");
    const button = document.getElementById("signin");
    JC.token.set(input.value.trim());
    button.disabled = true;
    try {
      const answer = await JC.api("GET", "/v1/rules");
      JC.signedIn(answer.data);
      input.value = "";
      document.getElementById("nav").hidden = false;
      JC.invalidate();
      if (location.hash === "#rules") route();
      else location.hash = "#rules";
    } catch (error) {
      JC.token.clear();
      JC.show("notice", JC.errorMessage("sign in", error));
    } finally {
      button.disabled = false;
    }
  }

  function signOut() {
    JC.token.clear();
    document.getElementById("signed-in").textContent = "";
    JC.invalidate();
    document.getElementById("nav").hidden = true;
    location.hash = "";
    showPage("signin");
    document.getElementById("token").focus();
  }

  document.getElementById("signin-form").addEventListener("submit", signIn);
  document.getElementById("sign-out").addEventListener("click", signOut);
  window.addEventListener("hashchange", route);
  if (JC.token.get()) {
    document.getElementById("nav").hidden = false;
    // Signed in before this page was loaded: the name of the credential, for the header.
    JC.api("GET", "/v1/rules").then(
      (answer) => JC.signedIn(answer.data),
      () => {} // the page shown says what went wrong
    );
  }
  route();
})();
