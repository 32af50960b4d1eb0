import Foundation
#if canImport(AuthenticationServices)
import AuthenticationServices
#else
import AuthenticationServicesShim
#endif
import LatchkeyClient

/// What the system sheet returned, by kind of credential.
enum AuthorizationOutcome {
    case registration(ASAuthorizationPlatformPublicKeyCredentialRegistration)
    case assertion(ASAuthorizationPlatformPublicKeyCredentialAssertion)
    /// iOS and macOS 26: the account creation API's credential, with the identifier and
    /// name the person chose.
    case accountCreation(AnyObject)
}

/// How the controller presents: a sheet, a sheet only when a credential is at hand, or
/// AutoFill suggestions.
enum PresentationMode {
    case modal, immediate, autoFill
}

/// `ASAuthorizationController`'s delegate callbacks as one `async` call. The controller and
/// this object keep each other alive until the delegate has been called.
@MainActor
final class AuthorizationBridge: NSObject, ASAuthorizationControllerDelegate, ASAuthorizationControllerPresentationContextProviding {
    private let anchor: @MainActor () -> ASPresentationAnchor
    private var continuation: CheckedContinuation<MainActorBound<ASAuthorization>, any Error>?
    private var controller: ASAuthorizationController?

    init(anchor: @escaping @MainActor () -> ASPresentationAnchor) {
        self.anchor = anchor
    }

    /// Performs `request` and returns what the person chose.
    func perform(_ request: ASAuthorizationRequest, mode: PresentationMode) async throws -> AuthorizationOutcome {
        let controller = ASAuthorizationController(authorizationRequests: [request])
        controller.delegate = self
        controller.presentationContextProvider = self
        self.controller = controller
        let authorization = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<MainActorBound<ASAuthorization>, any Error>) in
            self.continuation = continuation
            switch mode {
            case .modal: controller.performRequests()
            case .immediate: controller.performRequests(options: .preferImmediatelyAvailableCredentials)
            case .autoFill: controller.performAutoFillAssistedRequests()
            }
        }
        let credential = authorization.value.credential
        if let registration = credential as? ASAuthorizationPlatformPublicKeyCredentialRegistration { return .registration(registration) }
        if let assertion = credential as? ASAuthorizationPlatformPublicKeyCredentialAssertion { return .assertion(assertion) }
        if #available(iOS 26.0, macOS 26.0, visionOS 26.0, *), let account = credential as? ASAuthorizationAccountCreationPlatformPublicKeyCredential {
            return .accountCreation(account)
        }
        throw LatchkeyAPIError(status: nil, code: .passkeyFailed, detail: "the system returned a \(type(of: credential)), not a passkey")
    }

    nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {
        let bound = MainActorBound(value: authorization)
        MainActor.assumeIsolated { finish(.success(bound)) }
    }

    nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        MainActor.assumeIsolated { finish(.failure(error)) }
    }

    nonisolated func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
        MainActor.assumeIsolated { anchor() }
    }

    private func finish(_ result: Result<MainActorBound<ASAuthorization>, any Error>) {
        let continuation = self.continuation
        self.continuation = nil
        controller = nil
        continuation?.resume(with: result)
    }
}

/// A value that is created, passed and read on the main actor only (the system calls the
/// delegate there); the continuation's type demands Sendable.
struct MainActorBound<Value>: @unchecked Sendable {
    let value: Value
}
