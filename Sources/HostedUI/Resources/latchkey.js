/*
 * latchkey.js: passkey ceremonies against a Latchkey server.
 *
 *   <script src="https://id.example.com/latchkey.js"></script>
 *   const latchkey = new Latchkey.Client({ baseURL: "https://id.example.com", clientId: "web" });
 *   const tokens = await latchkey.signUp({ email: "ada@example.com", name: "Ada" });
 *   const tokens = await latchkey.signIn();                               // passkey picker
 *   const tokens = await latchkey.signIn({ mediation: "conditional" });   // autofill
 *   const tokens = await latchkey.signIn({ mode: "immediate" });  // null: none on this device
 *   await latchkey.enroll(tokens.access_token);                           // add a passkey
 *
 * The lower-level Latchkey.create / Latchkey.get take the server's JSON options and return
 * JSON responses. They use the browser's parseCreationOptionsFromJSON,
 * parseRequestOptionsFromJSON and toJSON where present, and base64url by hand where not.
 */
(function (global) {
  "use strict";

  var WEBAUTHN_GRANT = "urn:okta:params:oauth:grant-type:webauthn";

  var base64url = {
    encode: function (buffer) {
      var bytes = new Uint8Array(buffer);
      var text = "";
      for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
      return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    },
    decode: function (text) {
      var standard = String(text).replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
      var padded = standard + "===".slice((standard.length + 3) % 4);
      var binary = atob(padded);
      var bytes = new Uint8Array(binary.length);
      for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      return bytes.buffer;
    }
  };

  function hasFunction(object, name) {
    return !!object && typeof object[name] === "function";
  }

  function descriptors(list) {
    return (list || []).map(function (descriptor) {
      var copy = Object.assign({}, descriptor, { id: base64url.decode(descriptor.id) });
      return copy;
    });
  }

  /** A PRF input pair, from base64url to bytes. */
  function prfValues(values) {
    var decoded = { first: base64url.decode(values.first) };
    if (values.second !== undefined) decoded.second = base64url.decode(values.second);
    return decoded;
  }

  /** Extension inputs JSON → what the browser takes: PRF salts and a large blob as bytes. */
  function extensionInputs(json) {
    if (!json) return json;
    var inputs = Object.assign({}, json);
    if (json.prf) {
      inputs.prf = {};
      if (json.prf.eval) inputs.prf.eval = prfValues(json.prf.eval);
      if (json.prf.evalByCredential) {
        inputs.prf.evalByCredential = {};
        Object.keys(json.prf.evalByCredential).forEach(function (id) { inputs.prf.evalByCredential[id] = prfValues(json.prf.evalByCredential[id]); });
      }
    }
    if (json.largeBlob && json.largeBlob.write) inputs.largeBlob = Object.assign({}, json.largeBlob, { write: base64url.decode(json.largeBlob.write) });
    return inputs;
  }

  /** Extension outputs → JSON: every byte string (PRF results, a large blob) as base64url. */
  function extensionOutputs(value) {
    if (value instanceof ArrayBuffer) return base64url.encode(value);
    if (ArrayBuffer.isView(value)) return base64url.encode(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
    if (!value || typeof value !== "object" || Array.isArray(value)) return value;
    var json = {};
    Object.keys(value).forEach(function (key) { json[key] = extensionOutputs(value[key]); });
    return json;
  }

  /** Creation options JSON (WebAuthn L3 §5.4) → the object navigator.credentials.create takes. */
  function parseCreationOptions(json) {
    if (hasFunction(global.PublicKeyCredential, "parseCreationOptionsFromJSON")) {
      return PublicKeyCredential.parseCreationOptionsFromJSON(json);
    }
    var options = Object.assign({}, json);
    options.challenge = base64url.decode(json.challenge);
    options.user = Object.assign({}, json.user, { id: base64url.decode(json.user.id) });
    if (json.excludeCredentials) options.excludeCredentials = descriptors(json.excludeCredentials);
    if (json.extensions) options.extensions = extensionInputs(json.extensions);
    return options;
  }

  /** Request options JSON → the object navigator.credentials.get takes. */
  function parseRequestOptions(json) {
    if (hasFunction(global.PublicKeyCredential, "parseRequestOptionsFromJSON")) {
      return PublicKeyCredential.parseRequestOptionsFromJSON(json);
    }
    var options = Object.assign({}, json);
    options.challenge = base64url.decode(json.challenge);
    if (json.allowCredentials) options.allowCredentials = descriptors(json.allowCredentials);
    if (json.extensions) options.extensions = extensionInputs(json.extensions);
    return options;
  }

  /** A PublicKeyCredential → RegistrationResponseJSON or AuthenticationResponseJSON. */
  function credentialToJSON(credential) {
    if (hasFunction(credential, "toJSON")) return credential.toJSON();
    var response = credential.response;
    var json = {
      id: credential.id,
      rawId: base64url.encode(credential.rawId),
      type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
      clientExtensionResults: hasFunction(credential, "getClientExtensionResults") ? extensionOutputs(credential.getClientExtensionResults()) : {},
      response: { clientDataJSON: base64url.encode(response.clientDataJSON) }
    };
    if (response.attestationObject) {
      json.response.attestationObject = base64url.encode(response.attestationObject);
      if (hasFunction(response, "getTransports")) json.response.transports = response.getTransports();
      if (hasFunction(response, "getAuthenticatorData")) json.response.authenticatorData = base64url.encode(response.getAuthenticatorData());
      if (hasFunction(response, "getPublicKeyAlgorithm")) json.response.publicKeyAlgorithm = response.getPublicKeyAlgorithm();
      var publicKey = hasFunction(response, "getPublicKey") ? response.getPublicKey() : null;
      if (publicKey) json.response.publicKey = base64url.encode(publicKey);
    } else {
      json.response.authenticatorData = base64url.encode(response.authenticatorData);
      json.response.signature = base64url.encode(response.signature);
      if (response.userHandle && response.userHandle.byteLength > 0) json.response.userHandle = base64url.encode(response.userHandle);
    }
    return json;
  }

  /**
   * A response as the server gets it: without what only the page should see. PRF results are
   * keys derived on the authenticator for the application's own encryption, and a large blob
   * is the application's data; the server needs neither to verify the ceremony.
   */
  function withoutSecretOutputs(responseJSON) {
    var results = responseJSON && responseJSON.clientExtensionResults;
    if (!results || !(results.prf || (results.largeBlob && results.largeBlob.blob))) return responseJSON;
    var kept = Object.assign({}, results);
    if (kept.prf) kept.prf = kept.prf.enabled === undefined ? undefined : { enabled: kept.prf.enabled };
    if (kept.largeBlob && kept.largeBlob.blob) kept.largeBlob = Object.assign({}, kept.largeBlob, { blob: undefined });
    return Object.assign({}, responseJSON, { clientExtensionResults: JSON.parse(JSON.stringify(kept)) });
  }

  function isSupported() {
    return !!(global.PublicKeyCredential && global.navigator && navigator.credentials && navigator.credentials.create);
  }

  async function isConditionalMediationAvailable() {
    return isSupported() && hasFunction(PublicKeyCredential, "isConditionalMediationAvailable")
      ? PublicKeyCredential.isConditionalMediationAvailable()
      : false;
  }

  var capabilities = null;

  /**
   * What this browser can do (WebAuthn L3 getClientCapabilities: conditionalCreate,
   * hybridTransport, immediateGet, extension:prf, the signal methods…), asked once per page.
   * A browser without the call gets what the older tests say; a key it does not name is
   * not known to be there.
   */
  function getClientCapabilities() {
    if (!capabilities) {
      capabilities = (async function () {
        if (!isSupported()) return {};
        if (hasFunction(PublicKeyCredential, "getClientCapabilities")) {
          try { return Object.assign({}, await PublicKeyCredential.getClientCapabilities()); } catch (ignored) { /* as below */ }
        }
        var derived = { conditionalGet: await isConditionalMediationAvailable() };
        if (hasFunction(PublicKeyCredential, "isUserVerifyingPlatformAuthenticatorAvailable")) {
          derived.userVerifyingPlatformAuthenticator = await PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable();
        }
        return derived;
      })();
    }
    return capabilities;
  }

  /** Whether `signIn({ mode: "immediate" })` can ask the browser without showing a dialog. */
  async function isImmediateSignInAvailable() {
    return (await getClientCapabilities()).immediateGet === true;
  }

  /**
   * Creates a passkey from the server's creation options; returns the response JSON.
   * `mediation: "conditional"` asks for an automatic passkey upgrade after a password sign-in.
   */
  async function create(optionsJSON, settings) {
    settings = settings || {};
    var request = { publicKey: parseCreationOptions(optionsJSON), signal: settings.signal };
    if (settings.mediation) request.mediation = settings.mediation;
    var credential = await navigator.credentials.create(request);
    return credentialToJSON(credential);
  }

  /**
   * Signs in with a passkey; `mediation: "conditional"` offers passkeys in autofill, and
   * `mediation: "immediate"` asks only for a passkey (and with `password: true`, a saved
   * password) already on this device, failing at once with a NotAllowedError, and no dialog,
   * when there is none. A password comes back as `{ type: "password", id, password }`.
   */
  async function get(optionsJSON, settings) {
    settings = settings || {};
    var request = { publicKey: parseRequestOptions(optionsJSON), signal: settings.signal };
    if (settings.mediation === "immediate") request.uiMode = "immediate";
    else if (settings.mediation) request.mediation = settings.mediation;
    if (settings.password) request.password = true;
    var credential = await navigator.credentials.get(request);
    if (credential && credential.type === "password") return { type: "password", id: credential.id, password: credential.password };
    return credentialToJSON(credential);
  }

  // The Signal API (WebAuthn L3 §5.1.10). Each returns whether the browser took the signal;
  // a browser without it, or one that refuses, is not an error for the page.
  function signal(name, argument) {
    if (!hasFunction(global.PublicKeyCredential, name)) return Promise.resolve(false);
    return PublicKeyCredential[name](argument).then(function () { return true; }, function () { return false; });
  }

  function signalUnknownCredential(details) {
    return signal("signalUnknownCredential", { rpId: details.rpId, credentialId: details.credentialId });
  }

  function signalAllAcceptedCredentials(details) {
    return signal("signalAllAcceptedCredentials", {
      rpId: details.rpId, userId: details.userId, allAcceptedCredentialIds: details.allAcceptedCredentialIds
    });
  }

  function signalCurrentUserDetails(details) {
    return signal("signalCurrentUserDetails", {
      rpId: details.rpId, userId: details.userId, name: details.name, displayName: details.displayName
    });
  }

  /**
   * The words latchkey.js shows, by key. English is built in; a hosted page loads its
   * language's first (`/ui/assets/messages/<tag>.js` sets `window.LatchkeyMessages`; an
   * app's page may load one too), and an app may add its own with `Latchkey.setMessages`. A plural entry is an object of CLDR
   * forms (`one`, `other`, …), chosen with `Intl.PluralRules` for the page's `lang`.
   */
  var messages = { "js.server_answered": "The server answered {status}." };
  var pageMessagesRead = false;

  function merge(table) {
    Object.keys(table || {}).forEach(function (key) { messages[key] = table[key]; });
  }

  /** The page's language's messages, once, before anything an app adds. */
  function readPageMessages() {
    if (pageMessagesRead) return;
    pageMessagesRead = true;
    if (global.LatchkeyMessages && typeof global.LatchkeyMessages === "object") merge(global.LatchkeyMessages);
  }

  /** Adds or replaces messages: an app's own words win over the page's. */
  function setMessages(table) {
    readPageMessages();
    merge(table);
  }

  /** The message `key` with its `{name}` placeholders filled from `values`. */
  function message(key, values) {
    readPageMessages();
    var entry = messages[key];
    if (entry && typeof entry === "object") {
      var category = "other";
      try {
        var lang = (typeof document !== "undefined" && document.documentElement.lang) || "en";
        category = new Intl.PluralRules(lang).select(Number(values && values.count));
      } catch (ignored) { /* "other" */ }
      entry = entry[category] !== undefined ? entry[category] : entry.other;
    }
    if (entry === undefined || entry === null) return key;
    return String(entry).replace(/\{([A-Za-z0-9_]+)\}/g, function (all, name) {
      return values && values[name] !== undefined ? String(values[name]) : all;
    });
  }

  /** An error answer from the server: `code` (OAuth error), `reason`, `credentialId`. */
  function LatchkeyError(status, body) {
    body = body || {};
    this.name = "LatchkeyError";
    this.status = status;
    this.code = body.error || (body.type ? String(body.type).split(":").pop() : "server_error");
    this.reason = body.reason || null;
    this.credentialId = body.credential_id || null;
    this.message = body.error_description || body.detail || message("js.server_answered", { status: status });
  }
  LatchkeyError.prototype = Object.create(Error.prototype);
  LatchkeyError.prototype.constructor = LatchkeyError;

  /** A client of the native API: /passkey/*, /oauth/token and /me/v1/authentication-methods. */
  function Client(settings) {
    if (!settings || !settings.clientId) throw new TypeError("Latchkey.Client needs a clientId");
    this.baseURL = String(settings.baseURL || "").replace(/\/+$/, "");
    this.clientId = settings.clientId;
    this.scope = settings.scope || "openid profile email offline_access";
    this.audience = settings.audience;
  }

  Client.prototype.request = async function (path, body, accessToken) {
    var headers = { "Content-Type": "application/json" };
    if (accessToken) headers.Authorization = "Bearer " + accessToken;
    var response = await fetch(this.baseURL + path, { method: "POST", headers: headers, body: JSON.stringify(body) });
    var json = null;
    try { json = await response.json(); } catch (ignored) { json = null; }
    if (!response.ok) throw new LatchkeyError(response.status, json);
    return json;
  };

  Client.prototype.token = function (authSession, response) {
    return this.grant({ grant_type: WEBAUTHN_GRANT, auth_session: authSession, authn_response: withoutSecretOutputs(response) });
  };

  Client.prototype.grant = function (body) {
    body = Object.assign({ client_id: this.clientId, scope: this.scope }, body);
    if (this.audience) body.audience = this.audience;
    return this.request("/oauth/token", body);
  };

  /** The tokens, with the ceremony's extension outputs (PRF results) for the application. */
  function withOutputs(tokens, response, settings) {
    if (settings.extensions && tokens) tokens.clientExtensionResults = response.clientExtensionResults || {};
    return tokens;
  }

  /** The ceremony options a call may choose: `hints`, and `extensions` (PRF, largeBlob…). */
  function choices(body, settings) {
    if (settings.hints) body.hints = settings.hints;
    if (settings.extensions) body.extensions = settings.extensions;
    return body;
  }

  /**
   * Signs up with a contact identifier and an optional name; returns tokens. `settings`
   * may give `hints`, `extensions` (their outputs come back as the tokens'
   * `clientExtensionResults`) and `signal`.
   */
  Client.prototype.signUp = async function (profile, settings) {
    profile = profile || {};
    settings = settings || {};
    var userProfile = {};
    ["email", "phone_number", "username", "name"].forEach(function (key) { if (profile[key]) userProfile[key] = profile[key]; });
    var challenge = await this.request("/passkey/register", choices({ client_id: this.clientId, user_profile: userProfile }, settings));
    var response = await create(challenge.authn_params_public_key, { signal: settings.signal || profile.signal });
    return withOutputs(await this.token(challenge.auth_session, response), response, settings);
  };

  /**
   * Signs in; returns tokens. A passkey the server does not know is signalled to the
   * platform, so it stops being offered, before the error is thrown.
   *
   * `mode: "immediate"` signs in only with a passkey already on this device (or, with
   * `password: true`, a saved password, through the password grant) and resolves to `null`,
   * without any dialog, when there is none, the person dismissed the choice, or the browser
   * cannot ask this way: the moment to show the application's own sign-in form. It needs a
   * user gesture (call it from a button's click). `hints`, `extensions` and `signal` as for
   * sign-up.
   */
  Client.prototype.signIn = async function (settings) {
    settings = settings || {};
    var immediate = settings.mode === "immediate";
    if (immediate && !(await isImmediateSignInAvailable())) return null;
    var body = choices({ client_id: this.clientId }, settings);
    // An immediate request names no account: the browser offers what this device holds.
    if (settings.username && !immediate) body.username = settings.username;
    var challenge = await this.request("/passkey/challenge", body);
    var options = challenge.authn_params_public_key;
    var response;
    try {
      response = await get(options, { mediation: immediate ? "immediate" : settings.mediation, password: immediate && settings.password, signal: settings.signal });
    } catch (error) {
      if (immediate && error.name === "NotAllowedError") return null;
      throw error;
    }
    if (response.type === "password") return this.grant({ grant_type: "password", username: response.id, password: response.password });
    try {
      return withOutputs(await this.token(challenge.auth_session, response), response, settings);
    } catch (error) {
      if (error.reason === "unknown_credential" && error.credentialId) {
        await signalUnknownCredential({ rpId: options.rpId, credentialId: error.credentialId });
      }
      throw error;
    }
  };

  /** Adds a passkey to the signed-in account; returns the new authentication method. */
  Client.prototype.enroll = async function (accessToken, settings) {
    settings = settings || {};
    var challenge = await this.request("/me/v1/authentication-methods", { type: "passkey" }, accessToken);
    var response = await create(challenge.authn_params_public_key, { signal: settings.signal });
    return this.request("/me/v1/authentication-methods/passkey%7Cnew/verify", { auth_session: challenge.auth_session, authn_response: withoutSecretOutputs(response) }, accessToken);
  };

  /** `Latchkey.signIn({ baseURL, clientId, mode: "immediate" })`: a client's sign-in in one call. */
  function signIn(settings) {
    return new Client(settings).signIn(settings);
  }

  global.Latchkey = {
    version: "1",
    base64url: base64url,
    isSupported: isSupported,
    isConditionalMediationAvailable: isConditionalMediationAvailable,
    getClientCapabilities: getClientCapabilities,
    isImmediateSignInAvailable: isImmediateSignInAvailable,
    withoutSecretOutputs: withoutSecretOutputs,
    signIn: signIn,
    parseCreationOptions: parseCreationOptions,
    parseRequestOptions: parseRequestOptions,
    credentialToJSON: credentialToJSON,
    create: create,
    get: get,
    signalUnknownCredential: signalUnknownCredential,
    signalAllAcceptedCredentials: signalAllAcceptedCredentials,
    signalCurrentUserDetails: signalCurrentUserDetails,
    Client: Client,
    LatchkeyError: LatchkeyError,
    message: message,
    setMessages: setMessages
  };
})(typeof window !== "undefined" ? window : this);
