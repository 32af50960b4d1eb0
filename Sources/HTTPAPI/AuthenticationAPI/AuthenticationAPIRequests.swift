import FaceFrame
import Foundation
import IdentityCore
import LatchkeyWire

// The Authentication API's bodies are LatchkeyWire's types, which apps encode; what the
// server adds is reading them from forms.

extension TokenRequest {
    /// `POST /oauth/token` parameters from an `application/x-www-form-urlencoded` body.
    /// `authn_response` and `user_profile` are objects and come in JSON bodies only.
    init(form: [String: String]) {
        self.init { key in form[key.rawValue] }
    }
}

extension RevocationRequest {
    /// `POST /oauth/revoke` parameters from a form body (RFC 7009).
    init(form: [String: String]) {
        self.init(clientID: form["client_id"], clientSecret: form["client_secret"], token: form["token"], tokenTypeHint: form["token_type_hint"])
    }
}
