/// One line of the doctor's report: a requirement, whether the deployment meets it, and
/// when it does not, what to do about it in plain words.
public struct DoctorCheck: Sendable, Hashable {
    /// A stable name for the requirement, for tests and scripts, such as `aasa.content_type`.
    public let id: String
    /// Whether the requirement is met.
    public let passed: Bool
    /// What was found.
    public let summary: String
    /// For a failed check, how to fix it.
    public let fix: String?

    static func pass(_ id: String, _ summary: String) -> DoctorCheck {
        DoctorCheck(id: id, passed: true, summary: summary, fix: nil)
    }

    static func fail(_ id: String, _ summary: String, fix: String) -> DoctorCheck {
        DoctorCheck(id: id, passed: false, summary: summary, fix: fix)
    }
}

/// The checks about one document (or the domain itself), under a heading.
public struct DoctorSection: Sendable, Hashable {
    /// What the section is about, such as `apple-app-site-association`.
    public let title: String
    /// The URL fetched, when the section is about a document.
    public let url: String?
    /// The checks, in the order they were made.
    public internal(set) var checks: [DoctorCheck]
    /// Observations that are not requirements.
    public internal(set) var notes: [String]

    init(title: String, url: String?) {
        self.title = title
        self.url = url
        checks = []
        notes = []
    }

    mutating func add(_ check: DoctorCheck) { checks.append(check) }

    /// Adds the check `id`: passed with `summary` when `passed`, and otherwise failed with
    /// `failure` and its fix. Only the side that applies is written out.
    mutating func check(
        _ id: String, passed: Bool, _ summary: @autoclosure () -> String, failure: @autoclosure () -> String, fix: @autoclosure () -> String
    ) {
        add(passed ? .pass(id, summary()) : .fail(id, failure(), fix: fix()))
    }

    mutating func note(_ text: String) { notes.append(text) }
}

/// Everything the doctor found.
public struct DoctorReport: Sendable, Hashable {
    /// The domain's URL as given.
    public let target: String
    /// The RP ID the deployment was checked against.
    public let relyingPartyID: String
    /// Where the expectations came from: a configuration file, or none.
    public let expectationsSource: String
    /// The sections, in order.
    public internal(set) var sections: [DoctorSection]

    /// Every check of every section.
    public var checks: [DoctorCheck] { sections.flatMap(\.checks) }
    /// The failed checks.
    public var failures: [DoctorCheck] { checks.filter { !$0.passed } }
    /// Whether every check passed.
    public var passed: Bool { failures.isEmpty }

    /// The check with the given ID, if it was made.
    public func check(_ id: String) -> DoctorCheck? { checks.first { $0.id == id } }

    /// The report as text: one line per check with ✓ or ✗, and for each ✗ the fix.
    public func rendered() -> String {
        var lines = ["latchkey doctor: \(target) (RP ID \(relyingPartyID); \(expectationsSource))", ""]
        for section in sections {
            lines.append(section.url.map { "\(section.title)  \($0)" } ?? section.title)
            for check in section.checks {
                lines.append("  \(check.passed ? "✓" : "✗") \(check.summary)")
                if let fix = check.fix { lines.append("      fix: \(fix)") }
            }
            for note in section.notes { lines.append("  · \(note)") }
            lines.append("")
        }
        let failed = failures.count
        lines.append(failed == 0 ? "All \(checks.count) checks passed." : "\(checks.count - failed) of \(checks.count) checks passed; \(failed) failed.")
        return lines.joined(separator: "\n") + "\n"
    }
}
