import Foundation

/// A streamed import file that is one JSON document (an array, a realm export) larger than
/// the server gathers; nothing of it was written.
public struct ImportDocumentTooLarge: Error, Sendable {
    /// The most bytes such a file may have.
    public let limit: Int
}

extension AccountImporter {
    /// Imports an export file as its bytes arrive (the Admin API's request body). A file of
    /// one JSON object per line (NDJSON) is imported a window at a time while it arrives, so
    /// its size is bounded by neither memory nor a limit; a file that is one JSON document (an
    /// array, a Keycloak realm) can only be read whole, and is gathered first, up to
    /// `documentLimit` bytes.
    /// - Parameter lineLimit: The most bytes one line may have; a longer one fails alone.
    /// - Throws: ``ImportDocumentTooLarge`` when a one-document file passes `documentLimit`
    ///   (nothing is written then), and what `chunks` throws.
    public func run<Chunks: AsyncSequence>(
        streaming chunks: Chunks, format: ImportFormat, dryRun: Bool, actor: String, documentLimit: Int, lineLimit: Int = 16 << 20
    ) async throws -> ImportReport where Chunks.Element == ArraySlice<UInt8> {
        var reader = LineReader(format: format, lineLimit: lineLimit)
        var run = Run()
        var document: [UInt8]?
        // Imports whole windows of the records read so far; at the end, the rest too.
        func importRead(all: Bool) async {
            while reader.records.count >= (all ? 1 : window) {
                let next = reader.records.prefix(window)
                reader.records.removeFirst(next.count)
                await importWindow(next, into: &run, from: format.rawValue, dryRun: dryRun, actor: actor) { _, _ in }
            }
        }
        for try await chunk in chunks {
            if document != nil {
                document! += chunk
            } else if case .document(let head) = reader.read(chunk) {
                document = head
            }
            // Until the file shows it is one object per line, what it holds so far may be one
            // document, and counts against its limit.
            guard (document?.count ?? reader.undecidedBytes) <= documentLimit else { throw ImportDocumentTooLarge(limit: documentLimit) }
            await importRead(all: false)
        }
        if document == nil, case .document(let head) = reader.finish() { document = head }
        // A document, or a file with nothing in it, which the format's reader reports.
        if let document { return await self.run(format.records(Data(document)), from: format.rawValue, dryRun: dryRun, actor: actor) }
        if run.count == 0 && reader.records.isEmpty { return await self.run(format.records(Data()), from: format.rawValue, dryRun: dryRun, actor: actor) }
        await importRead(all: true)
        return run.report
    }
}

/// Splits a streamed export file into lines and reads each as a record, until it can tell
/// the file is one JSON document instead: one that opens with `[`, or whose first line is not
/// a whole JSON object (a pretty-printed realm export).
private struct LineReader {
    enum Outcome {
        /// Lines were read; their records are in ``records``.
        case records
        /// The file is one document; these are its bytes so far.
        case document([UInt8])
    }

    let format: ImportFormat
    let lineLimit: Int
    /// Records read and not yet imported, in file order.
    var records: [Result<ImportRecord, UnreadableRecord>] = []
    /// The line being read.
    private var partial: [UInt8] = []
    /// Its number in the file, from 1.
    private var lineNumber = 1
    /// Whether the file is known to be one object per line.
    private var isLines = false
    /// Whether the line being read passed `lineLimit`: its bytes are dropped up to its end.
    private var isDropping = false

    init(format: ImportFormat, lineLimit: Int) {
        self.format = format
        self.lineLimit = lineLimit
    }

    /// The bytes read while the file may still be one document: its first line so far.
    var undecidedBytes: Int { isLines ? 0 : partial.count }

    mutating func read(_ chunk: ArraySlice<UInt8>) -> Outcome {
        var rest = chunk
        while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            append(rest[..<newline])
            rest = rest[rest.index(after: newline)...]
            if let document = endLine() { return .document(document + rest) }
        }
        append(rest)
        if !isLines, Self.firstByte(partial) == UInt8(ascii: "[") { return .document(partial) }
        return .records
    }

    /// Reads the last line, which has no newline after it.
    mutating func finish() -> Outcome {
        if let document = endLine() { return .document(document) }
        return .records
    }

    private mutating func append(_ bytes: ArraySlice<UInt8>) {
        guard !isDropping else { return }
        partial += bytes
        // The first line may be a whole document on one line; its caller bounds it.
        if isLines, partial.count > lineLimit {
            // Too long to be one record: it fails alone, and the next line is read.
            records.append(.failure(UnreadableRecord(position: lineNumber, sourceID: nil, reason: "line \(lineNumber) is longer than the \(lineLimit)-byte limit for one record")))
            partial = []
            isDropping = true
        }
    }

    /// Ends the line being read: its record joins ``records``; or, for the first line of a
    /// file that is one document, that line's bytes.
    private mutating func endLine() -> [UInt8]? {
        defer { lineNumber += 1 }
        if isDropping {
            isDropping = false
            return nil
        }
        let line = partial
        partial = []
        guard let first = Self.firstByte(line) else { return nil }
        if !isLines && first == UInt8(ascii: "[") { return line + [UInt8(ascii: "\n")] }
        let read = format.records(Data(line), firstLine: lineNumber)
        // A document's first line ("{" of a pretty-printed realm) is not a record by itself.
        if !isLines, first == UInt8(ascii: "{"), read.count == 1, case .failure = read[0] { return line + [UInt8(ascii: "\n")] }
        isLines = true
        records += read
        return nil
    }

    private static func firstByte(_ bytes: [UInt8]) -> UInt8? {
        bytes.first { !(0x20 == $0 || 0x09 == $0 || 0x0A == $0 || 0x0D == $0) }
    }
}
