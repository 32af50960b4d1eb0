import Foundation
import IdentityCore
import WebAuthn

/// The bodies of the hosted pages. Pages carry no inline script: the Content Security
/// Policy allows scripts from this server only, and data reaches the scripts through data
/// attributes and JSON blocks.
enum Pages {
    /// The page's one status area: each message replaces the last, errors styled as such.
    /// It is a polite live region; the script makes it assertive for an error.
    static func statusArea(_ notice: String? = nil) -> String {
        "<p id=\"status\" class=\"status\" role=\"status\" aria-live=\"polite\">\(notice.map(HTML.escape) ?? "")</p>"
    }
    static let unsupported = """
        <p id="unsupported" class="error" role="alert" hidden>This browser cannot use passkeys. Use a current version of \
        Safari, Chrome, Edge or Firefox, or another device.</p>
        """

    static func home(siteName: String) -> String {
        """
        <h1>Welcome to \(HTML.escape(siteName))</h1>
        <p>Sign in with a passkey: no password to remember, nothing to phish. Your device unlocks it with your face, \
        fingerprint or screen lock.</p>
        <p class="actions"><a class="button" href="/signup">Create an account</a> <a class="button secondary" href="/login">Sign in</a></p>
        """
    }

    static func signup(identifiers: Set<ProfileValidation.IdentifierKind>) -> String {
        var fields = ""
        if identifiers.contains(.email) {
            fields += """
                <label for="email">Email</label>
                <input id="email" name="email" type="email" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="320"\(identifiers.contains(.phoneNumber) ? "" : " required")>
                """
        }
        if identifiers.contains(.phoneNumber) {
            fields += """
                <label for="phone">Phone number\(identifiers.contains(.email) ? " <span class=\"hint\">(or instead of email)</span>" : "")</label>
                <input id="phone" name="phone_number" type="tel" autocomplete="tel" inputmode="tel" placeholder="+1 555 010 1234" maxlength="32">
                """
        }
        return """
            <h1>Create your account</h1>
            <p>There is no password. You will create a passkey on this device.</p>
            \(unsupported)
            <form id="signup-form" novalidate>
            \(fields)
            <label for="name">Name <span class="hint">(optional)</span></label>
            <input id="name" name="name" autocomplete="name" maxlength="100">
            <button type="submit">Create a passkey</button>
            </form>
            <template id="password-signup">
            <form id="password-signup-form" novalidate>
            <h2>Use a password instead</h2>
            <p>This browser cannot create a passkey, so you can start with a password and add a passkey later from another device.</p>
            <label for="password-signup-email">Email</label>
            <input id="password-signup-email" name="email" type="email" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="320">
            <label for="password-signup-password">Password <span class="hint">(at least 8 characters)</span></label>
            <input id="password-signup-password" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="1024">
            <button type="submit">Create account with a password</button>
            </form>
            </template>
            \(statusArea())
            <p class="alt">Already have an account? <a href="/login">Sign in</a></p>
            """
    }

    static func login(notice: String?) -> String {
        """
        <h1>Sign in</h1>
        \(unsupported)
        <div id="sign-in-form">
        <form id="login-form" novalidate>
        <label for="username">Email or phone number</label>
        <input id="username" name="username" type="text" autocomplete="username webauthn" autocapitalize="none" spellcheck="false" maxlength="320">
        <button type="submit">Sign in with a passkey</button>
        </form>
        <p class="hint">Pick your passkey from the suggestions on the field, or press the button.</p>
        <p class="alt" id="hybrid-option" hidden><button type="button" class="link" id="use-phone">Use a passkey on a phone or tablet</button></p>
        <details id="password-option">
        <summary>Sign in with a password</summary>
        <form id="password-form" novalidate>
        <label for="password-username">Email</label>
        <input id="password-username" name="username" type="email" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="320">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" maxlength="1024">
        <button type="submit">Sign in with password</button>
        </form>
        </details>
        </div>
        <section id="local-passkey-offer" hidden aria-labelledby="local-passkey-title">
        <h2 id="local-passkey-title">Add a passkey on this device?</h2>
        <p>You signed in with a passkey on another device. With one here, you sign in without reaching for it.</p>
        <button type="button" id="add-local-passkey">Add a passkey</button> <button type="button" id="skip-local-passkey" class="secondary">Not now</button>
        <label class="check"><input type="checkbox" id="never-local-passkey"> Don't ask again on this device</label>
        </section>
        \(statusArea(notice))
        <p class="alt"><a href="/recover" id="lost-passkey">Lost your passkey?</a></p>
        <p class="alt">New here? <a href="/signup">Create an account</a></p>
        """
    }

