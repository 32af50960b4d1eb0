import Foundation
import Hummingbird
import IdentityCore

/// The JSON of the Shared Signals API: the transmitter's metadata (SSF §7.1), a stream's
/// configuration (§8.1.1) and status (§8.1.2), and what receivers send.
enum SharedSignalsDocuments {
    /// `/.well-known/ssf-configuration`.
    static func configuration(issuer: String) -> [String: Any] {
        [
            "spec_version": "1_0",
            "issuer": issuer,
            "jwks_uri": issuer + "oauth/jwks",
            "delivery_methods_supported": [SignalStream.Delivery.pushMethod, SignalStream.Delivery.pollMethod],
            "configuration_endpoint": issuer + "ssf/streams",
            "status_endpoint": issuer + "ssf/status",
            "add_subject_endpoint": issuer + "ssf/subjects/add",
            "remove_subject_endpoint": issuer + "ssf/subjects/remove",
            "verification_endpoint": issuer + "ssf/verify",
            // A bearer admin API key of scope ssf:write: an OAuth 2.0 bearer token (RFC 6750).
            "authorization_schemes": [["spec_urn": "urn:ietf:rfc:6750"]],
            "default_subjects": "ALL",
        ]
    }

    /// A stream's configuration.
    static func stream(_ stream: SignalStream, issuer: String) -> [String: Any] {
        var delivery: [String: Any]
        switch stream.delivery {
        case .push(let endpoint, let authorization):
            delivery = ["method": SignalStream.Delivery.pushMethod, "endpoint_url": endpoint.absoluteString]
            // Said back to the receiver that set it, as SSF §8.1.1 has it.
            if let authorization { delivery["authorization_header"] = authorization }
        case .poll:
            delivery = ["method": SignalStream.Delivery.pollMethod, "endpoint_url": issuer + "ssf/poll/" + stream.id]
        }
        var object: [String: Any] = [
            "stream_id": stream.id, "iss": issuer, "aud": stream.audience, "delivery": delivery,
            "events_supported": SignalEventType.supported.map(\.rawValue), "events_requested": stream.eventsRequested,
            "events_delivered": stream.eventsDelivered.map(\.rawValue), "subject_format": stream.subjectFormat.rawValue,
            "min_verification_interval": Int(SharedSignalsService.minimumVerificationInterval),
        ]
        if let description = stream.description { object["description"] = description }
        return object
    }

    /// A stream's status.
    static func status(_ stream: SignalStream) -> [String: Any] {
        var object: [String: Any] = ["stream_id": stream.id, "status": stream.status.rawValue]
        if let reason = stream.statusReason { object["reason"] = reason }
        return object
    }

    /// The members a receiver supplies, and the transmitter's it repeats.
    static func streamRequest(_ object: [String: Any]) throws -> SharedSignalsService.StreamRequest {
        var request = SharedSignalsService.StreamRequest()
        if let delivery = object["delivery"] {
            guard let delivery = delivery as? [String: Any] else { throw invalid("delivery must be an object", "delivery") }
            guard let method = delivery["method"] as? String else { throw invalid("delivery.method is required", "delivery.method") }
            request.delivery = (method, try optionalString(delivery, "endpoint_url", in: "delivery."), try optionalString(delivery, "authorization_header", in: "delivery."))
        }
        if let requested = object["events_requested"] {
            guard let list = requested as? [String] else { throw invalid("events_requested must be an array of event type URIs", "events_requested") }
            request.eventsRequested = list
        }
        request.description = try optionalString(object, "description")
        request.subjectFormat = try optionalString(object, "subject_format")
        for name in ["iss", "aud", "events_supported", "events_delivered", "min_verification_interval", "inactivity_timeout"] {
            guard let value = object[name] else { continue }
            request.transmitterSupplied[name] = value as? String ?? "\(value)"
        }
        return request
    }

    /// `stream_id` of a body.
    static func streamID(_ object: [String: Any]) throws -> String {
        guard let id = object["stream_id"] as? String, !id.isEmpty else { throw invalid("stream_id is required", "stream_id") }
        return id
    }

    /// `stream_id` of the query.
    static func queryStreamID(_ request: Request) throws -> String {
        guard let id = request.uri.queryParameters["stream_id"], !id.isEmpty else { throw invalid("the stream_id query parameter is required", "stream_id") }
        return String(id)
    }

    /// A member that is a string when present.
    static func optionalString(_ object: [String: Any], _ name: String, in prefix: String = "") throws -> String? {
        guard let value = object[name], !(value is NSNull) else { return nil }
        guard let text = value as? String else { throw invalid("\(prefix)\(name) must be a string", prefix + name) }
        return text
    }

    /// `subject`: a subject identifier (RFC 9493) of string members.
    static func subject(_ object: [String: Any]) throws -> [String: String] {
        guard let subject = object["subject"] as? [String: Any], subject["format"] is String else {
            throw invalid("subject must be a subject identifier with a format", "subject")
        }
        return subject.compactMapValues { $0 as? String }
    }

    /// A poll's members (RFC 8936 §2.2).
    static func pollRequest(_ object: [String: Any]) throws -> (acknowledged: [String], errors: [String: String], maximum: Int?, returnImmediately: Bool) {
        let acknowledged = object["ack"] as? [String] ?? []
        guard object["ack"] == nil || object["ack"] is [String] else { throw invalid("ack must be an array of jti values", "ack") }
        var errors: [String: String] = [:]
        if let given = object["setErrs"] {
            guard let map = given as? [String: Any] else { throw invalid("setErrs must be an object", "setErrs") }
            for (jti, value) in map {
                let error = value as? [String: Any]
                errors[jti] = [error?["err"] as? String, error?["description"] as? String].compactMap { $0 }.joined(separator: ": ")
            }
        }
        var maximum: Int?
        if let given = object["maxEvents"] {
            guard let number = given as? Int, number >= 0 else { throw invalid("maxEvents must be a whole number of 0 or more", "maxEvents") }
            maximum = number
        }
        if let given = object["returnImmediately"], !(given is Bool) { throw invalid("returnImmediately must be true or false", "returnImmediately") }
        return (acknowledged, errors, maximum, object["returnImmediately"] as? Bool ?? false)
    }

    private static func invalid(_ message: String, _ field: String) -> IdentityError {
        IdentityError(.invalidRequest, message, field: field)
    }
}
