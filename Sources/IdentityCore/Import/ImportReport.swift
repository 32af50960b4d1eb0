/// What an import did with each record, and the counts.
public struct ImportReport: Sendable, Hashable {
    /// What happened to one record.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// The account was created (in a dry run: it would be).
        case created
        /// It joined the account here with the same verified email address (in a dry run:
        /// it would).
        case merged
        /// Its source ID was imported before; nothing changed.
        case skipped
        /// It could not be imported: the reason says why; nothing of it was written.
        case failed
    }

    /// One record's line of the report.
    public struct Entry: Sendable, Hashable {
        /// The record's position in the file, from 1.
        public let position: Int
        public let sourceID: String?
        /// The account it is (or would be) in Latchkey.
        public let userID: UserID?
        public let outcome: Outcome
        /// Why it failed, or what was left behind (a passkey for another RP ID, a hash form
        /// this build does not verify).
        public let notes: [String]

        public init(position: Int, sourceID: String?, userID: UserID?, outcome: Outcome, notes: [String]) {
            self.position = position
            self.sourceID = sourceID
            self.userID = userID
            self.outcome = outcome
            self.notes = notes
        }
    }

    public private(set) var entries: [Entry] = []

    public init() {}

    public mutating func append(_ entry: Entry) { entries.append(entry) }

    /// How many records had `outcome`.
    public func count(_ outcome: Outcome) -> Int { entries.lazy.filter { $0.outcome == outcome }.count }

    /// `created 3, merged 0, skipped 1, failed 0`.
    public var summary: String {
        Outcome.allCases.map { "\($0.rawValue) \(count($0))" }.joined(separator: ", ")
    }
}
