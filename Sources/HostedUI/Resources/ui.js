/*
 * The hosted pages' behaviour. Each page names itself in <body data-page>; the ceremonies
 * go through latchkey.js, and every call to the server carries the page's CSRF token.
 */
(function () {
  "use strict";

  var body = document.body;
  var csrfMeta = document.querySelector('meta[name="latchkey-csrf"]');
  var csrf = csrfMeta ? csrfMeta.content : "";

  function $(selector, root) { return (root || document).querySelector(selector); }

  /** The page's words (latchkey.js reads them from the page's `latchkey-messages` block). */
  function t(key, values) { return Latchkey.message(key, values); }

  /** This moment as the pages write times: in the page's language, in UTC. */
  function now() {
    try {
      return new Intl.DateTimeFormat(document.documentElement.lang || "en", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }).format(new Date()) + " UTC";
    } catch (ignored) {
      return new Date().toISOString().slice(0, 16).replace("T", " ") + " UTC";
    }
  }

  async function call(method, path, payload) {
    var response = await fetch(path, {
      method: method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: payload === undefined ? undefined : JSON.stringify(payload)
    });
    var json = null;
    try { json = await response.json(); } catch (ignored) { json = null; }
    if (!response.ok) {
      var failure = new Latchkey.LatchkeyError(response.status, json);
      failure.field = json && json.field ? json.field : null;
      throw failure;
    }
    return json;
  }

  /**
   * The page's one status area: each message replaces the last. Errors are styled as such
   * and announced at once (assertive); other messages wait for the reader (polite).
   */
  function setStatus(message, kind) {
    var element = $("#status");
    if (!element) return;
    var isError = kind === "error";
    element.setAttribute("aria-live", isError ? "assertive" : "polite");
    element.classList.toggle("is-error", isError);
    element.textContent = message || "";
  }

  function showError(message) {
    setStatus(message, message ? "error" : null);
  }

  /** Marks a field invalid with a message under it, and puts the cursor there. */
  function fieldError(input, message) {
    var id = input.id + "-error";
    var note = document.getElementById(id);
    if (!note) {
      note = document.createElement("p");
      note.id = id;
      note.className = "field-error";
      input.insertAdjacentElement("afterend", note);
    }
    note.textContent = message;
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", id);
    input.focus();
    setStatus("");
  }

  /** Clears every field's error in `form`. */
  function clearFieldErrors(form) {
    if (!form) return;
    Array.prototype.forEach.call(form.querySelectorAll("[aria-invalid=true]"), function (input) {
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
      var note = document.getElementById(input.id + "-error");
      if (note) note.remove();
    });
  }

  /** Shows a server error next to its field when the form has that field, else in the status area. */
  function reportIn(form, error) {
    var input = form && error && error.field ? form.elements[error.field] : null;
    if (input && input.id) { fieldError(input, error.message); return; }
    report(error);
  }

  /** Words for a person, from a browser or server error; null when nothing should show. */
  function describe(error) {
    switch (error && error.name) {
      case "AbortError": return null;
      case "NotAllowedError": return t("js.cancelled");
      case "InvalidStateError": return t("js.already_registered");
      case "SecurityError": return t("js.security");
      case "NotSupportedError": return t("js.not_supported");
    }
    if (error && error.reason === "origin_not_allowed") return t("js.origin_not_allowed", { details: error.message });
    return (error && error.message) || t("js.generic");
  }

  /**
   * A sensitive action after an old sign-in: ask for the passkey again, then come back here.
   * Returns whether it took over.
   */
  function reauthenticateFor(error) {
    if (!error || error.reason !== "insufficient_user_authentication") return false;
    location.assign("/login?reauthenticate=1&return_to=" + encodeURIComponent(location.pathname));
    return true;
  }

  function report(error) {
    if (reauthenticateFor(error)) return;
    var message = describe(error);
    if (message) showError(message);
  }

  async function busy(button, work, form) {
    if (button) button.disabled = true;
    setStatus("");
    clearFieldErrors(form);
    try { await work(); } catch (error) { reportIn(form, error); } finally { if (button) button.disabled = false; }
  }

  function requireSupport(form) {
    if (Latchkey.isSupported()) return true;
    var notice = $("#unsupported");
    if (notice) notice.hidden = false;
    if (form) Array.prototype.forEach.call(form.elements, function (element) { element.disabled = true; });
    return false;
  }

  /**
   * Finishes a sign-up or sign-in, then follows the server's redirect; after a passkey on
   * another device, the page first offers one on this device.
   */
  async function startSession(authSession, response, rpId, mediation) {
    try {
      var result = await call("POST", "/ui/session", { auth_session: authSession, response: Latchkey.withoutSecretOutputs(response), return_to: body.dataset.returnTo });
      try { sessionStorage.setItem("latchkey.mediation", mediation); } catch (ignored) { /* storage may be off */ }
      if (result.offer_local_passkey && !localPasskeyDeclined()) { offerLocalPasskey(result.redirect_to); return; }
      location.assign(result.redirect_to);
    } catch (error) {
      if (error.reason === "unknown_credential" && error.credentialId) {
        // The platform keeps offering a passkey the server deleted; tell it to forget it.
        await Latchkey.signalUnknownCredential({ rpId: rpId, credentialId: error.credentialId });
        throw new Error(t("js.unknown_passkey"));
      }
      throw error;
    }
  }

  var pages = {};

  var NO_LOCAL_OFFER = "latchkey.localPasskeyOffer";

  /** Whether the person asked not to be offered a passkey on this device again. */
  function localPasskeyDeclined() {
    try { return localStorage.getItem(NO_LOCAL_OFFER) === "never"; } catch (ignored) { return false; }
  }

  /**
   * "Add a passkey on this device?": the sign-in used a passkey on a phone or tablet. The
   * new passkey is for this device (the `client-device` hint); "Not now" goes on, and
   * remembers "don't ask again" on this device only.
   */
  function offerLocalPasskey(redirectTo) {
    var offer = $("#local-passkey-offer");
    if (!offer) { location.assign(redirectTo); return; }
    $("#sign-in-form").hidden = true;
    offer.hidden = false;
    setStatus("");
    var add = $("#add-local-passkey");
    add.focus();
    add.addEventListener("click", function () {
      busy(add, async function () {
        var challenge = await call("POST", "/ui/passkeys/options", { hints: ["client-device"] });
        setStatus(t("js.follow_create"));
        var response = await Latchkey.create(challenge.options);
        await call("POST", "/ui/passkeys", { auth_session: challenge.auth_session, response: Latchkey.withoutSecretOutputs(response) });
        location.assign(redirectTo);
      });
    });
    $("#skip-local-passkey").addEventListener("click", function () {
      if ($("#never-local-passkey").checked) {
        try { localStorage.setItem(NO_LOCAL_OFFER, "never"); } catch (ignored) { /* storage may be off */ }
      }
      location.assign(redirectTo);
    });
  }

  /**
   * After a password sign-in, an account without a passkey gets one without a prompt when
   * the browser and its password manager allow it (a conditional create). Anything else
   * fails silently, as the platform intends; the page moves on either way, and does not wait
   * long for a browser that never answers.
   */
  async function upgradeToPasskey(upgrade) {
    if (!upgrade || !(await Latchkey.getClientCapabilities()).conditionalCreate) return false;
    var abort = new AbortController();
    var timer = setTimeout(function () { abort.abort(); }, 4000);
    try {
      var response = await Latchkey.create(upgrade.options, { mediation: "conditional", signal: abort.signal });
      await call("POST", "/ui/passkeys", { auth_session: upgrade.auth_session, response: response });
      return true;
    } catch (ignored) {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The password form stays out of the page unless this browser cannot make a passkey. */
  function passwordSignup() {
    var template = $("#password-signup");
    template.parentNode.insertBefore(template.content.cloneNode(true), template);
    var form = $("#password-signup-form");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      busy(form.querySelector("button"), async function () {
        var result = await call("POST", "/ui/password-signup", {
          email: form.elements.email.value.trim(), password: form.elements.password.value, return_to: body.dataset.returnTo
        });
        location.assign(result.redirect_to);
      }, form);
    });
  }

  /** "Already exists": an error, with the way forward. */
  function existsNotice(message) {
    setStatus(message + " ", "error");
    var link = document.createElement("a");
    link.href = "/login";
    link.textContent = t("common.sign_in_instead");
    $("#status").appendChild(link);
  }

  pages.signup = function () {
    var form = $("#signup-form");
    // Sign-up stays passkey-first: a password only where no passkey can be made.
    if (!requireSupport(form)) { passwordSignup(); return; }
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      clearFieldErrors(form);
      var email = form.elements.email ? form.elements.email.value.trim() : "";
      var phone = form.elements.phone_number ? form.elements.phone_number.value.trim() : "";
      if (!email && !phone) {
        fieldError(form.elements.email || form.elements.phone_number,
          t(form.elements.email && form.elements.phone_number ? "field.identifier_required" : form.elements.email ? "field.email_required" : "field.phone_required"));
        return;
      }
      busy(form.querySelector("button"), async function () {
        var payload = { name: form.elements.name.value.trim() };
        if (email) payload.email = email;
        if (phone) payload.phone_number = phone;
        var challenge;
        try {
          challenge = await call("POST", "/ui/signup", payload);
        } catch (error) {
          if (error.reason === "user_exists") { existsNotice(error.message); return; }
          throw error;
        }
        setStatus(t("js.follow_create"));
        var response = await Latchkey.create(challenge.options);
        await startSession(challenge.auth_session, response, challenge.options.rp.id, "create");
      }, form);
    });
  };

  pages.login = function () {
    var passwordForm = $("#password-form");
    var conditional = null;

    async function passwordSignIn(username, password) {
      var result = await call("POST", "/ui/password-session", { username: username, password: password, return_to: body.dataset.returnTo });
      try { sessionStorage.setItem("latchkey.upgraded", String(await upgradeToPasskey(result.upgrade))); } catch (ignored) { /* storage may be off */ }
      location.assign(result.redirect_to);
    }

    passwordForm.addEventListener("submit", function (event) {
      event.preventDefault();
      if (conditional) conditional.abort();
      busy(passwordForm.querySelector("button"), function () {
        return passwordSignIn(passwordForm.elements.username.value.trim(), passwordForm.elements.password.value);
      }, passwordForm);
    });

    var form = $("#login-form");
    if (!requireSupport(form)) {
      $("#password-option").open = true;
      return;
    }
    var rpId = body.dataset.rpId;
    var submit = form.querySelector("button");
    // Immediate sign-in (below) until it finds nothing on this device.
    var immediate = false;

    // What the browser can do decides the page's offers: "use a phone or tablet" only where
    // the browser can reach one, the immediate "Sign in" only where it can ask that way.
    Latchkey.getClientCapabilities().then(function (capabilities) {
      if (capabilities.hybridTransport) $("#hybrid-option").hidden = false;
      immediate = capabilities.immediateGet === true;
      if (immediate) submit.textContent = t("login.submit_immediate");
      body.dataset.capabilities = "read";
    });
    var usePhone = $("#use-phone");
    usePhone.addEventListener("click", function () {
      if (conditional) conditional.abort();
      busy(usePhone, async function () {
        var challenge = await call("POST", "/ui/login", { hints: ["hybrid"] });
        setStatus(t("js.scan"));
        await startSession(challenge.auth_session, await Latchkey.get(challenge.options, {}), rpId, "hybrid");
      });
    });

    async function autofill() {
      if (!(await Latchkey.isConditionalMediationAvailable())) return;
      conditional = new AbortController();
      try {
        var challenge = await call("POST", "/ui/login", {});
        var response = await Latchkey.get(challenge.options, { mediation: "conditional", signal: conditional.signal });
        await startSession(challenge.auth_session, response, rpId, "conditional");
      } catch (error) {
        // Closing the autofill or pressing the button ends this request; that is no error.
        if (error.name === "AbortError" || error.name === "NotAllowedError") return;
        report(error);
      }
    }

    // Immediate sign-in: where the browser can ask without a dialog, the button with no
    // name typed first asks for a passkey or password already on this device; when there is
    // none, no dialog appears and the form is there to type a name into (or to press again
    // for a passkey on another device).
    async function signInImmediately() {
      var challenge = await call("POST", "/ui/login", {});
      var response;
      try {
        response = await Latchkey.get(challenge.options, { mediation: "immediate", password: true });
      } catch (error) {
        if (error.name !== "NotAllowedError") throw error;
        immediate = false;
        submit.textContent = t("login.submit");
        try { sessionStorage.setItem("latchkey.immediate", "none"); } catch (ignored) { /* storage may be off */ }
        setStatus(t("js.nothing_saved"));
        form.elements.username.focus();
        autofill();
        return;
      }
      if (response.type === "password") { await passwordSignIn(response.id, response.password); return; }
      await startSession(challenge.auth_session, response, rpId, "immediate");
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      // Only one WebAuthn request may be pending at a time.
      if (conditional) conditional.abort();
      busy(submit, async function () {
        var username = form.elements.username.value.trim();
        if (immediate && !username) { await signInImmediately(); return; }
        var request = username ? { username: username } : {};
        // An app asked for a passkey bound to one device: the browser offers those first.
        if (new URLSearchParams(location.search).get("step_up") === "3") request.hints = ["security-key", "client-device"];
        var challenge = await call("POST", "/ui/login", request);
        setStatus(t("js.follow_use"));
        var response = await Latchkey.get(challenge.options, {});
        await startSession(challenge.auth_session, response, rpId, "modal");
      }, form);
    });
    autofill();
  };

  function accountData() {
    var element = $("#latchkey-account");
    return element ? JSON.parse(element.textContent) : null;
  }

  function signalAccepted(data) {
    return Latchkey.signalAllAcceptedCredentials({ rpId: data.rpId, userId: data.userId, allAcceptedCredentialIds: data.credentialIds });
  }

  async function addPasskey(button) {
    await busy(button, async function () {
      var challenge = await call("POST", "/ui/passkeys/options", {});
      setStatus(t("js.follow_create"));
      var response = await Latchkey.create(challenge.options);
      var everywhere = $("#sign-out-everywhere");
      var result = await call("POST", "/ui/passkeys", {
        auth_session: challenge.auth_session, response: Latchkey.withoutSecretOutputs(response), sign_out_everywhere: everywhere ? everywhere.checked : undefined
      });
      // After a recovery the session ends with the new passkey: the server says where to go.
      location.assign(result && result.redirect_to ? result.redirect_to : "/account/passkeys?added=1");
    });
  }

  /** "Lost your passkey?": a code by email, or a saved recovery code; either leads to a new passkey. */
  pages.recover = function () {
    var start = $("#recover-start-form");
    var codeForm = $("#recover-code-form");
    var saved = $("#recovery-code-form");
    start.addEventListener("submit", function (event) {
      event.preventDefault();
      busy(start.querySelector("button"), async function () {
        var result = await call("POST", "/ui/recovery/start", { email: start.elements.email.value.trim() });
        codeForm.hidden = false;
        setStatus(result.message);
        codeForm.elements.code.focus();
      }, start);
    });
    codeForm.addEventListener("submit", function (event) {
      event.preventDefault();
      busy(codeForm.querySelector("button"), async function () {
        var result = await call("POST", "/ui/recovery", { email: start.elements.email.value.trim(), code: codeForm.elements.code.value.trim() });
        location.assign(result.redirect_to);
      }, codeForm);
    });
    saved.addEventListener("submit", function (event) {
      event.preventDefault();
      busy(saved.querySelector("button"), async function () {
        var result = await call("POST", "/ui/recovery", { email: saved.elements.email.value.trim(), recovery_code: saved.elements.recovery_code.value.trim() });
        location.assign(result.redirect_to);
      }, saved);
    });
  };

  /** An administrator's enrollment link: the account and code arrive in the fragment. */
  pages["enrollment-link"] = function () {
    var form = $("#enroll-form");
    var given = new URLSearchParams(location.hash.slice(1));
    if (given.get("user")) form.elements.user_id.value = given.get("user");
    if (given.get("code")) form.elements.code.value = given.get("code");
    // The code stays out of the history and of anything that reads the address later.
    if (location.hash) history.replaceState(null, "", location.pathname);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      busy(form.querySelector("button"), async function () {
        var result = await call("POST", "/ui/enroll", { user_id: form.elements.user_id.value.trim(), code: form.elements.code.value.trim() });
        location.assign(result.redirect_to);
      }, form);
    });
  };

  /** The account page's email verification and recovery codes. */
  function accountRecovery() {
    var send = $("#send-verification");
    var verify = $("#verify-email-form");
    var change = $("#change-email-form");
    function askForCode(message) {
      verify.hidden = false;
      setStatus(message);
      verify.elements.code.focus();
    }
    if (send) {
      send.addEventListener("click", function () {
        busy(send, async function () {
          askForCode((await call("POST", "/ui/email-verification", {})).message);
        });
      });
    }
    if (change) {
      change.addEventListener("submit", function (event) {
        event.preventDefault();
        busy(change.querySelector("button"), async function () {
          askForCode((await call("POST", "/ui/profile/email", { email: change.elements.email.value.trim() })).message);
        }, change);
      });
    }
    if (verify) {
      verify.addEventListener("submit", function (event) {
        event.preventDefault();
        busy(verify.querySelector("button"), async function () {
          await call("POST", "/ui/email-verification/verify", { code: verify.elements.code.value.trim() });
          location.reload();
        }, verify);
      });
    }
    var create = $("#create-recovery-codes");
    if (create) {
      create.addEventListener("click", function () {
        busy(create, async function () {
          var result = await call("POST", "/ui/recovery-codes", {});
          var list = $("#recovery-codes");
          list.textContent = "";
          result.recovery_codes.forEach(function (code) {
            var item = document.createElement("li");
            item.textContent = code;
            list.appendChild(item);
          });
          list.hidden = false;
          // The whole sentence anew: its words change with the count (and in Arabic the
          // number is a word for small counts).
          var state = $("#recovery-state");
          if (state) state.textContent = t("account.recovery.remaining", { count: result.recovery_codes.length, time: now() });
          setStatus(t("js.save_codes"));
        });
      });
    }
  }

  pages.account = function () {
    var data = accountData();
    if (data) signalAccepted(data);
    accountRecovery();

    var add = $("#add-passkey");
    add.addEventListener("click", function () { addPasskey(add); });

    /** Revoking the only way to sign in is refused: its button says so before anyone tries. */
    function updateRevokeButtons() {
      var items = document.querySelectorAll("li.passkey");
      var onlyMethod = items.length === 1 && !$("#password-section");
      Array.prototype.forEach.call(items, function (item) {
        var revoke = $("[data-action=revoke]", item);
        var reason = $(".revoke-reason", item);
        revoke.disabled = onlyMethod;
        reason.hidden = !onlyMethod;
        if (onlyMethod) revoke.setAttribute("aria-describedby", reason.id); else revoke.removeAttribute("aria-describedby");
      });
    }

    Array.prototype.forEach.call(document.querySelectorAll("li.passkey"), function (item) {
      var id = item.dataset.credentialId;
      var renameForm = $(".rename-form", item);
      var confirm = $(".confirm", item);
      var actions = $(".actions", item);
      // An open form replaces the buttons that opened it.
      function open(panel) {
        renameForm.hidden = panel !== renameForm;
        confirm.hidden = panel !== confirm;
        actions.hidden = panel !== null;
      }
      item.addEventListener("click", function (event) {
        var action = event.target.dataset && event.target.dataset.action;
        if (action === "rename") { open(renameForm); renameForm.elements.name.focus(); }
        if (action === "revoke") { open(confirm); $("[data-action=confirm-revoke]", confirm).focus(); }
        if (action === "cancel") { open(null); $("[data-action=rename]", item).focus(); }
        if (action === "confirm-revoke") {
          busy(event.target, async function () {
            try {
              var remaining = await call("DELETE", "/ui/passkeys/" + encodeURIComponent(id));
              item.remove();
              updateRevokeButtons();
              await signalAccepted(remaining);
              setStatus(t("js.revoked"));
              var add = $("#add-passkey");
              if (add) add.focus();
            } catch (error) {
              open(null);
              throw error;
            }
          });
        }
      });
      renameForm.addEventListener("submit", function (event) {
        event.preventDefault();
        busy(renameForm.querySelector("button"), async function () {
          var result = await call("PATCH", "/ui/passkeys/" + encodeURIComponent(id), { name: renameForm.elements.name.value });
          $(".name", item).textContent = result.name;
          open(null);
          setStatus(t("js.renamed"));
        }, renameForm);
      });
    });

    // Signing out another device, or every other: the list shrinks in place. (An old
    // sign-in is asked for again first: `report` sends the person to confirm it's them.)
    Array.prototype.forEach.call(document.querySelectorAll("li.place [data-action=end-session]"), function (button) {
      var item = button.closest("li.place");
      button.addEventListener("click", function () {
        busy(button, async function () {
          await call("POST", "/ui/sessions/end", { id: item.dataset.sessionId });
          item.remove();
          if (!document.querySelector("li.place [data-action=end-session]")) removeEndOthers();
          setStatus(t("js.session_ended"));
        });
      });
    });
    function removeEndOthers() {
      var others = $("#end-other-sessions");
      if (others) others.parentNode.remove();
    }
    var endOthers = $("#end-other-sessions");
    if (endOthers) {
      endOthers.addEventListener("click", function () {
        busy(endOthers, async function () {
          var result = await call("POST", "/ui/sessions/end-others", {});
          Array.prototype.forEach.call(document.querySelectorAll("li.place"), function (item) {
            if (item.querySelector("[data-action=end-session]")) item.remove();
          });
          removeEndOthers();
          setStatus(t("js.others_ended", { count: result.ended }));
        });
      });
    }

    // Withdrawing an app's permission also ends its sessions; the list shrinks in place.
    Array.prototype.forEach.call(document.querySelectorAll("li.consent"), function (item) {
      var button = $("[data-action=revoke-consent]", item);
      button.addEventListener("click", function () {
        busy(button, async function () {
          await call("POST", "/ui/consents/revoke", { client_id: item.dataset.clientId });
          var name = $("strong", item).textContent;
          item.remove();
          if (!document.querySelector("li.consent")) $("#consents").remove();
          setStatus(t("js.consent_withdrawn", { app: name }));
        });
      });
    });

    var removePassword = $("#remove-password");
    if (removePassword) {
      removePassword.addEventListener("click", function () {
        busy(removePassword, async function () {
          var result = await call("DELETE", "/ui/password");
          // Removing the password ends the sessions it signed in, this one when it did.
          if (result.redirect_to) { location.assign(result.redirect_to); return; }
          $("#password-section").remove();
          updateRevokeButtons();
          setStatus(t("js.password_removed"));
        });
      });
    }

    var profile = $("#profile-form");
    profile.addEventListener("submit", function (event) {
      event.preventDefault();
      busy(profile.querySelector("button"), async function () {
        var result = await call("PATCH", "/ui/profile", { name: profile.elements.name.value });
        await Latchkey.signalCurrentUserDetails({ rpId: result.rpId, userId: result.userId, name: result.name, displayName: result.displayName });
        setStatus(t("js.name_saved"));
      }, profile);
    });

    var everywhere = $("#signout-everywhere-form");
    everywhere.addEventListener("submit", function (event) {
      event.preventDefault();
      busy(everywhere.querySelector("button"), async function () {
        var result = await call("POST", "/ui/logout-everywhere", {});
        location.assign(result.redirect_to);
      });
    });

    var signout = $("#signout-form");
    signout.addEventListener("submit", function (event) {
      event.preventDefault();
      busy(signout.querySelector("button"), async function () {
        var result = await call("POST", "/ui/logout", {});
        location.assign(result.redirect_to);
      });
    });
  };

  /** The consent page: the person's answer goes back with the request it answers. */
  pages.consent = function () {
    var form = $("#consent-form");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var decision = event.submitter && event.submitter.value === "allow" ? "allow" : "deny";
      busy(event.submitter, async function () {
        var result = await call("POST", "/ui/consent", { request: form.elements.request.value, decision: decision });
        location.assign(result.redirect_to);
      }, form);
    });
  };

  pages.enroll = function () {
    var add = $("#add-passkey");
    if (!requireSupport(null)) { add.disabled = true; return; }
    add.addEventListener("click", function () { addPasskey(add); });
  };

  var page = pages[body.dataset.page];
  if (page) page();
})();
