import AdminAPI
import ArgumentParser
import Foundation
import IdentityCore
import LatchkeyServer
import LatchkeyWire

/// `latchkey admin …`: operating a server from its database: admin API keys, users and
/// their passkeys. Works on the database the server uses (the same `--config`,
/// `--database` or environment), so it needs no key and no running server. Every change is
/// recorded in the audit trail with the actor `cli`.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Operate Latchkey: admin API keys, users and their passkeys, and the console's operators.",
        discussion: "A credential ID (and a user ID made before 0.12.0) may begin with \"-\": give IDs after \"--\" at the end of the line, as in latchkey admin passkeys delete --database URL -- USER_ID CREDENTIAL_ID.",
        subcommands: [KeysCommand.self, UsersCommand.self, PasskeysCommand.self, OperatorsCommand.self]
    )

    /// `latchkey admin operators add|remove|list`: who may open the console at `/console`.
    struct OperatorsCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "operators", abstract: "Operators of the console (/console): a viewer sees, an admin also changes.", subcommands: [Add.self, Remove.self, List.self]
        )

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Make an account an operator, or change its role. The person signs in to /console with a passkey of that account."
            )
            @OptionGroup var options: ServerOptions
            @Argument(help: "The account's email address (or phone number, or username).") var identifier: String
            @Option(help: "viewer or admin.") var role: String

            func run() async throws {
                guard let role = OperatorRole(rawValue: role) else { throw CLIFailure("--role must be viewer or admin, not \(role.prefix(40))") }
                let (admin, _) = try await LatchkeyApplication.administration(try options.load())
                let user = try await AdminCommand.checked {
                    try await admin.setOperatorRole(identifier: identifier, role: role, by: AuditEvent.commandLineActor, origin: nil)
                }
                print("\(user.id.rawValue) (\(identifier)) is an operator: \(role.rawValue)")
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Make an operator an account like any other; its console sessions are refused at once.")
            @OptionGroup var options: ServerOptions
            @Argument(help: "The account's email address (or phone number, or username).") var identifier: String

            func run() async throws {
                let (admin, _) = try await LatchkeyApplication.administration(try options.load())
                let user = try await AdminCommand.checked {
                    try await admin.setOperatorRole(identifier: identifier, role: nil, by: AuditEvent.commandLineActor, origin: nil)
                }
                print("\(user.id.rawValue) (\(identifier)) is no longer an operator")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the operators, oldest first.")
            @OptionGroup var options: ServerOptions

            func run() async throws {
                let (admin, _) = try await LatchkeyApplication.administration(try options.load())
                for found in try await admin.operators() {
                    let identifiers = (try? await admin.user(id: found.userID)).map { $0.profile.identifiers.map(\.value).joined(separator: ", ") } ?? "-"
                    print("\(found.userID.rawValue)  \(identifiers)  \(found.role.rawValue)  since \(found.since.formatted(.iso8601))")
                }
            }
        }
    }

    /// `latchkey admin keys create|revoke|list`.
    struct KeysCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "keys", abstract: "Admin API keys.", subcommands: [Create.self, Revoke.self, List.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Make an admin API key. It is printed once, alone on the last line; only its SHA-256 is stored.",
                discussion: "Scopes: \(AdminScope.all.map(\.description).joined(separator: ", ")). A write scope includes reading the same resource."
            )
            @OptionGroup var options: ServerOptions
            @Option(help: "What the key is for, shown in lists and the audit trail.") var name: String
            @Option(help: "Comma-separated scopes, for example users:read,users:write.") var scopes: String

            func run() async throws {
                let scopes = try AdminCommand.checked { () throws(IdentityError) in try AdminScope.parseList(self.scopes) }
                let (admin, _) = try await LatchkeyApplication.administration(try options.load())
                let made = try await AdminCommand.checked { try await admin.createKey(name: name, scopes: scopes, origin: nil) }
                print("admin API key \(made.record.id) (\(made.record.name)): \(made.record.scopes.sorted().map(\.description).joined(separator: ","))")
                print("shown once; send it as Authorization: Bearer <key>")
                print(made.key)
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Revoke an admin API key at once.")
            @OptionGroup var options: ServerOptions
            @Argument(help: "The key's ID (ak_…).") var id: String

            func run() async throws {
                let (admin, _) = try await LatchkeyApplication.administration(try options.load())
                guard try await admin.revokeKey(id: id, origin: nil) else { throw CLIFailure("no live admin API key has the ID \(id)") }
                print("revoked \(id)")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List admin API keys, oldest first.")
            @OptionGroup var options: ServerOptions

            func run() async throws {
                let (admin, _) = try await LatchkeyApplication.administration(try options.load())
                for key in try await admin.keys() {
                    let state = key.revokedAt.map { "revoked \($0.formatted(.iso8601))" } ?? "live"
                    let used = key.lastUsedAt.map { "last used \($0.formatted(.iso8601))" } ?? "never used"
                    print("\(key.id)  \(key.name)  \(key.scopes.sorted().map(\.description).joined(separator: ","))  \(state), \(used)")
                }
            }
        }
    }

    /// `latchkey admin users list|show|disable|enable|delete`.
    struct UsersCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "users", abstract: "Users.", subcommands: [List.self, Show.self, Disable.self, Enable.self, Delete.self]
        )

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List users, oldest first, or find them by identifier.")
            @OptionGroup var options: ServerOptions
            @Option(help: "An email address, phone number or username, matched exactly.") var identifier: String?
            @Option(help: "The start of an email address, phone number or username.") var prefix: String?
            @Option(help: "At most this many users (1–500).") var limit: Int = 50
            @Option(help: "Continue after a list that printed this next page token.") var pageToken: String?
            @Flag(help: "One JSON object per line, as the Admin API answers.") var json = false

            func run() async throws {
                let (admin, _) = try await LatchkeyApplication.administration(try options.load())
                let page = try await AdminCommand.checked {
                    try await admin.users(identifier: identifier, identifierPrefix: prefix, pageSize: limit, pageToken: pageToken)
                }
                for user in page.users { print(json ? AdminAPIJSON.user(user) : AdminCommand.line(user)) }
                if let next = page.next, !json { print("more: --page-token \(next)") }
            }
        }

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Show one user.")
            @OptionGroup var options: ServerOptions
            @Argument(help: "The user's ID.") var id: String
            @Flag(help: "JSON, as the Admin API answers.") var json = false

            func run() async throws {
                let (admin, _) = try await LatchkeyApplication.administration(try options.load())
                let user = try await AdminCommand.checked { try await admin.user(id: UserID(rawValue: id)) }
                print(json ? AdminAPIJSON.user(user) : AdminCommand.line(user))
            }
        }

        struct Disable: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Turn an account off: it cannot sign in anywhere, and every session ends now.")
            @OptionGroup var options: ServerOptions
            @Argument(help: "The user's ID.") var id: String

            func run() async throws {
                let (admin, _) = try await LatchkeyApplication.administration(try options.load())
                let user = try await AdminCommand.checked { try await admin.setUserDisabled(id: UserID(rawValue: id), disabled: true, by: AuditEvent.commandLineActor, origin: nil) }
                print(AdminCommand.line(user))
            }
        }

        struct Enable: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Turn an account on again.")
            @OptionGroup var options: ServerOptions
            @Argument(help: "The user's ID.") var id: String

            func run() async throws {
                let (admin, _) = try await LatchkeyApplication.administration(try options.load())
                let user = try await AdminCommand.checked { try await admin.setUserDisabled(id: UserID(rawValue: id), disabled: false, by: AuditEvent.commandLineActor, origin: nil) }
                print(AdminCommand.line(user))
            }
        }

        struct Delete: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Delete a user with every passkey, password, session, token and consent; the audit trail keeps their events.")
            @OptionGroup var options: ServerOptions
            @Argument(help: "The user's ID.") var id: String

            func run() async throws {
                let (admin, _) = try await LatchkeyApplication.administration(try options.load())
                try await AdminCommand.checked { try await admin.deleteUser(id: UserID(rawValue: id), by: AuditEvent.commandLineActor, origin: nil) }
                print("deleted \(id)")
            }
        }
    }

    /// `latchkey admin passkeys list|delete`.
    struct PasskeysCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "passkeys", abstract: "A user's passkeys.", subcommands: [List.self, Delete.self])

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List a user's passkeys, oldest first.")
            @OptionGroup var options: ServerOptions
            @Argument(help: "The user's ID.") var userID: String
            @Flag(help: "One JSON object per line, as the Admin API answers.") var json = false

            func run() async throws {
                let (admin, names) = try await LatchkeyApplication.administration(try options.load())
                let found = try await AdminCommand.checked { try await admin.credentials(userID: UserID(rawValue: userID)) }
                for passkey in found.passkeys {
                    if json {
                        print(AdminAPIJSON.credential(passkey, names: names))
                    } else {
                        let state = passkey.isDisabled ? "disabled" : "enabled"
                        let used = passkey.lastUsedAt.map { "last used \($0.formatted(.iso8601))" } ?? "never used"
                        print("\(Base64URL.encode(passkey.credentialID))  \(names.displayName(of: passkey))  \(state), \(used)")
                    }
                }
                if !json { print(found.hasPassword ? "and a password" : "no password") }
            }
        }

        struct Delete: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a passkey, ending the sessions it started (not a user's last way to sign in).")
            @OptionGroup var options: ServerOptions
            @Argument(help: "The user's ID.") var userID: String
            @Argument(help: "The passkey's credential ID, base64url.") var credentialID: String

            func run() async throws {
                let (admin, _) = try await LatchkeyApplication.administration(try options.load())
                guard let bytes = Base64URL.decode(credentialID), !bytes.isEmpty else { throw ValidationError("the credential ID must be base64url") }
                try await AdminCommand.checked { try await admin.deleteCredential(userID: UserID(rawValue: userID), credentialID: bytes, by: AuditEvent.commandLineActor, origin: nil) }
                print("deleted passkey \(credentialID)")
            }
        }
    }

    /// One line about a user.
    static func line(_ user: User) -> String {
        let identifiers = user.profile.identifiers.map(\.value).joined(separator: ", ")
        return "\(user.id.rawValue)  \(identifiers)  \(user.profile.name ?? "-")  \(user.isDisabled ? "disabled" : "enabled")  created \(user.createdAt.formatted(.iso8601))"
    }

    /// Runs `work`, turning a refusal into the command line's error (its message, exit 64).
    static func checked<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let error as IdentityError {
            throw CLIFailure(error.message)
        }
    }

    /// Runs `work`, turning a refusal into the command line's error.
    static func checked<T>(_ work: () throws(IdentityError) -> T) throws -> T {
        do {
            return try work()
        } catch {
            throw CLIFailure(error.message)
        }
    }
}
