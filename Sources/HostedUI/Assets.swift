import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The scripts and stylesheet, read from the bundle once.
enum Assets {
    static let files: [String: (resource: String, type: String)] = [
        "/latchkey.js": ("latchkey", "js"),
        "/ui/assets/ui.js": ("ui", "js"),
        "/ui/assets/ui.css": ("ui", "css"),
    ]

    static func load(_ resource: String, _ type: String) -> [UInt8]? {
        guard let url = Bundle.module.url(forResource: resource, withExtension: type), let data = try? Data(contentsOf: url) else { return nil }
        return Array(data)
    }
}

extension Router {
    /// The operator's logo and favicon, when they are files, and the brand stylesheet.
    func addBrandAssets(_ branding: Branding) {
        for (image, path) in [(branding.logo, Branding.logoPath), (branding.favicon, Branding.faviconPath)] {
            guard case .file(let bytes, let type)? = image else { continue }
            // An SVG opened on its own is a document of this origin: nothing in it may run.
            let headers: HTTPFields = [
                .contentType: type, .cacheControl: "public, max-age=300", HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; sandbox",
            ]
            get(RouterPath(path)) { _, _ in Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))) }
        }
        guard branding.hasStylesheet else { return }
        let css = ByteBuffer(string: branding.css)
        let headers: HTTPFields = [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=300", HTTPField.Name("X-Content-Type-Options")!: "nosniff"]
        get(RouterPath(Branding.stylesheetPath)) { _, _ in Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: css)) }
    }

    /// Each language's messages for the scripts, as a script that hands them to
    /// `latchkey.js` (`window.LatchkeyMessages`): cached by the browser like the other
    /// scripts rather than carried by every page, and usable by an app's own pages too.
    func addMessageAssets(_ pages: HostedPages) {
        let headers: HTTPFields = [
            .contentType: "text/javascript; charset=utf-8", .cacheControl: "public, max-age=300",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff", .accessControlAllowOrigin: "*",
        ]
        for (language, json) in pages.scriptMessages {
            let script = ByteBuffer(string: "window.LatchkeyMessages = \(json);\n")
            get(RouterPath(HostedPages.messagesPath(language))) { _, _ in Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: script)) }
        }
    }

    func addHostedAssets() {
        for (path, file) in Assets.files {
            guard let bytes = Assets.load(file.resource, file.type) else { continue }
            let contentType = file.type == "js" ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8"
            let headers: HTTPFields = [
                .contentType: contentType,
                // Short, so that an upgrade reaches browsers soon; pages revalidate after that.
                .cacheControl: "public, max-age=300",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                // latchkey.js may be included by pages on other origins.
                .accessControlAllowOrigin: "*",
            ]
            get(RouterPath(path)) { _, _ in
                Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
            }
        }
    }
}