    /// "Lost your passkey?": a code by email to a verified address, or a saved recovery code.
    static func recover(codeMinutes: Int) -> String {
        """
        <h1>Get back into your account</h1>
        <p>Lost every passkey? Get a code by email, or use one of the recovery codes you saved. \
        Either lets you create a new passkey, and nothing else, for 15 minutes.</p>
        <form id="recover-start-form" novalidate>
        <label for="recover-email">Email address of your account</label>
        <input id="recover-email" name="email" type="email" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="320">
        <button type="submit">Email me a code</button>
        </form>
        <form id="recover-code-form" novalidate hidden>
        <label for="recover-code">Code from the email (it works for \(codeMinutes) minutes)</label>
        <input id="recover-code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="32">
        <button type="submit">Continue</button>
        </form>
        <details id="recovery-code-option">
        <summary>Use a recovery code</summary>
        <form id="recovery-code-form" novalidate>
        <label for="saved-email">Email address of your account</label>
        <input id="saved-email" name="email" type="email" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="320">
        <label for="saved-code">Recovery code</label>
        <input id="saved-code" name="recovery_code" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="64" placeholder="XXXX-XXXX-XXXX-XXXX">
        <button type="submit">Use recovery code</button>
        </form>
        </details>
        \(statusArea())
        <p class="alt"><a href="/login">Back to sign in</a></p>
        """
    }

    /// An administrator's enrollment link: the user and code come in the URL's fragment
    /// (filled in by the page's script), or are typed.
    static func enrollmentLink() -> String {
        """
        <h1>Add a passkey to your account</h1>
        <p>Your administrator sent you this link. It lets you create a passkey on this device, once.</p>
        <form id="enroll-form" novalidate>
        <label for="enroll-user">Account ID</label>
        <input id="enroll-user" name="user_id" autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="200">
        <label for="enroll-code">Code</label>
        <input id="enroll-code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="32">
        <button type="submit">Continue</button>
        </form>
        \(statusArea())
        <p class="alt"><a href="/login">Sign in instead</a></p>
        """
    }

    /// The account page's email address: verified, or a way to verify it; and a way to
    /// change it (the new address is proved by a code before it replaces this one).
    static func emailSection(_ user: User) -> String {
        guard let email = user.profile.email else { return "" }
        let state = user.isEmailVerified
            ? "<p><strong>\(HTML.escape(email))</strong> <span class=\"badge\" id=\"email-verified\">verified</span></p>"
            : """
                <p><strong>\(HTML.escape(email))</strong> is not verified yet. A verified address can get you back in if you lose your passkeys.</p>
                <p><button type="button" id="send-verification">Send a verification code</button></p>
                """
        return """
            <section id="email-section" aria-labelledby="email-heading">
            <h2 id="email-heading">Email address</h2>
            \(state)
            <details id="change-email-option">
            <summary>Change email address</summary>
            <form id="change-email-form" class="inline" novalidate>
            <label for="new-email">New email address</label>
            <input id="new-email" name="email" type="email" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="320">
            <button type="submit">Send a code to it</button>
            </form>
            </details>
            <form id="verify-email-form" class="inline" novalidate hidden>
            <label for="verification-code">Code from the email</label>
            <input id="verification-code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="32">
            <button type="submit">Verify</button>
            </form>
            </section>
            """
    }

