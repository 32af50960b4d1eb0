import Foundation
import Localization

/// The operator's brand in the built-in emails (`branding:`): a logo over the message, a
/// band of the primary colour, and where to get help under it. The product's name is the
/// messages' `{{service}}`.
public struct MailBranding: Sendable, Equatable {
    /// The logo's absolute URL (mail clients have no page to resolve a path against).
    public var logoURL: String?
    /// `#rrggbb`.
    public var primaryColor: String?
    public var supportURL: String?
    public var supportEmail: String?

    public init(logoURL: String? = nil, primaryColor: String? = nil, supportURL: String? = nil, supportEmail: String? = nil) {
        self.logoURL = logoURL
        self.primaryColor = primaryColor
        self.supportURL = supportURL
        self.supportEmail = supportEmail
    }

    /// Where to get help, as a line of text.
    private var support: String? { supportURL ?? supportEmail }

    /// A plain-text body with the help line under it.
    func text(around body: String, _ t: Strings) -> String {
        guard let support else { return body }
        return body + "\n" + t("mail.help", ["support": support]) + "\n"
    }

    /// An HTML body with the logo and the colour band over it and the help line under it.
    /// Only the built-in bodies are wrapped: they open with `<body …>` and close with
    /// `</body>`.
    func html(around body: String, service: String, _ t: Strings) -> String {
        guard logoURL != nil || primaryColor != nil || support != nil,
            let open = body.range(of: "<body"), let openEnd = body[open.upperBound...].range(of: ">"), let close = body.range(of: "</body>", options: .backwards)
        else { return body }
        let colour = primaryColor.map(HTMLText.escape) ?? "#2952cc"
        var header = "<div style=\"border-top:4px solid \(colour);padding-top:12px\">"
        if let logoURL { header += "<img src=\"\(HTMLText.escape(logoURL))\" alt=\"\(HTMLText.escape(service))\" height=\"40\" style=\"display:block;margin-bottom:8px\">" }
        header += "</div>\n"
        var footer = ""
        let link = supportURL.map { ($0, $0) } ?? supportEmail.map { ("mailto:" + $0, $0) }
        if let (target, label) = link {
            let anchor = "<a href=\"\(HTMLText.escape(target))\" style=\"color:\(colour)\">\(HTMLText.escape(label))</a>"
            footer = "<p style=\"color:#5f6368;font-size:0.9em\">\(Strings.fill(HTMLText.escape(t.text("mail.help")), ["support": anchor]))</p>\n"
        }
        return String(body[..<openEnd.upperBound]) + "\n" + header + String(body[openEnd.upperBound..<close.lowerBound]) + footer + String(body[close.lowerBound...])
    }
}
