import FaceFrame
import Foundation
import HTTPTypes
import IdentityCore
import LatchkeyWire
import NIOCore
public import Hummingbird

/// The association files and other documents platforms fetch from the RP ID's
/// `/.well-known/`, rendered once at start-up. They are public: no authentication, no
/// redirect, `application/json`, and a configurable `Cache-Control`.
public struct WellKnownDocuments: Sendable {
    /// The documents served, by path.
    public let served: [String: [UInt8]]
    /// The documents not configured, by path, with what to configure to serve them.
    public let absent: [String: String]
    /// The `Cache-Control` header of every served document.
    public let cacheControl: String

    public init(served: [String: [UInt8]], absent: [String: String], cacheControl: String) {
        self.served = served
        self.absent = absent
        self.cacheControl = cacheControl
    }
}

extension Router {
    /// Adds the association files and well-known documents.
    public func addWellKnownDocuments(_ documents: WellKnownDocuments) {
        for (path, body) in documents.served {
            let headers: HTTPFields = [.contentType: "application/json", .cacheControl: documents.cacheControl]
            get(RouterPath(path)) { _, _ in
                Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
            }
        }
        for (path, explanation) in documents.absent {
            get(RouterPath(path)) { _, _ in
                // A 404 that says what to configure, so that a missing file is easy to fix.
                JSONResponse.make(OAuthErrorBody(error: "not_found", errorDescription: explanation), status: .notFound)
            }
        }
    }
}
