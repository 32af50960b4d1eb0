public import FaceFrame

extension Face {
    /// The Auth0-shaped Authentication API: its envelope is every unclaimed path's.
    public static let authenticationAPI = Face(
        name: "authentication_api", prefixes: ["/oauth/", "/passkey/", "/passwordless/", "/dbconnections/", "/co/", "/recovery/"]
    )
    /// OpenID Connect's userinfo and the documents at `/.well-known/`.
    public static let openIDConnect = Face(name: "oidc", prefixes: ["/userinfo", "/.well-known/"])
    /// Auth0's My Account API.
    public static let myAccount = Face(name: "my_account", prefixes: ["/me/"], renderer: MyAccountErrors())
}
