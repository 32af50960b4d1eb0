import Foundation

/// The checks every well-known document shares: it is answered, directly with a 200, as
/// `application/json`, and its JSON has the document's shape.
struct ResponseChecks {
    /// The prefix of the check IDs, such as `aasa`.
    let id: String
    /// The file name, for messages.
    let fileName: String
    /// The URL fetched.
    let url: URL
    /// The largest body the platform accepts, if it has a limit.
    var sizeLimit: Int? = nil

    /// Runs every shared check on a fetched document.
    /// - Parameters:
    ///   - absentNote: When given, the document is optional for this deployment: a 404 is
    ///     noted rather than failed.
    /// - Returns: The decoded document when every shared check passed.
    func document<Document: Decodable>(
        _ type: Document.Type,
        from outcome: FetchOutcome,
        shape: String,
        notFoundFix: String,
        absentNote: String? = nil,
        in section: inout DoctorSection
    ) -> Document? {
        if let absentNote, case .response(let response) = outcome, response.status == 404 {
            section.note(absentNote)
            return nil
        }
        guard let response = checkStatus(outcome, notFoundFix: notFoundFix, in: &section) else { return nil }
        checkContentType(response, in: &section)
        if let limit = sizeLimit, response.body.count > limit {
            section.add(.fail("\(id).size", "is \(response.body.count) bytes", fix: "keep \(fileName) under \(limit / 1024) KB, the most the platform accepts"))
        }
        return decode(type, from: response, shape: shape, in: &section)
    }

    /// Checks the answer's transport: reachable, not a redirect, status 200.
    /// - Returns: The response when it is a 200.
    private func checkStatus(_ outcome: FetchOutcome, notFoundFix: String, in section: inout DoctorSection) -> FetchedResponse? {
        let response: FetchedResponse
        switch outcome {
        case .failed(let reason):
            section.add(.fail("\(id).reachable", "could not fetch \(url.absoluteString): \(reason)", fix: "make sure the host resolves, the server is running and reachable from the internet, and its TLS certificate is valid"))
            return nil
        case .response(let value):
            response = value
        }
        switch response.status {
        case 200:
            section.add(.pass("\(id).status", "answers 200 directly, without a redirect"))
            return response
        case 300..<400:
            let target = response.location.map { " to \($0)" } ?? ""
            section.add(.fail(
                "\(id).status", "answers \(response.status), a redirect\(target)",
                fix: "Apple's CDN and Android's verifier do not follow redirects for \(fileName); serve the file itself at \(url.absoluteString) with status 200 (check for http→https, www or trailing-slash rewrites)"
            ))
        case 404:
            section.add(.fail("\(id).status", "answers 404 Not Found", fix: notFoundFix))
        default:
            section.add(.fail("\(id).status", "answers \(response.status) instead of 200", fix: "serve \(fileName) at \(url.absoluteString) with status 200, without authentication"))
        }
        return nil
    }

    /// Checks that the media type is `application/json`.
    private func checkContentType(_ response: FetchedResponse, in section: inout DoctorSection) {
        let mediaType = response.contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        if mediaType == "application/json" {
            section.add(.pass("\(id).content_type", "Content-Type is application/json"))
        } else {
            section.add(.fail(
                "\(id).content_type", "Content-Type is \(response.contentType.map { "\($0)" } ?? "missing")",
                fix: "serve \(fileName) with Content-Type: application/json; a file without an extension gets the web server's default type (for nginx: default_type application/json; in its location block)"
            ))
        }
    }

    /// Decodes the body as the document's type.
    /// - Returns: The document, or `nil` after recording why it is not one.
    private func decode<Document: Decodable>(_ type: Document.Type, from response: FetchedResponse, shape: String, in section: inout DoctorSection) -> Document? {
        do {
            let document = try JSONDecoder().decode(Document.self, from: Data(response.body))
            section.add(.pass("\(id).json", "valid JSON: \(shape)"))
            return document
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
                let detail = Self.syntaxDetail(response.body)
                section.add(.fail(
                    "\(id).json", "is not valid JSON\(detail.map { ": \($0)" } ?? "")",
                    fix: "fix the syntax of \(fileName) (a JSON validator shows where); it must be \(shape)"
                ))
            } else {
                section.add(.fail("\(id).json", "valid JSON of the wrong shape: \(Self.describe(error))", fix: "\(fileName) must be \(shape)"))
            }
        } catch {
            section.add(.fail("\(id).json", "cannot be read: \(error)", fix: "\(fileName) must be \(shape)"))
        }
        return nil
    }

    /// Where the JSON breaks, as far as the parser says, and what the body looks like.
    private static func syntaxDetail(_ body: [UInt8]) -> String? {
        let start = body.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        if start.isEmpty { return "the body is empty" }
        if start.first == UInt8(ascii: "<") { return "the body is HTML, perhaps an error or login page" }
        do {
            _ = try JSONSerialization.jsonObject(with: Data(body))
            return nil
        } catch {
            return (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.isEmpty ? "the document" : String(text.drop { $0 == "." })
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) should be \(describe(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) should be \(describe(type)), found null"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Array") { return "a list" }
        if name.hasPrefix("Dictionary") { return "an object" }
        if name == "String" { return "a string" }
        if name == "Bool" { return "true or false" }
        return "an object"
    }
}
