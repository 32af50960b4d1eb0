import Foundation
import IdentityCore
import WebAuthn

/// The metadata and keys section: the FIDO metadata in use and the models it refuses, the
/// operators, and the Admin API's keys (made here with their scopes, the key shown once).
enum ConsoleKeysPage {
    static func render(
        metadata: (source: String, metadata: AttestationMetadata)?, keys: [AdminAPIKey], operators: [(Operator, User?)], createdKey: String?, canChange: Bool, csrf: String
    ) -> String {
        var state = "<p>No FIDO metadata is configured (passkeys.metadata): registrations are verified without it.</p>"
        if let metadata {
            let blob = metadata.metadata.blob
            let rows: [(String, String)] = [
                ("Source", HTML.escape(metadata.source)), ("BLOB number", blob.map { "\($0.number)" } ?? "none yet"),
                ("Next update", blob.map { ConsolePages.time($0.nextUpdateDate) } ?? "–"), ("Entries", blob.map { "\($0.entries.count)" } ?? "0"),
                ("Refused statuses", HTML.escape(metadata.metadata.refusedStatuses.sorted().joined(separator: ", "))),
            ]
            let refused = metadata.metadata.refusedModels.map {
                ["<code>\(HTML.escape($0.identifier))</code>", HTML.escape($0.description ?? "–"), HTML.escape($0.status), HTML.escape($0.effectiveDate ?? "–")]
            }
            state = """
                <div class="table-scroll"><table class="data"><caption class="visually-hidden">Metadata</caption><tbody>\
                \(rows.map { "<tr><th scope=\"row\">\($0.0)</th><td>\($0.1)</td></tr>" }.joined())</tbody></table></div>
                <h3>Refused models</h3>
                \(ConsolePages.table(caption: "Refused models", headers: ["Model", "Description", "Status", "Since"], rows: refused, empty: "No model in use is refused."))
                """
        }
        let keyRows = keys.map { key -> [String] in
            var cells = [
                "<code>\(HTML.escape(key.id))</code>", HTML.escape(key.name), HTML.escape(key.storedScopes.replacingOccurrences(of: ",", with: ", ")),
                ConsolePages.time(key.createdAt), ConsolePages.time(key.lastUsedAt),
                key.revokedAt == nil ? ConsolePages.badge("live", "ok") : ConsolePages.badge("revoked", "off"),
            ]
            if canChange { cells.append(key.revokedAt == nil ? ConsolePages.action("\(OperatorConsole.path)/keys/\(key.id)/revoke", "Revoke", csrf: csrf, danger: true) : "") }
            return cells
        }
        let operatorRows = operators.map { found, user in
            [
                ConsolePages.userLink(found.userID), HTML.escape(user?.profile.identifiers.map(\.value).joined(separator: ", ") ?? "–"),
                ConsolePages.badge(found.role.rawValue, found.role.rawValue), ConsolePages.time(found.since),
            ]
        }
        var created = ""
        if let createdKey {
            created = """
                <div class="notice" role="status"><p>The new key, shown once: store it now.</p>
                <p class="key-once" id="new-key">\(HTML.escape(createdKey))</p>
                <button type="button" class="copy" data-copy="new-key" hidden>Copy</button></div>
                """
        }
        var form = ""
        if canChange {
            let scopes = AdminScope.Resource.allCases.flatMap { resource in
                (resource.isReadable ? [AdminScope(resource, writes: false)] : []) + (resource.isWritable ? [AdminScope(resource, writes: true)] : [])
            }
            let boxes = scopes.map { scope in
                let id = "scope-" + scope.description.replacingOccurrences(of: ":", with: "-")
                return "<span><input type=\"checkbox\" name=\"\(HTML.escape(scope.description))\" id=\"\(id)\"> <label for=\"\(id)\"><code>\(HTML.escape(scope.description))</code></label></span>"
            }.joined()
            form = """
                <h3>New key</h3>
                <form class="new-key" method="post" action="\(OperatorConsole.path)/keys">\(ConsoleLayout.csrfField(csrf))
                <p><label for="key-name">Name</label><input id="key-name" name="name" required maxlength="100" autocomplete="off"></p>
                <fieldset class="scopes"><legend>Scopes (a write scope includes reading)</legend>\(boxes)</fieldset>
                <button type="submit">Create the key</button>
                </form>
                """
        }
        return """
            <h1>Metadata and keys</h1>
            \(created)
            <h2>FIDO metadata</h2>
            \(state)
            <h2>Operators</h2>
            \(ConsolePages.table(caption: "Operators", headers: ["User", "Identifiers", "Role", "Since"], rows: operatorRows, empty: "No operators."))
            <p class="meta">Add one with <code>latchkey admin operators add EMAIL --role viewer|admin</code>.</p>
            <h2>Admin API keys</h2>
            \(ConsolePages.table(caption: "Admin API keys", headers: ["ID", "Name", "Scopes", "Created", "Last used", "State"] + (canChange ? ["Actions"] : []), rows: keyRows, empty: "No keys."))
            \(form)
            """
    }
}
