/// A face as the edge knows it, declared once beside its routes: its name in the audit trail
/// (``RequestOrigin/face``), the path prefixes it serves, and the renderer that answers a
/// request on those paths that reaches none of its routes (`nil`: the Authentication API's
/// envelope, every unclaimed path's). The audit labels and the envelope table
/// (``FaceEnvelopes/init(_:fallback:)``) are derived from the faces a server serves.
public struct Face: Sendable {
    /// Its name in audit events.
    public let name: String
    /// The paths it serves begin with one of these.
    public let prefixes: [String]
    /// Its own error envelope for its paths, if it has one.
    public let renderer: (any FaceErrorRenderer)?

    public init(name: String, prefixes: [String], renderer: (any FaceErrorRenderer)? = nil) {
        self.name = name
        self.prefixes = prefixes
        self.renderer = renderer
    }

    /// The name of a path that no face serves: the hosted pages serve the rest of the site.
    public static let unclaimedName = "hosted_pages"

    /// The name of the face among `faces` that serves `path`.
    public static func name(of path: String, among faces: [Face]) -> String {
        faces.first { $0.prefixes.contains(where: path.hasPrefix) }?.name ?? unclaimedName
    }
}

extension FaceEnvelopes {
    /// The envelope table of `faces`: each face with a renderer claims its prefixes.
    public init(_ faces: [Face], fallback: any FaceErrorRenderer = AuthenticationAPIErrors()) {
        self.init(fallback: fallback)
        for face in faces {
            guard let renderer = face.renderer else { continue }
            for prefix in face.prefixes { claim(prefix, renderer) }
        }
    }
}
