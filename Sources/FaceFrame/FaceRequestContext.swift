public import Hummingbird
public import IdentityCore

/// What every face's request context carries beside Hummingbird's own: where the request
/// comes from and the failed-finish check it owes. Handlers hand both to the one core call
/// they make; nothing reaches the core by a side channel.
public protocol OriginRequestContext: RequestContext {
    /// The client's address, `User-Agent` and face, for the audit events the request causes;
    /// set by ``RequestOriginMiddleware``.
    var origin: RequestOrigin? { get set }
    /// The failed-finish check a ceremony completion owes (see ``FailureCheck``); set by the
    /// rate limit of a face's completion routes when the store makes it in that write.
    var failureCheck: FailureCheck? { get set }
}

/// The request context of every route: Hummingbird's, with the request's origin and check.
public struct FaceRequestContext: OriginRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var origin: RequestOrigin?
    public var failureCheck: FailureCheck?

    public init(source: Source) {
        self.coreContext = .init(source: source)
    }
}
