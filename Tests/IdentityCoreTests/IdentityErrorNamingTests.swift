import Testing
@testable import IdentityCore

/// The core names the parts of a request in its own words; each face spells them its way,
/// without rewriting a message's text.
@Suite struct IdentityErrorNamingTests {
    static let auth0 = IdentityError.FieldNaming(profile: "user_profile", memberPrefix: "user_profile.", ceremony: "auth_session")
    static let kratos = IdentityError.FieldNaming(profile: "traits", memberPrefix: "traits.", ceremony: "flow")

    private func failure(_ body: () throws(IdentityError) -> Void) -> IdentityError? {
        do { try body() } catch { return error }
        return nil
    }

    @Test func aProfileMemberIsNamedByEachFace() throws {
        let error = try #require(failure { () throws(IdentityError) in _ = try ProfileValidation.validate(UserProfile(email: "not an address"), allowed: [.email]) })
        #expect(error.message == "email is not a valid email address (at most 254 bytes)", "the core's own words")
        #expect(error.message(Self.auth0) == "user_profile.email is not a valid email address (at most 254 bytes)")
        #expect(error.message(Self.kratos) == "traits.email is not a valid email address (at most 254 bytes)")
        #expect(error.field == IdentityError.Field.profileMember("email"))
        #expect(error.fieldName(Self.auth0) == "user_profile.email")
        #expect(error.fieldName(IdentityError.FieldNaming.core) == "email")
    }

    @Test func theProfileAsAWholeAndAMissingIdentifier() throws {
        let error = try #require(failure { () throws(IdentityError) in _ = try ProfileValidation.validate(UserProfile(), allowed: [.email, .phoneNumber]) })
        #expect(error.message(Self.auth0) == "user_profile needs an identifier: one of email, phone_number")
        #expect(error.message(Self.kratos) == "traits needs an identifier: one of email, phone_number")
        #expect(error.field == IdentityError.Field.profile)
    }

    @Test func aNameFieldKeepsTheFacesOwnSpelling() throws {
        let error = try #require(failure { () throws(IdentityError) in _ = try ProfileValidation.optionalName(String(repeating: "a", count: 101), field: IdentityError.Field.named("display_name")) })
        #expect(error.message(Self.auth0) == "display_name must be 1 to 100 characters without control characters")
        #expect(error.fieldName(Self.kratos) == "display_name", "a face's own member is spelled the same everywhere")
    }

    @Test func aMessageAboutTheCeremonyIsNotAFieldError() {
        let error = IdentityError(.invalidGrant, about: .ceremony, "is unknown", reason: .invalidAuthSession, isField: false)
        #expect(error.message(Self.auth0) == "auth_session is unknown")
        #expect(error.message(Self.kratos) == "flow is unknown")
        #expect(error.field == nil)
        #expect(error == IdentityError(.invalidGrant, "anything"), "equality is by code")
    }
}
