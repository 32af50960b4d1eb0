// The operator console's script: only where it helps. The passkey sign-in (which needs
// it), copy buttons for what is shown once, filters that apply when a choice changes, and
// the overview's refresh. Every page works without it otherwise.
(function () {
  "use strict";

  function csrfToken() {
    var meta = document.querySelector('meta[name="latchkey-csrf"]');
    return meta ? meta.content : "";
  }

  async function call(path, body) {
    var response = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken() },
      body: JSON.stringify(body),
    });
    var json = await response.json().catch(function () { return {}; });
    if (!response.ok) throw new Error(json.error_description || "The server answered " + response.status + ".");
    return json;
  }

  async function signIn(button) {
    var status = document.getElementById("status");
    status.classList.remove("is-error");
    status.textContent = "Waiting for your passkey…";
    button.disabled = true;
    try {
      var started = await call("/console/login/options", {});
      var response = await Latchkey.get(started.options, {});
      var finished = await call("/console/login/finish", { auth_session: started.auth_session, response: response, return_to: button.dataset.returnTo });
      status.textContent = "Signed in.";
      location.assign(finished.redirect_to);
    } catch (error) {
      status.classList.add("is-error");
      status.textContent = error && error.name === "NotAllowedError" ? "The passkey sign-in was cancelled or timed out. Try again." : String(error.message || error);
      button.disabled = false;
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("console-sign-in");
    if (button) button.addEventListener("click", function () { signIn(button); });

    document.querySelectorAll("button.copy[data-copy]").forEach(function (copy) {
      var source = document.getElementById(copy.dataset.copy);
      if (!source || !navigator.clipboard) return;
      copy.hidden = false;
      copy.addEventListener("click", function () {
        navigator.clipboard.writeText(source.textContent.trim()).then(function () { copy.textContent = "Copied"; });
      });
    });

    document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
      select.addEventListener("change", function () { if (select.form) select.form.requestSubmit(); });
    });

    // The overview follows the figures without a reload by hand, unless the operator is
    // using the page (a focused control) or it is in the background.
    var refresh = Number(document.body.dataset.refresh || 0);
    if (refresh > 0) {
      setInterval(function () {
        var active = document.activeElement;
        if (document.visibilityState === "visible" && (!active || active === document.body)) location.reload();
      }, refresh * 1000);
    }
  });
})();
