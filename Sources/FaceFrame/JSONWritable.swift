import WebAuthn
package import IdentityCore
package import LatchkeyWire

/// A response body that the login path writes straight into bytes with ``JSONWriter``
/// rather than through `JSONEncoder`, whose boxing of every value cost more per login than
/// a signature. Each writes exactly what ``JSONResponse/encoder`` writes: the same members,
/// `nil` ones left out, keys in sorted order, slashes unescaped.
package protocol JSONWritable: Encodable {
    /// Writes the value as one JSON value.
    func write(to writer: inout JSONWriter)
}

extension TokenResponse: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.object { tokens in
            tokens.member("access_token", accessToken)
            tokens.member("expires_in", Int64(expiresIn))
            tokens.member("id_token", idToken)
            tokens.member("refresh_token", refreshToken)
            tokens.member("scope", scope)
            tokens.member("token_type", tokenType)
        }
    }
}

extension PasskeyChallenge: JSONWritable where Options: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.object { response in
            response.member("auth_session", authSession)
            response.member("authn_params_public_key") { options.write(to: &$0) }
        }
    }
}

extension PublicKeyCredentialRequestOptionsJSON: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.object { options in
            if let allowCredentials {
                options.member("allowCredentials") { list in
                    list.array(allowCredentials) { descriptor, writer in descriptor.write(to: &writer) }
                }
            }
            options.member("challenge", challenge.base64URL)
            if let extensions { options.member("extensions") { extensions.write(to: &$0) } }
            options.member("hints", hints)
            options.member("rpId", rpId)
            options.member("timeout", timeout.map(Int64.init))
            options.member("userVerification", userVerification)
        }
    }
}

extension CredentialDescriptor {
    func write(to writer: inout JSONWriter) {
        writer.object { descriptor in
            descriptor.member("id", id.base64URL)
            descriptor.member("transports", transports)
            descriptor.member("type", type)
        }
    }
}

extension ExtensionInputs {
    func write(to writer: inout JSONWriter) {
        writer.object { inputs in
            inputs.member("credProps", credProps)
            inputs.member("credentialProtectionPolicy", credentialProtectionPolicy)
            inputs.member("enforceCredentialProtectionPolicy", enforceCredentialProtectionPolicy)
            if let largeBlob {
                inputs.member("largeBlob") { writer in
                    writer.object { blob in
                        blob.member("read", largeBlob.read)
                        blob.member("support", largeBlob.support)
                        blob.member("write", largeBlob.write?.base64URL)
                    }
                }
            }
            if let prf {
                inputs.member("prf") { writer in
                    writer.object { inputs in
                        if let eval = prf.eval { inputs.member("eval") { eval.write(to: &$0) } }
                        if let byCredential = prf.evalByCredential {
                            inputs.member("evalByCredential") { writer in
                                writer.object { entries in
                                    for (credentialID, values) in byCredential.sorted(by: { $0.key < $1.key }) {
                                        entries.member(credentialID) { values.write(to: &$0) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

extension PRFValues {
    func write(to writer: inout JSONWriter) {
        writer.object { values in
            values.member("first", first.base64URL)
            values.member("second", second?.base64URL)
        }
    }
}

extension PublicKeyCredentialCreationOptionsJSON: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.object { options in
            options.member("attestation", attestation)
            options.member("attestationFormats", attestationFormats)
            if let authenticatorSelection {
                options.member("authenticatorSelection") { writer in
                    writer.object { selection in
                        selection.member("authenticatorAttachment", authenticatorSelection.authenticatorAttachment)
                        selection.member("requireResidentKey", authenticatorSelection.requireResidentKey)
                        selection.member("residentKey", authenticatorSelection.residentKey)
                        selection.member("userVerification", authenticatorSelection.userVerification)
                    }
                }
            }
            options.member("challenge", challenge.base64URL)
            if let excludeCredentials {
                options.member("excludeCredentials") { list in
                    list.array(excludeCredentials) { descriptor, writer in descriptor.write(to: &writer) }
                }
            }
            if let extensions { options.member("extensions") { extensions.write(to: &$0) } }
            options.member("hints", hints)
            options.member("pubKeyCredParams") { list in
                list.array(pubKeyCredParams) { parameters, writer in
                    writer.object { entry in
                        entry.member("alg", parameters.alg.rawValue)
                        entry.member("type", parameters.type)
                    }
                }
            }
            options.member("rp") { writer in
                writer.object { rp in
                    rp.member("id", self.rp.id)
                    rp.member("name", self.rp.name)
                }
            }
            options.member("timeout", timeout.map(Int64.init))
            options.member("user") { writer in
                writer.object { user in
                    user.member("displayName", self.user.displayName)
                    user.member("id", self.user.id.base64URL)
                    user.member("name", self.user.name)
                }
            }
        }
    }
}
