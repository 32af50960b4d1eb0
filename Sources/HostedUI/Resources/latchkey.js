/*
 * latchkey.js: passkey ceremonies against a Latchkey server.
 *
 *   <script src="https://id.example.com/latchkey.js"></script>
 *   const latchkey = new Latchkey.Client({ baseURL: "https://id.example.com", clientId: "web" });
 *   const tokens = await latchkey.signUp({ email: "ada@example.com", name: "Ada" });
 *   const tokens = await latchkey.signIn();                               // passkey picker
 *   const tokens = await latchkey.signIn({ mediation: "conditional" });   // autofill
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

  /** Creation options JSON (WebAuthn L3 §5.4) → the object navigator.credentials.create takes. */
  function parseCreationOptions(json) {
    if (hasFunction(global.PublicKeyCredential, "parseCreationOptionsFromJSON")) {
      return PublicKeyCredential.parseCreationOptionsFromJSON(json);
    }
    var options = Object.assign({}, json);
    options.challenge = base64url.decode(json.challenge);
    options.user = Object.assign({}, json.user, { id: base64url.decode(json.user.id) });
    if (json.excludeCredentials) options.excludeCredentials = descriptors(json.excludeCredentials);
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
      clientExtensionResults: hasFunction(credential, "getClientExtensionResults") ? credential.getClientExtensionResults() : {},
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

  function isSupported() {
    return !!(global.PublicKeyCredential && global.navigator && navigator.credentials && navigator.credentials.create);
  }

  async function isConditionalMediationAvailable() {
    return isSupported() && hasFunction(PublicKeyCredential, "isConditionalMediationAvailable")
      ? PublicKeyCredential.isConditionalMediationAvailable()
      : false;
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

  /** Signs in with a passkey; `mediation: "conditional"` offers passkeys in autofill. */
  async function get(optionsJSON, settings) {
    settings = settings || {};
    var request = { publicKey: parseRequestOptions(optionsJSON), signal: settings.signal };
    if (settings.mediation) request.mediation = settings.mediation;
    var credential = await navigator.credentials.get(request);
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

  /** An error answer from the server: `code` (OAuth error), `reason`, `credentialId`. */
  function LatchkeyError(status, body) {
    body = body || {};
    this.name = "LatchkeyError";
    this.status = status;
    this.code = body.error || (body.type ? String(body.type).split(":").pop() : "server_error");
    this.reason = body.reason || null;
    this.credentialId = body.credential_id || null;
    this.message = body.error_description || body.detail || "the server answered " + status;
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
    var body = { grant_type: WEBAUTHN_GRANT, client_id: this.clientId, auth_session: authSession, authn_response: response, scope: this.scope };
    if (this.audience) body.audience = this.audience;
    return this.request("/oauth/token", body);
  };

  /** Signs up with a contact identifier and an optional name; returns tokens. */
  Client.prototype.signUp = async function (profile) {
    profile = profile || {};
    var userProfile = {};
    ["email", "phone_number", "username", "name"].forEach(function (key) { if (profile[key]) userProfile[key] = profile[key]; });
    var challenge = await this.request("/passkey/register", { client_id: this.clientId, user_profile: userProfile });
    var response = await create(challenge.authn_params_public_key, { signal: profile.signal });
    return this.token(challenge.auth_session, response);
  };

  /**
   * Signs in; returns tokens. A passkey the server does not know is signalled to the
   * platform, so it stops being offered, before the error is thrown.
   */
  Client.prototype.signIn = async function (settings) {
    settings = settings || {};
    var body = { client_id: this.clientId };
    if (settings.username) body.username = settings.username;
    var challenge = await this.request("/passkey/challenge", body);
    var options = challenge.authn_params_public_key;
    var response = await get(options, { mediation: settings.mediation, signal: settings.signal });
    try {
      return await this.token(challenge.auth_session, response);
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
    return this.request("/me/v1/authentication-methods/passkey%7Cnew/verify", { auth_session: challenge.auth_session, authn_response: response }, accessToken);
  };

  global.Latchkey = {
    version: "1",
    base64url: base64url,
    isSupported: isSupported,
    isConditionalMediationAvailable: isConditionalMediationAvailable,
    parseCreationOptions: parseCreationOptions,
    parseRequestOptions: parseRequestOptions,
    credentialToJSON: credentialToJSON,
    create: create,
    get: get,
    signalUnknownCredential: signalUnknownCredential,
    signalAllAcceptedCredentials: signalAllAcceptedCredentials,
    signalCurrentUserDetails: signalCurrentUserDetails,
    Client: Client,
    LatchkeyError: LatchkeyError
  };
})(typeof window !== "undefined" ? window : this);
