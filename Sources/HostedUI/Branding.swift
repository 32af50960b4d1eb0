import Foundation
public import Localization

/// The operator's brand on the hosted pages (`branding:`): the product's name, a logo and a
/// favicon, two colours, a light or dark theme, support and legal links, and an extra
/// stylesheet. Nothing set, the pages look as Latchkey's own.
public struct Branding: Sendable, Equatable {
    /// How the pages choose light or dark.
    public enum Theme: String, Sendable, Equatable, CaseIterable {
        /// As the person's system prefers (`prefers-color-scheme`).
        case auto
        case light
        case dark
    }

    /// An image the pages show: a file the server serves, or an address on the public
    /// origin (the pages' Content Security Policy allows images from there only).
    public enum Image: Sendable, Equatable {
        /// The file's bytes and content type, read at start-up.
        case file(bytes: [UInt8], contentType: String)
        /// An absolute URL on the public origin.
        case url(String)
    }

    /// The product's name in the header, titles and emails; the relying party's name when unset.
    public var name: String?
    public var logo: Image?
    public var favicon: Image?
    /// Buttons, links and focus rings.
    public var primaryColor: BrandColor?
    /// Badges.
    public var accentColor: BrandColor?
    public var theme: Theme = .auto
    public var supportURL: String?
    public var supportEmail: String?
    public var termsURL: String?
    public var privacyURL: String?
    /// The operator's extra CSS, served after the pages' own.
    public var stylesheet: String?
    /// The language of a page when neither the person nor their browser chose one.
    public var defaultLanguage: Language = .english

    public init() {}

    /// Where the pages load a served image from.
    static let logoPath = "/ui/assets/brand/logo"
    static let faviconPath = "/ui/assets/brand/favicon"
    /// The stylesheet that carries the colours, the theme and the operator's CSS.
    static let stylesheetPath = "/ui/assets/brand.css"

    /// The address the pages load `image` from.
    static func source(of image: Image, servedAt path: String) -> String {
        switch image {
        case .file: return path
        case .url(let url): return url
        }
    }

    /// The logo's absolute address, for emails (which have no page origin to resolve a path
    /// against).
    public func logoURL(publicURL: String) -> String? {
        logo.map { image in
            switch image {
            case .file: return publicURL + Self.logoPath
            case .url(let url): return url
            }
        }
    }

    /// Whether anything needs the brand stylesheet (the theme is an attribute of the page).
    var hasStylesheet: Bool { primaryColor != nil || accentColor != nil || stylesheet != nil }

    /// The brand stylesheet: the colours as the pages' custom properties, each with a text
    /// colour readable on it, then the operator's own CSS.
    var css: String {
        var rules: [String] = []
        var colours: [String] = []
        if let primary = primaryColor {
            colours.append("--accent: \(primary.hex); --accent-text: \(primary.readableText.hex);")
        }
        if let accent = accentColor {
            colours.append("--badge: \(accent.hex); --badge-text: \(accent.readableText.hex);")
        }
        if !colours.isEmpty {
            // The operator's colours in both themes (they chose them for their brand): every
            // page's root carries `data-theme`, so this outranks the theme rules before it.
            rules.append(":root[data-theme] { \(colours.joined(separator: " ")) }")
        }
        if let stylesheet { rules.append(stylesheet) }
        return rules.joined(separator: "\n") + "\n"
    }

    /// What the colours' contrast leaves hard to read, in words for the start-up log: text
    /// on the primary colour (buttons) below WCAG AA's 4.5:1 whichever text colour is
    /// picked, and the primary colour as link text on the pages' light or dark surface.
    public var contrastWarnings: [String] {
        var warnings: [String] = []
        for (key, colour) in [("primary_color", primaryColor), ("accent_color", accentColor)] {
            guard let colour else { continue }
            let ratio = colour.contrast(with: colour.readableText)
            if ratio < 4.5 {
                warnings.append(
                    "branding.\(key) \(colour.hex): text on it reaches \(Self.ratio(ratio)):1 at best (\(colour.readableText.hex)), below WCAG AA's 4.5:1"
                )
            }
        }
        if let primary = primaryColor {
            let surfaces: [(String, BrandColor)] = switch theme {
            case .light: [("light", BrandColor.lightSurface)]
            case .dark: [("dark", BrandColor.darkSurface)]
            case .auto: [("light", BrandColor.lightSurface), ("dark", BrandColor.darkSurface)]
            }
            for (name, surface) in surfaces where primary.contrast(with: surface) < 4.5 {
                warnings.append(
                    "branding.primary_color \(primary.hex): as link text on the \(name) theme's surface (\(surface.hex)) it reaches \(Self.ratio(primary.contrast(with: surface))):1, below WCAG AA's 4.5:1"
                )
            }
        }
        return warnings
    }

    private static func ratio(_ value: Double) -> String { String(format: "%.2f", value) }
}

/// An sRGB colour written `#rrggbb`, with WCAG 2's relative luminance and contrast ratio.
public struct BrandColor: Sendable, Equatable {
    public let red, green, blue: UInt8

    /// Reads `#rrggbb` (either case); `nil` for anything else.
    public init?(_ text: String) {
        guard text.utf8.count == 7, text.hasPrefix("#"), let value = UInt32(text.dropFirst(), radix: 16) else { return nil }
        red = UInt8(value >> 16 & 0xFF)
        green = UInt8(value >> 8 & 0xFF)
        blue = UInt8(value & 0xFF)
    }

    init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `#rrggbb`, lower case.
    public var hex: String { "#" + [red, green, blue].map { String(format: "%02x", $0) }.joined() }

    /// WCAG 2.x relative luminance.
    var luminance: Double {
        func linear(_ channel: UInt8) -> Double {
            let value = Double(channel) / 255
            return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// WCAG 2.x contrast ratio, from 1 to 21.
    public func contrast(with other: BrandColor) -> Double {
        let (lighter, darker) = luminance > other.luminance ? (luminance, other.luminance) : (other.luminance, luminance)
        return (lighter + 0.05) / (darker + 0.05)
    }

    /// White or near-black, whichever reads better on this colour.
    public var readableText: BrandColor {
        contrast(with: .white) >= contrast(with: .nearBlack) ? .white : .nearBlack
    }

    static let white = BrandColor(red: 0xFF, green: 0xFF, blue: 0xFF)
    static let nearBlack = BrandColor(red: 0x0B, green: 0x10, blue: 0x20)
    /// The card's background in each theme (ui.css's `--surface`).
    static let lightSurface = BrandColor(red: 0xFF, green: 0xFF, blue: 0xFF)
    static let darkSurface = BrandColor(red: 0x1F, green: 0x21, blue: 0x25)
}
