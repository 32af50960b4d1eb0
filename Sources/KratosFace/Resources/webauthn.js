// /.well-known/ory/webauthn.js, as Latchkey's Kratos face serves it to browser flows.
//
// A custom UI renders a flow's nodes as a form, loads this script from the flow's
// `webauthn_script` node, and wires each passkey button's `onclick` (or `onclickTrigger`)
// and the login flow's `onload` (or `onloadTrigger`) to the functions below. Each function
// finds its nodes by name, runs the ceremony with navigator.credentials, writes the result
// as JSON into the hidden node the server reads, and submits the form.
//
// The options arrive as JSON with base64url byte strings; they are decoded by hand rather
// than with PublicKeyCredential.parseCreationOptionsFromJSON, which older browsers lack.
;(function () {
  "use strict"
  if (typeof window === "undefined" || typeof document === "undefined") return

  function decode(text) {
    var base64 = String(text).replace(/-/g, "+").replace(/_/g, "/")
    while (base64.length % 4) base64 += "="
    return Uint8Array.from(atob(base64), function (c) { return c.charCodeAt(0) })
  }

  function encode(buffer) {
    if (!buffer) return undefined
    var bytes = new Uint8Array(buffer), text = ""
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i])
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
  }

  function node(name) {
    return document.getElementsByName(name)[0]
  }

  function supported() {
    return typeof window.PublicKeyCredential !== "undefined" && !!navigator.credentials
  }

  // Tells the page what went wrong: the event lets a UI show it, the console keeps it
  // for the developer. A dismissed prompt (NotAllowedError) is an event too.
  function report(element, error) {
    console.error("passkey:", error)
    var target = (element && element.closest && element.closest("form")) || document
    target.dispatchEvent(new CustomEvent("passkeyerror", { bubbles: true, detail: { name: error && error.name, message: String(error && error.message || error) } }))
  }

  function descriptors(list) {
    return (list || []).map(function (item) {
      var copy = Object.assign({}, item)
      copy.id = decode(item.id)
      return copy
    })
  }

  function creationOptions(publicKey) {
    var options = Object.assign({}, publicKey)
    options.challenge = decode(publicKey.challenge)
    options.user = Object.assign({}, publicKey.user, { id: decode(publicKey.user.id) })
    if (publicKey.excludeCredentials) options.excludeCredentials = descriptors(publicKey.excludeCredentials)
    return options
  }

  function requestOptions(publicKey) {
    var options = Object.assign({}, publicKey)
    options.challenge = decode(publicKey.challenge)
    if (publicKey.allowCredentials) options.allowCredentials = descriptors(publicKey.allowCredentials)
    return options
  }

  // A PublicKeyCredential as the JSON the server reads, with `response` already encoded.
  function credentialJSON(credential, response) {
    return {
      id: credential.id,
      rawId: encode(credential.rawId),
      type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
      clientExtensionResults: credential.getClientExtensionResults ? credential.getClientExtensionResults() : {},
      response: response,
    }
  }

  function attestationJSON(credential) {
    var response = credential.response
    return credentialJSON(credential, {
      attestationObject: encode(response.attestationObject),
      clientDataJSON: encode(response.clientDataJSON),
      transports: response.getTransports ? response.getTransports() : undefined,
    })
  }

  function assertionJSON(credential) {
    var response = credential.response
    return credentialJSON(credential, {
      authenticatorData: encode(response.authenticatorData),
      clientDataJSON: encode(response.clientDataJSON),
      signature: encode(response.signature),
      userHandle: encode(response.userHandle),
    })
  }

  // form.submit(), not requestSubmit(): the login form's identifier is `required`, and a
  // passkey sign-in must not be stopped by an empty username field.
  function submit(result, value) {
    result.value = JSON.stringify(value)
    result.closest("form").submit()
  }

  // The display name a registration shows in the passkey manager: the first non-empty
  // trait the flow names, as Kratos's own script does.
  function displayName(form, data) {
    var names = (data.displayNameFieldNames || []).concat(data.displayNameFieldName ? [data.displayNameFieldName] : [])
    var first = null
    for (var i = 0; i < names.length; i++) {
      var input = form.querySelector("[name='" + names[i].replace(/'/g, "") + "']")
      if (!input) continue
      first = first || input
      if (input.value) return { value: input.value }
    }
    return { missing: first }
  }

  function passkeyRegistration() {
    var data = node("passkey_create_data"), result = node("passkey_register")
    if (!data || !result) return console.debug("passkey: this page has no registration nodes")
    if (!supported()) return alert("This browser does not support passkeys.")
    var createData = JSON.parse(data.value)
    var form = result.closest("form")
    var name = displayName(form, createData)
    if (!name.value) {
      // Creating a passkey for an account that cannot be saved would leave it orphaned
      // in the user's passkey manager; ask for the trait first.
      if (name.missing && name.missing.reportValidity) name.missing.reportValidity()
      return
    }
    var publicKey = creationOptions(createData.credentialOptions.publicKey)
    publicKey.user.name = name.value
    publicKey.user.displayName = name.value
    abortConditionalUI()
    return navigator.credentials.create({ publicKey: publicKey }).then(
      function (credential) { submit(result, attestationJSON(credential)) },
      function (error) { report(result, error) }
    )
  }

  function passkeySettingsRegistration() {
    var data = node("passkey_create_data"), result = node("passkey_settings_register")
    if (!data || !result) return console.debug("passkey: this page has no settings registration nodes")
    if (!supported()) return alert("This browser does not support passkeys.")
    var publicKey = creationOptions(JSON.parse(data.value).publicKey)
    return navigator.credentials.create({ publicKey: publicKey }).then(
      function (credential) { submit(result, attestationJSON(credential)) },
      function (error) { report(result, error) }
    )
  }

  function abortConditionalUI() {
    if (window.abortPasskeyConditionalUI) {
      window.abortPasskeyConditionalUI.abort("a modal passkey prompt replaces the autofill one")
      window.abortPasskeyConditionalUI = undefined
    }
  }

  function passkeyLogin() {
    var data = node("passkey_challenge"), result = node("passkey_login")
    if (!data || !result) return console.debug("passkey: this page has no login nodes")
    if (!supported()) return alert("This browser does not support passkeys.")
    abortConditionalUI()
    var publicKey = requestOptions(JSON.parse(data.value).publicKey)
    return navigator.credentials.get({ publicKey: publicKey }).then(
      function (credential) { submit(result, assertionJSON(credential)) },
      function (error) { report(result, error) }
    )
  }

  // Offers the account's passkeys in the identifier field's autofill (conditional
  // mediation), where the browser supports it; elsewhere the button remains.
  function passkeyLoginAutocompleteInit() {
    var data = node("passkey_challenge"), result = node("passkey_login"), identifier = node("identifier")
    if (!data || !result || !identifier) return Promise.resolve(console.debug("passkey: this page has no login nodes"))
    if (!supported() || typeof PublicKeyCredential.isConditionalMediationAvailable !== "function") return Promise.resolve()
    return PublicKeyCredential.isConditionalMediationAvailable().then(function (available) {
      if (!available) return
      abortConditionalUI()
      var controller = new AbortController()
      window.abortPasskeyConditionalUI = controller
      var publicKey = requestOptions(JSON.parse(data.value).publicKey)
      return navigator.credentials.get({ publicKey: publicKey, mediation: "conditional", signal: controller.signal }).then(
        function (credential) {
          if (window.abortPasskeyConditionalUI === controller) window.abortPasskeyConditionalUI = undefined
          submit(result, assertionJSON(credential))
        },
        function (error) {
          // Aborted for a modal prompt: not an error the user needs to see.
          if (!controller.signal.aborted) report(result, error)
        }
      )
    })
  }

  var functions = {
    oryPasskeyLogin: passkeyLogin,
    oryPasskeyLoginAutocompleteInit: passkeyLoginAutocompleteInit,
    oryPasskeyRegistration: passkeyRegistration,
    oryPasskeySettingsRegistration: passkeySettingsRegistration,
  }
  // Kratos's script exposes each function under both names; UIs call either.
  Object.keys(functions).forEach(function (name) {
    window[name] = functions[name]
    window["__" + name] = functions[name]
  })
})()
