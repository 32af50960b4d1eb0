import Foundation
import IdentityTestSupport
import Testing
@testable import IdentityCore

/// A file imported as its bytes arrive, in pieces of any size, gives the report the same
/// file read whole gives: one object per line imported while it arrives, one document
/// gathered first, and the limits each has.
@Suite struct StreamedImportTests {
    static func importer(_ storage: InMemoryStorage) -> AccountImporter {
        AccountImporter(storage: storage, relyingPartyID: "localhost", clock: SystemClock(), random: SystemRandom(), concurrentWrites: 4)
    }

    /// What a report says of each record, leaving out the IDs of new accounts (random).
    static func lines(_ report: ImportReport) -> [String] {
        report.entries.map { "\($0.position) \($0.sourceID ?? "-") \($0.outcome.rawValue) \($0.notes.joined(separator: "; "))" }
    }

    static func chunks(_ data: Data, size: Int) -> AsyncStream<ArraySlice<UInt8>> {
        let bytes = Array(data)
        return AsyncStream { continuation in
            for start in stride(from: 0, to: bytes.count, by: size) { continuation.yield(bytes[start..<min(start + size, bytes.count)]) }
            continuation.finish()
        }
    }

    static func json(_ object: Any, pretty: Bool = false) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys]), as: UTF8.self)
    }

    /// 150 Auth0 users (more than one window), one a duplicate of another, as lines with a
    /// blank and a broken one; as a pretty array; and Keycloak realms, pretty and on one line.
    static let files: [(name: String, format: ImportFormat, data: Data)] = {
        let users: [[String: Any]] = (0..<150).map { ["user_id": "auth0|\($0)", "email": "person\($0 == 149 ? 3 : $0)@example.com"] }
        let lines = users.map { json($0) }
        let ndjson = (lines[..<70] + ["", #"{"user_id": "auth0|broken", "email""#] + lines[70...]).joined(separator: "\n") + "\n"
        let keycloak: [[String: Any]] = (0..<20).map { ["id": "kc-\($0)", "email": "kc\($0)@example.com", "enabled": true] }
        return [
            ("lines", .auth0, Data(ndjson.utf8)),
            ("lines without a last newline", .auth0, Data(ndjson.dropLast().utf8)),
            ("a pretty array", .auth0, Data(json(users, pretty: true).utf8)),
            ("a pretty realm", .keycloak, Data(json(["realm": "acme", "users": keycloak], pretty: true).utf8)),
            ("a realm on one line", .keycloak, Data(json(["realm": "acme", "users": keycloak]).utf8)),
            ("Keycloak users as lines", .keycloak, Data(keycloak.map { json($0) }.joined(separator: "\n").utf8)),
            ("nothing", .auth0, Data(" \n\n".utf8)),
        ]
    }()

    @Test(arguments: [1, 7, 4096, 1 << 20])
    func piecesOfAnySizeGiveTheWholeFilesReport(size: Int) async throws {
        for file in Self.files {
            let whole = await Self.importer(InMemoryStorage()).run(file.format.records(file.data), from: file.format.rawValue, dryRun: false)
            let storage = InMemoryStorage()
            let streamed = try await Self.importer(storage).run(
                streaming: Self.chunks(file.data, size: size), format: file.format, dryRun: false, actor: "test", documentLimit: 1 << 20
            )
            #expect(Self.lines(streamed) == Self.lines(whole), "\(file.name), in pieces of \(size)")
            #expect(streamed.count(.created) == whole.count(.created) && whole.count(.created) > 0 || file.name == "nothing", "\(file.name)")
            if file.name == "lines" {
                #expect(whole.count(.failed) == 2, "the broken line and the duplicate")
                #expect(try await storage.user(identifier: .email("person149@example.com")) == nil)
            }
        }
    }

    @Test func oneDocumentHasALimitAndLinesDoNot() async throws {
        let users: [[String: Any]] = (0..<50).map { ["user_id": "auth0|\($0)", "email": "p\($0)@example.com"] }
        let array = Data(Self.json(users, pretty: true).utf8)
        let storage = InMemoryStorage()
        await #expect(throws: ImportDocumentTooLarge.self) {
            _ = try await Self.importer(storage).run(streaming: Self.chunks(array, size: 100), format: .auth0, dryRun: false, actor: "test", documentLimit: 1000)
        }
        #expect(try await storage.user(identifier: .email("p0@example.com")) == nil, "nothing of it was written")

        let ndjson = Data(users.map { Self.json($0) }.joined(separator: "\n").utf8)
        let report = try await Self.importer(storage).run(streaming: Self.chunks(ndjson, size: 100), format: .auth0, dryRun: false, actor: "test", documentLimit: 1000)
        #expect(report.count(.created) == 50, "lines are imported as they arrive, past the document limit")

        // A line longer than the limit for one record fails alone.
        let long = Self.json(["user_id": "auth0|long", "email": "long@example.com", "name": String(repeating: "n", count: 500)])
        let mixed = Data(([Self.json(["user_id": "auth0|a", "email": "a@example.com"]), long, Self.json(["user_id": "auth0|b", "email": "b@example.com"])]).joined(separator: "\n").utf8)
        let limited = try await Self.importer(InMemoryStorage()).run(
            streaming: Self.chunks(mixed, size: 64), format: .auth0, dryRun: false, actor: "test", documentLimit: 1000, lineLimit: 300
        )
        #expect(Self.lines(limited).map { $0.prefix(14) } == ["1 auth0|a crea", "2 - failed lin", "3 auth0|b crea"], "\(Self.lines(limited))")
    }
}
