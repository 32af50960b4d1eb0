import Hummingbird

/// Which face's envelope answers a request that never reaches a face's route group: one
/// refused at the edge (no `Host`) or one no route matches. Such a request has only its
/// path to go by, so each face names the path prefix it serves; rules never look here, they
/// live on the route groups (see `RateLimitMiddleware`).
public struct FaceEnvelopes: Sendable {
    private var faces: [(prefix: String, renderer: any FaceErrorRenderer)] = []
    /// The envelope of paths no face claims: the Authentication API's.
    private let fallback: any FaceErrorRenderer

    /// Creates the table with the envelope for unclaimed paths.
    public init(fallback: any FaceErrorRenderer = AuthenticationAPIErrors()) { self.fallback = fallback }

    /// Claims the paths under `prefix` (ending in `/`) for a face.
    public mutating func claim(_ prefix: String, _ renderer: any FaceErrorRenderer) {
        faces.append((prefix, renderer))
    }

    /// The renderer of the face whose prefix `path` starts with, else the fallback.
    public func renderer(for path: String) -> any FaceErrorRenderer {
        faces.first { path.hasPrefix($0.prefix) }?.renderer ?? fallback
    }

    /// Whether a face claims `path`.
    public func claims(_ path: String) -> Bool {
        faces.contains { path.hasPrefix($0.prefix) }
    }
}