    /// The account page's saved recovery codes: how many are left, and a new set on demand.
    static func recoveryCodesSection(remaining: Int, createdAt: Date?) -> String {
        let state = createdAt.map { "You have <strong id=\"recovery-remaining\">\(remaining)</strong> unused recovery codes (made \(HTML.time($0)))." }
            ?? "You have no recovery codes yet."
        return """
            <section id="recovery-codes-section" aria-labelledby="recovery-codes-heading">
            <h2 id="recovery-codes-heading">Recovery codes</h2>
            <p>\(state) Each code gets you back in once if you lose every passkey. Keep them somewhere safe, away from this device.</p>
            <p><button type="button" id="create-recovery-codes">\(createdAt == nil ? "Create recovery codes" : "Replace your recovery codes")</button></p>
            <ol id="recovery-codes" hidden></ol>
            </section>
            """
    }

    /// The data the account page's script needs for the Signal API.
    struct AccountData: Encodable {
        let rpId, userId, name, displayName: String
        let credentialIds: [String]
    }

    static func account(
        user: User, passkeys: [PasskeyCredential], password: PasswordRecord?, names: AuthenticatorNames, data: AccountData, notice: String?,
        consents: [(consent: Consent, clientName: String)] = [], recoveryCodes: (remaining: Int, createdAt: Date?) = (0, nil), accountCenter: String = ""
    ) -> String {
        let titles = distinctTitles(passkeys, names: names)
        // Revoking the only way to sign in is refused; the page says so before anyone tries.
        let isLastMethod = passkeys.count == 1 && password == nil
        let items = zip(passkeys, titles).map { passkeyItem($0, title: $1, names: names, isLastMethod: isLastMethod) }.joined(separator: "\n")
        // The last step of the passkey journey, offered once a passkey can take over.
        let passwordSection = password.map { record in
            let removal = passkeys.isEmpty
                ? "<p class=\"hint\">Add a passkey first; then you can remove the password.</p>"
                : "<p><button type=\"button\" class=\"danger\" id=\"remove-password\">Remove password</button></p>"
            return """
                <section id="password-section" aria-labelledby="password-heading">
                <h2 id="password-heading">Password</h2>
                <p>This account still has a password (set \(HTML.time(record.createdAt))). Passkeys cannot be phished; \
                once you have one, the password only adds risk.</p>
                \(removal)
                </section>
                """
        } ?? ""
        return """
            <h1>Your account</h1>
            \(statusArea(notice))
            <section aria-labelledby="profile-heading">
            <h2 id="profile-heading">Profile</h2>
            <p>Signed in as <strong id="account-name">\(HTML.escape(user.accountName))</strong></p>
            <form id="profile-form" class="inline">
            <label for="display-name">Display name</label>
            <input id="display-name" name="name" autocomplete="name" maxlength="100" value="\(HTML.escape(user.profile.name ?? ""))">
            <button type="submit">Save name</button>
            </form>
            </section>
            <section id="passkeys" aria-labelledby="passkeys-heading">
            <h2 id="passkeys-heading">Passkeys</h2>
            <ul class="passkeys">
            \(items)
            </ul>
            <p><button type="button" id="add-passkey">Add a passkey</button></p>
            </section>
            \(accountCenter)
            \(emailSection(user))
            \(recoveryCodesSection(remaining: recoveryCodes.remaining, createdAt: recoveryCodes.createdAt))
            \(passwordSection)
            \(Self.consents(consents))
            <form id="signout-form"><button type="submit" class="secondary">Sign out</button></form>
            <form id="signout-everywhere-form"><button type="submit" class="secondary">Sign out everywhere</button>
            <span class="hint">Ends every session of this account, on every device and app.</span></form>
            <script type="application/json" id="latchkey-account">\(HTML.jsonScript(data))</script>
            """
    }

    /// What each passkey is called on the page: the person's name for it, else its
    /// provider's, else "Passkey"; a title shared by several gets a number, so that every
    /// passkey (and every button's label) can be told apart.
    static func distinctTitles(_ passkeys: [PasskeyCredential], names: AuthenticatorNames) -> [String] {
        let titles = passkeys.map { names.displayName(of: $0) }
        var seen: [String: Int] = [:]
        return titles.map { title in
            guard titles.filter({ $0 == title }).count > 1 else { return title }
            seen[title, default: 0] += 1
            return "\(title) \(seen[title]!)"
        }
    }

