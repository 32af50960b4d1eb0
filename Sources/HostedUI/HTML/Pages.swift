import Foundation
import IdentityCore
import Localization
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
    static func unsupported(_ t: Strings) -> String {
        "<p id=\"unsupported\" class=\"error\" role=\"alert\" hidden>\(t.html("common.unsupported"))</p>"
    }

    static func home(_ t: Strings, siteName: String) -> String {
        """
        <h1>\(t.escaped("home.heading", ["site": siteName]))</h1>
        <p>\(t.html("home.intro"))</p>
        <p class="actions"><a class="button" href="/signup">\(t.html("home.create_account"))</a> <a class="button secondary" href="/login">\(t.html("home.sign_in"))</a></p>
        """
    }

    static func signup(_ t: Strings, identifiers: Set<ProfileValidation.IdentifierKind>) -> String {
        var fields = ""
        if identifiers.contains(.email) {
            fields += """
                <label for="email">\(t.html("common.email"))</label>
                <input id="email" name="email" type="email" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="320"\(identifiers.contains(.phoneNumber) ? "" : " required")>
                """
        }
        if identifiers.contains(.phoneNumber) {
            let hint = identifiers.contains(.email) ? " <span class=\"hint\">\(t.html("signup.phone_or_email"))</span>" : ""
            fields += """
                <label for="phone">\(t.html("signup.phone"))\(hint)</label>
                <input id="phone" name="phone_number" type="tel" autocomplete="tel" inputmode="tel" dir="ltr" placeholder="+1 555 010 1234" maxlength="32">
                """
        }
        return """
            <h1>\(t.html("signup.title"))</h1>
            <p>\(t.html("signup.intro"))</p>
            \(unsupported(t))
            <form id="signup-form" novalidate>
            \(fields)
            <label for="name">\(t.html("signup.name")) <span class="hint">\(t.html("common.optional"))</span></label>
            <input id="name" name="name" autocomplete="name" maxlength="100">
            <button type="submit">\(t.html("signup.submit"))</button>
            </form>
            <template id="password-signup">
            <form id="password-signup-form" novalidate>
            <h2>\(t.html("signup.password.heading"))</h2>
            <p>\(t.html("signup.password.intro"))</p>
            <label for="password-signup-email">\(t.html("common.email"))</label>
            <input id="password-signup-email" name="email" type="email" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="320">
            <label for="password-signup-password">\(t.html("common.password")) <span class="hint">\(t.html("signup.password.length", count: PasswordPolicy.minimumLength))</span></label>
            <input id="password-signup-password" name="password" type="password" autocomplete="new-password" minlength="\(PasswordPolicy.minimumLength)" maxlength="1024">
            <button type="submit">\(t.html("signup.password.submit"))</button>
            </form>
            </template>
            \(statusArea())
            <p class="alt">\(t.html("signup.have_account")) <a href="/login">\(t.html("home.sign_in"))</a></p>
            """
    }

    static func login(_ t: Strings, notice: String?) -> String {
        """
        <h1>\(t.html("login.title"))</h1>
        \(unsupported(t))
        <div id="sign-in-form">
        <form id="login-form" novalidate>
        <label for="username">\(t.html("login.username"))</label>
        <input id="username" name="username" type="text" autocomplete="username webauthn" autocapitalize="none" spellcheck="false" maxlength="320">
        <button type="submit">\(t.html("login.submit"))</button>
        </form>
        <p class="hint">\(t.html("login.hint"))</p>
        <p class="alt" id="hybrid-option" hidden><button type="button" class="link" id="use-phone">\(t.html("login.use_phone"))</button></p>
        <details id="password-option">
        <summary>\(t.html("login.password.summary"))</summary>
        <form id="password-form" novalidate>
        <label for="password-username">\(t.html("common.email"))</label>
        <input id="password-username" name="username" type="email" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="320">
        <label for="password">\(t.html("common.password"))</label>
        <input id="password" name="password" type="password" autocomplete="current-password" maxlength="1024">
        <button type="submit">\(t.html("login.password.submit"))</button>
        </form>
        </details>
        </div>
        <section id="local-passkey-offer" hidden aria-labelledby="local-passkey-title">
        <h2 id="local-passkey-title">\(t.html("login.local_offer.heading"))</h2>
        <p>\(t.html("login.local_offer.text"))</p>
        <button type="button" id="add-local-passkey">\(t.html("login.local_offer.add"))</button> <button type="button" id="skip-local-passkey" class="secondary">\(t.html("login.local_offer.skip"))</button>
        <label class="check"><input type="checkbox" id="never-local-passkey"> \(t.html("login.local_offer.never"))</label>
        </section>
        \(statusArea(notice))
        <p class="alt"><a href="/recover" id="lost-passkey">\(t.html("login.lost_passkey"))</a></p>
        <p class="alt">\(t.html("login.new_here")) <a href="/signup">\(t.html("home.create_account"))</a></p>
        """
    }

    /// How long a recovery's session may add a passkey, in minutes, as the pages say it.
    static let recoveryMinutes = Int(TokenService.recoveryTokenLifetime / 60)

    /// "Lost your passkey?": a code by email to a verified address, or a saved recovery code.
    static func recover(_ t: Strings, codeMinutes: Int) -> String {
        """
        <h1>\(t.html("recover.title"))</h1>
        <p>\(t.html("recover.intro", count: recoveryMinutes))</p>
        <form id="recover-start-form" novalidate>
        <label for="recover-email">\(t.html("recover.email"))</label>
        <input id="recover-email" name="email" type="email" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="320">
        <button type="submit">\(t.html("recover.send"))</button>
        </form>
        <form id="recover-code-form" novalidate hidden>
        <label for="recover-code">\(t.html("recover.code", count: codeMinutes))</label>
        <input id="recover-code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="32">
        <button type="submit">\(t.html("common.continue"))</button>
        </form>
        <details id="recovery-code-option">
        <summary>\(t.html("recover.saved.summary"))</summary>
        <form id="recovery-code-form" novalidate>
        <label for="saved-email">\(t.html("recover.email"))</label>
        <input id="saved-email" name="email" type="email" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="320">
        <label for="saved-code">\(t.html("recover.saved.code"))</label>
        <input id="saved-code" name="recovery_code" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="64" dir="ltr" placeholder="XXXX-XXXX-XXXX-XXXX">
        <button type="submit">\(t.html("recover.saved.submit"))</button>
        </form>
        </details>
        \(statusArea())
        <p class="alt"><a href="/login">\(t.html("recover.back"))</a></p>
        """
    }

    /// An administrator's enrollment link: the user and code come in the URL's fragment
    /// (filled in by the page's script), or are typed.
    static func enrollmentLink(_ t: Strings) -> String {
        """
        <h1>\(t.html("enrollment_link.title"))</h1>
        <p>\(t.html("enrollment_link.intro"))</p>
        <form id="enroll-form" novalidate>
        <label for="enroll-user">\(t.html("enrollment_link.user"))</label>
        <input id="enroll-user" name="user_id" autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="200">
        <label for="enroll-code">\(t.html("enrollment_link.code"))</label>
        <input id="enroll-code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="32">
        <button type="submit">\(t.html("common.continue"))</button>
        </form>
        \(statusArea())
        <p class="alt"><a href="/login">\(t.html("common.sign_in_instead"))</a></p>
        """
    }

    /// The account page's email address: verified, or a way to verify it; and a way to
    /// change it (the new address is proved by a code before it replaces this one).
    static func emailSection(_ t: Strings, _ user: User) -> String {
        guard let email = user.profile.email else { return "" }
        let address = "<strong>\(HTML.escape(email))</strong>"
        let state = user.isEmailVerified
            ? "<p>\(address) <span class=\"badge\" id=\"email-verified\">\(t.html("account.email.verified"))</span></p>"
            : """
                <p>\(t.html("account.email.unverified", ["email": address]))</p>
                <p><button type="button" id="send-verification">\(t.html("account.email.send_code"))</button></p>
                """
        return """
            <section id="email-section" aria-labelledby="email-heading">
            <h2 id="email-heading">\(t.html("account.email.heading"))</h2>
            \(state)
            <details id="change-email-option">
            <summary>\(t.html("account.email.change"))</summary>
            <form id="change-email-form" class="inline" novalidate>
            <label for="new-email">\(t.html("account.email.new"))</label>
            <input id="new-email" name="email" type="email" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="320">
            <button type="submit">\(t.html("account.email.send_to_new"))</button>
            </form>
            </details>
            <form id="verify-email-form" class="inline" novalidate hidden>
            <label for="verification-code">\(t.html("account.email.code"))</label>
            <input id="verification-code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="32">
            <button type="submit">\(t.html("account.email.verify"))</button>
            </form>
            </section>
            """
    }

    /// The account page's saved recovery codes: how many are left, and a new set on demand.
    static func recoveryCodesSection(_ t: Strings, remaining: Int, createdAt: Date?) -> String {
        let state = createdAt.map {
            t.html("account.recovery.remaining", count: remaining, ["count": "<strong id=\"recovery-remaining\">\(remaining)</strong>", "time": HTML.time($0, t)])
        } ?? t.html("account.recovery.none")
        return """
            <section id="recovery-codes-section" aria-labelledby="recovery-codes-heading">
            <h2 id="recovery-codes-heading">\(t.html("account.recovery.heading"))</h2>
            <p><span id="recovery-state">\(state)</span> \(t.html("account.recovery.explain"))</p>
            <p><button type="button" id="create-recovery-codes">\(t.html(createdAt == nil ? "account.recovery.create" : "account.recovery.replace"))</button></p>
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
        _ t: Strings, user: User, passkeys: [PasskeyCredential], password: PasswordRecord?, names: AuthenticatorNames, data: AccountData, notice: String?,
        consents: [(consent: Consent, clientName: String)] = [], recoveryCodes: (remaining: Int, createdAt: Date?) = (0, nil), accountCenter: String = ""
    ) -> String {
        let titles = distinctTitles(t, passkeys, names: names)
        // Revoking the only way to sign in is refused; the page says so before anyone tries.
        let isLastMethod = passkeys.count == 1 && password == nil
        let items = zip(passkeys, titles).map { passkeyItem(t, $0, title: $1, names: names, isLastMethod: isLastMethod) }.joined(separator: "\n")
        // The last step of the passkey journey, offered once a passkey can take over.
        let passwordSection = password.map { record in
            let removal = passkeys.isEmpty
                ? "<p class=\"hint\">\(t.html("account.password.add_passkey_first"))</p>"
                : "<p><button type=\"button\" class=\"danger\" id=\"remove-password\">\(t.html("account.password.remove"))</button></p>"
            return """
                <section id="password-section" aria-labelledby="password-heading">
                <h2 id="password-heading">\(t.html("account.password.heading"))</h2>
                <p>\(t.html("account.password.present", ["time": HTML.time(record.createdAt, t)]))</p>
                \(removal)
                </section>
                """
        } ?? ""
        return """
            <h1>\(t.html("account.title"))</h1>
            \(statusArea(notice))
            <section aria-labelledby="profile-heading">
            <h2 id="profile-heading">\(t.html("account.profile.heading"))</h2>
            <p>\(t.html("account.profile.signed_in_as", ["account": "<strong id=\"account-name\">\(HTML.escape(user.accountName))</strong>"]))</p>
            <form id="profile-form" class="inline">
            <label for="display-name">\(t.html("account.profile.display_name"))</label>
            <input id="display-name" name="name" autocomplete="name" maxlength="100" value="\(HTML.escape(user.profile.name ?? ""))">
            <button type="submit">\(t.html("account.profile.save"))</button>
            </form>
            </section>
            <section id="passkeys" aria-labelledby="passkeys-heading">
            <h2 id="passkeys-heading">\(t.html("account.passkeys.heading"))</h2>
            <ul class="passkeys">
            \(items)
            </ul>
            <p><button type="button" id="add-passkey">\(t.html("account.passkeys.add"))</button></p>
            </section>
            \(accountCenter)
            \(emailSection(t, user))
            \(recoveryCodesSection(t, remaining: recoveryCodes.remaining, createdAt: recoveryCodes.createdAt))
            \(passwordSection)
            \(Self.consents(t, consents))
            <form id="signout-form"><button type="submit" class="secondary">\(t.html("common.sign_out"))</button></form>
            <form id="signout-everywhere-form"><button type="submit" class="secondary">\(t.html("account.sign_out_everywhere"))</button>
            <span class="hint">\(t.html("account.sign_out_everywhere_hint"))</span></form>
            <script type="application/json" id="latchkey-account">\(HTML.jsonScript(data))</script>
            """
    }

    /// What each passkey is called on the page: the person's name for it, else its
    /// provider's, else "Passkey"; a title shared by several gets a number, so that every
    /// passkey (and every button's label) can be told apart.
    static func distinctTitles(_ t: Strings, _ passkeys: [PasskeyCredential], names: AuthenticatorNames) -> [String] {
        let titles = passkeys.map { $0.name ?? names.entry(for: $0.aaguid)?.name ?? t("account.passkey.default_name") }
        var seen: [String: Int] = [:]
        return titles.map { title in
            guard titles.filter({ $0 == title }).count > 1 else { return title }
            seen[title, default: 0] += 1
            return t("account.passkey.numbered", ["name": title, "number": String(seen[title]!)])
        }
    }

    private static func passkeyItem(_ t: Strings, _ credential: PasskeyCredential, title: String, names: AuthenticatorNames, isLastMethod: Bool) -> String {
        let provider = names.entry(for: credential.aaguid)
        let id = Base64URL.encode(credential.credentialID)
        let icon = provider?.iconLight.flatMap { $0.hasPrefix("data:image/") ? $0 : nil }
            .map { "<img class=\"provider-icon\" src=\"\(HTML.escape($0))\" alt=\"\" width=\"32\" height=\"32\">" }
            ?? "<span class=\"provider-icon generic\" aria-hidden=\"true\"></span>"
        // The provider is the title until the person names the passkey; then it is a detail.
        // An unknown provider is not worth a line of its own.
        let meta = (credential.name != nil ? provider.map { [HTML.escape($0.name)] } ?? [] : []) + [
            t.html("account.passkey.created", ["time": HTML.time(credential.createdAt, t)]),
            credential.lastUsedAt.map { t.html("account.passkey.last_used", ["time": HTML.time($0, t)]) } ?? t.html("account.passkey.not_used"),
        ]
        // Whether it can sync (backup eligible) is fixed when the passkey is made; whether it
        // has synced yet is a detail the person cannot act on.
        let synced = " <span class=\"badge\">\(t.html(credential.isBackupEligible ? "account.passkey.synced" : "account.passkey.device_only"))</span>"
        let reasonID = "revoke-reason-" + id
        let named = ["name": title]
        let revokeLabel = t.escaped("account.passkey.revoke_label", named)
        let revoke = isLastMethod
            ? "<button type=\"button\" class=\"danger\" data-action=\"revoke\" aria-label=\"\(revokeLabel)\" disabled aria-describedby=\"\(reasonID)\">\(t.html("account.passkey.revoke"))</button>"
            : "<button type=\"button\" class=\"danger\" data-action=\"revoke\" aria-label=\"\(revokeLabel)\">\(t.html("account.passkey.revoke"))</button>"
        return """
            <li class="passkey" data-credential-id="\(id)">
            \(icon)
            <div class="details">
            <p class="passkey-name"><span class="name">\(HTML.escape(title))</span>\(synced)</p>
            <p class="meta">\(meta.joined(separator: " · "))</p>
            <form class="rename-form" hidden>
            <label>\(t.escaped("account.passkey.new_name", named)) <input name="name" maxlength="100" value="\(HTML.escape(credential.name ?? ""))"></label>
            <button type="submit">\(t.html("common.save"))</button> <button type="button" class="secondary" data-action="cancel">\(t.html("common.cancel"))</button>
            </form>
            <div class="confirm" hidden>
            <p>\(t.escaped("account.passkey.confirm", named))</p>
            <button type="button" class="danger" data-action="confirm-revoke">\(t.html("account.passkey.confirm_revoke"))</button> \
            <button type="button" class="secondary" data-action="cancel">\(t.html("account.passkey.keep"))</button>
            </div>
            </div>
            <div class="actions">
            <button type="button" class="secondary" data-action="rename" aria-label="\(t.escaped("account.passkey.rename_label", named))">\(t.html("account.passkey.rename"))</button>
            \(revoke)
            <p class="hint revoke-reason" id="\(reasonID)"\(isLastMethod ? "" : " hidden")>\(t.html("account.passkey.only_method"))</p>
            </div>
            </li>
            """
    }

    /// What a scope lets an app do, in words; an unknown scope by its name.
    static func meaning(of scope: String, _ t: Strings) -> String {
        guard Scopes.known.contains(scope) else { return scope }
        return t("scope." + scope.replacingOccurrences(of: ":me:", with: "_"))
    }

    /// The consent page: who asks, what each scope lets it do, and the two answers. The
    /// authorization request travels back as its query string, checked again on the answer.
    static func consent(_ t: Strings, clientName: String, scopes: [String], request: String) -> String {
        let items = scopes.map { "<li>\(HTML.escape(meaning(of: $0, t)))</li>" }.joined(separator: "\n")
        return """
            <h1>\(t.escaped("consent.title", ["app": clientName]))</h1>
            <p>\(t.html("consent.asks", ["app": "<strong>\(HTML.escape(clientName))</strong>"]))</p>
            <ul class="scopes">
            \(items)
            </ul>
            <p class="hint">\(t.html("consent.withdraw_hint"))</p>
            \(statusArea())
            <form id="consent-form">
            <input type="hidden" name="request" value="\(HTML.escape(request))">
            <p class="actions"><button type="submit" name="decision" value="allow">\(t.html("consent.allow"))</button> \
            <button type="submit" name="decision" value="deny" class="secondary">\(t.html("consent.deny"))</button></p>
            </form>
            """
    }

    /// The account page's list of applications the person allowed.
    static func consents(_ t: Strings, _ consents: [(consent: Consent, clientName: String)]) -> String {
        guard !consents.isEmpty else { return "" }
        let items = consents.map { item in
            let meanings = item.consent.scopes.map { HTML.escape(meaning(of: $0, t)) }.joined(separator: "; ")
            let app = ["app": item.clientName]
            return """
                <li class="consent" data-client-id="\(HTML.escape(item.consent.clientID))">
                <p>\(t.html("account.consents.allowed", ["app": "<strong>\(HTML.escape(item.clientName))</strong>", "time": HTML.time(item.consent.grantedAt, t)]))</p>
                <p class="meta">\(meanings)</p>
                <button type="button" class="danger" data-action="revoke-consent" aria-label="\(t.escaped("account.consents.withdraw_label", app))">\
                \(t.html("account.consents.withdraw"))</button>
                </li>
                """
        }.joined(separator: "\n")
        return """
            <section id="consents" aria-labelledby="consents-heading">
            <h2 id="consents-heading">\(t.html("account.consents.heading"))</h2>
            <ul class="consents">
            \(items)
            </ul>
            </section>
            """
    }

    /// The recovery's last step offers to end every other session: a lost device may be in
    /// someone else's hands. (Recovery by an emailed code has ended them already.)
    static func signOutEverywhereChoice(_ t: Strings) -> String {
        "<p><label class=\"choice\"><input type=\"checkbox\" id=\"sign-out-everywhere\"> \(t.html("recover.sign_out_everywhere"))</label></p>"
    }

    static func enroll(_ t: Strings, accountName: String, recovering: Bool = false) -> String {
        let account = ["account": "<strong>\(HTML.escape(accountName))</strong>"]
        let intro = recovering
            ? "<p id=\"recovered-notice\">\(t.html("enroll.recovered", count: recoveryMinutes, account))</p>"
            : "<p>\(t.html("enroll.intro", account))</p>"
        return """
        <h1>\(t.html("enroll.title"))</h1>
        \(intro)
        \(unsupported(t))
        \(recovering ? signOutEverywhereChoice(t) : "")
        <p><button type="button" id="add-passkey">\(t.html("enroll.create"))</button></p>
        \(statusArea())
        \(recovering ? "" : "<p class=\"alt\"><a href=\"/account/passkeys\">\(t.html("enroll.back"))</a></p>")
        """
    }

    static func notFound(_ t: Strings, path: String) -> String {
        """
        <h1>\(t.html("not_found.title"))</h1>
        <p>\(t.html("not_found.text", ["path": "<code>\(HTML.escape(String(path.prefix(200))))</code>"]))</p>
        <p class="actions"><a class="button" href="/">\(t.html("common.start_page"))</a> <a class="button secondary" href="/account">\(t.html("not_found.account"))</a></p>
        """
    }

    /// An error in the page's language; `details`, the server's own words for developers,
    /// follow in English where the language has no words of its own for the failure.
    static func error(_ t: Strings, title: String, message: String, code: String, details: String? = nil) -> String {
        """
        <h1>\(HTML.escape(title))</h1>
        <p class="error" role="alert">\(HTML.escape(message))</p>
        \(details.map { "<p class=\"hint\">\(t.html("error.details", ["details": "<span lang=\"en\" dir=\"ltr\">\(HTML.escape($0))</span>"]))</p>" } ?? "")
        <p class="hint">\(t.html("error.code_line", ["code": "<code>\(HTML.escape(code))</code>"]))</p>
        <p class="alt"><a href="/">\(t.html("common.start_page"))</a></p>
        """
    }

    /// RP-Initiated Logout's question when no ID token says which app asks: the answer posts
    /// back with the request's own parameters and the page's CSRF token.
    static func logoutConfirmation(_ t: Strings, appName: String?, fields: [String: String], csrfToken: String) -> String {
        let who = appName.map { t.html("logout.asks", ["app": "<strong>\(HTML.escape($0))</strong>"]) } ?? t.html("logout.an_app_asks")
        let hidden = fields.sorted { $0.key < $1.key }.map { "<input type=\"hidden\" name=\"\(HTML.escape($0.key))\" value=\"\(HTML.escape($0.value))\">" }
        return """
        <h1>\(t.html("logout.title"))</h1>
        <p>\(who) \(t.html("logout.again"))</p>
        <form method="post" action="/oidc/logout" id="logout-form">
        \(hidden.joined(separator: "\n"))
        <input type="hidden" name="csrf_token" value="\(HTML.escape(csrfToken))">
        <input type="hidden" name="confirm" value="yes">
        <button type="submit">\(t.html("common.sign_out"))</button>
        </form>
        <p class="alt"><a href="/account">\(t.html("logout.stay"))</a></p>
        """
    }

    /// After signing out at an app's request, with nowhere to send the browser back.
    static func signedOut(_ t: Strings, siteName: String) -> String {
        """
        <h1>\(t.html("signed_out.heading"))</h1>
        <p id="signed-out-notice">\(t.escaped("signed_out.text", ["site": siteName]))</p>
        <p class="alt"><a href="/login">\(t.html("signed_out.again"))</a></p>
        """
    }
}