    private static func passkeyItem(_ credential: PasskeyCredential, title: String, names: AuthenticatorNames, isLastMethod: Bool) -> String {
        let provider = names.entry(for: credential.aaguid)
        let id = Base64URL.encode(credential.credentialID)
        let icon = provider?.iconLight.flatMap { $0.hasPrefix("data:image/") ? $0 : nil }
            .map { "<img class=\"provider-icon\" src=\"\(HTML.escape($0))\" alt=\"\" width=\"32\" height=\"32\">" }
            ?? "<span class=\"provider-icon generic\" aria-hidden=\"true\"></span>"
        // The provider is the title until the person names the passkey; then it is a detail.
        // An unknown provider is not worth a line of its own.
        let meta = (credential.name != nil ? provider.map { [HTML.escape($0.name)] } ?? [] : []) + [
            "Created " + HTML.time(credential.createdAt),
            credential.lastUsedAt.map { "Last used " + HTML.time($0) } ?? "Not used to sign in yet",
        ]
        // Whether it can sync (backup eligible) is fixed when the passkey is made; whether it
        // has synced yet is a detail the person cannot act on.
        let synced = " <span class=\"badge\">\(credential.isBackupEligible ? "Synced" : "This device only")</span>"
        let reasonID = "revoke-reason-" + id
        let revoke = isLastMethod
            ? "<button type=\"button\" class=\"danger\" data-action=\"revoke\" aria-label=\"Revoke \(HTML.escape(title))\" disabled aria-describedby=\"\(reasonID)\">Revoke</button>"
            : "<button type=\"button\" class=\"danger\" data-action=\"revoke\" aria-label=\"Revoke \(HTML.escape(title))\">Revoke</button>"
        return """
            <li class="passkey" data-credential-id="\(id)">
            \(icon)
            <div class="details">
            <p class="passkey-name"><span class="name">\(HTML.escape(title))</span>\(synced)</p>
            <p class="meta">\(meta.joined(separator: " · "))</p>
            <form class="rename-form" hidden>
            <label>New name for \(HTML.escape(title)) <input name="name" maxlength="100" value="\(HTML.escape(credential.name ?? ""))"></label>
            <button type="submit">Save</button> <button type="button" class="secondary" data-action="cancel">Cancel</button>
            </form>
            <div class="confirm" hidden>
            <p>Revoke \(HTML.escape(title))? You will no longer be able to sign in with it.</p>
            <button type="button" class="danger" data-action="confirm-revoke">Revoke passkey</button> <button type="button" class="secondary" data-action="cancel">Keep it</button>
            </div>
            </div>
            <div class="actions">
            <button type="button" class="secondary" data-action="rename" aria-label="Rename \(HTML.escape(title))">Rename</button>
            \(revoke)
            <p class="hint revoke-reason" id="\(reasonID)"\(isLastMethod ? "" : " hidden")>This is your only way to sign in. Add another passkey before you revoke this one.</p>
            </div>
            </li>
            """
    }

    /// The consent page: who asks, what each scope lets it do, and the two answers. The
    /// authorization request travels back as its query string, checked again on the answer.
    static func consent(clientName: String, scopes: [String], request: String) -> String {
        let items = scopes.map { "<li>\(HTML.escape(Scopes.meaning(of: $0)))</li>" }.joined(separator: "\n")
        return """
            <h1>Allow \(HTML.escape(clientName))?</h1>
            <p><strong>\(HTML.escape(clientName))</strong> is asking to use your account. If you allow it, it can:</p>
            <ul class="scopes">
            \(items)
            </ul>
            <p class="hint">You can withdraw this permission at any time on your account page.</p>
            \(statusArea())
            <form id="consent-form">
            <input type="hidden" name="request" value="\(HTML.escape(request))">
            <p class="actions"><button type="submit" name="decision" value="allow">Allow</button> \
            <button type="submit" name="decision" value="deny" class="secondary">Don't allow</button></p>
            </form>
            """
    }

    /// The account page's list of applications the person allowed.
    static func consents(_ consents: [(consent: Consent, clientName: String)]) -> String {
        guard !consents.isEmpty else { return "" }
        let items = consents.map { item in
            let meanings = item.consent.scopes.map { HTML.escape(Scopes.meaning(of: $0)) }.joined(separator: "; ")
            return """
                <li class="consent" data-client-id="\(HTML.escape(item.consent.clientID))">
                <p><strong>\(HTML.escape(item.clientName))</strong>, allowed \(HTML.time(item.consent.grantedAt))</p>
                <p class="meta">\(meanings)</p>
                <button type="button" class="danger" data-action="revoke-consent" aria-label="Withdraw permission for \(HTML.escape(item.clientName))">\
                Withdraw permission</button>
                </li>
                """
        }.joined(separator: "\n")
        return """
            <section id="consents" aria-labelledby="consents-heading">
            <h2 id="consents-heading">Apps you allowed</h2>
            <ul class="consents">
            \(items)
            </ul>
            </section>
            """
    }

    /// The recovery's last step offers to end every other session: a lost device may be in
    /// someone else's hands. (Recovery by an emailed code has ended them already.)
    static let signOutEverywhereChoice = """
        <p><label class="choice"><input type="checkbox" id="sign-out-everywhere"> Sign out everywhere else \
        (your other devices and apps sign in again)</label></p>
        """

    static func enroll(accountName: String, recovering: Bool = false) -> String {
        let intro = recovering
            ? "<p id=\"recovered-notice\">You are back in. Create a new passkey for <strong>\(HTML.escape(accountName))</strong> now: " +
                "for the next 15 minutes this is the one thing you can do, and then you sign in with it.</p>"
            : "<p>Create another passkey for <strong>\(HTML.escape(accountName))</strong>, on this device or on a security key, " +
                "so that you can still sign in if you lose one.</p>"
        return """
        <h1>Add a passkey</h1>
        \(intro)
        \(unsupported)
        \(recovering ? signOutEverywhereChoice : "")
        <p><button type="button" id="add-passkey">Create a passkey</button></p>
        \(statusArea())
        \(recovering ? "" : "<p class=\"alt\"><a href=\"/account/passkeys\">Back to your passkeys</a></p>")
        """
    }

    static func notFound(path: String) -> String {
        """
        <h1>Page not found</h1>
        <p>There is no page at <code>\(HTML.escape(String(path.prefix(200))))</code>. The link may be old, or mistyped.</p>
        <p class="actions"><a class="button" href="/">Go to the start page</a> <a class="button secondary" href="/account">Your account</a></p>
        """
    }

    static func error(title: String, message: String, code: String) -> String {
        """
        <h1>\(HTML.escape(title))</h1>
        <p class="error" role="alert">\(HTML.escape(message))</p>
        <p class="hint">Error code: <code>\(HTML.escape(code))</code>. If a link brought you here, tell the site that sent you.</p>
        <p class="alt"><a href="/">Go to the start page</a></p>
        """
    }

    /// RP-Initiated Logout's question when no ID token says which app asks: the answer posts
    /// back with the request's own parameters and the page's CSRF token.
    static func logoutConfirmation(appName: String?, fields: [String: String], csrfToken: String) -> String {
        let who = appName.map { "<strong>\(HTML.escape($0))</strong> asks you to sign out." } ?? "An app asks you to sign out."
        let hidden = fields.sorted { $0.key < $1.key }.map { "<input type=\"hidden\" name=\"\(HTML.escape($0.key))\" value=\"\(HTML.escape($0.value))\">" }
        return """
        <h1>Sign out?</h1>
        <p>\(who) You will need to sign in again here.</p>
        <form method="post" action="/oidc/logout" id="logout-form">
        \(hidden.joined(separator: "\n"))
        <input type="hidden" name="csrf_token" value="\(HTML.escape(csrfToken))">
        <input type="hidden" name="confirm" value="yes">
        <button type="submit">Sign out</button>
        </form>
        <p class="alt"><a href="/account">Stay signed in</a></p>
        """
    }

    /// After signing out at an app's request, with nowhere to send the browser back.
    static func signedOut(siteName: String) -> String {
        """
        <h1>You are signed out</h1>
        <p id="signed-out-notice">You are signed out of \(HTML.escape(siteName)). You can close this page.</p>
        <p class="alt"><a href="/login">Sign in again</a></p>
        """
    }
}
