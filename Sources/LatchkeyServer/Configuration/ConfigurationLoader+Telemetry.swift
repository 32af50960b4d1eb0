import Foundation
import IdentityCore

extension ConfigurationLoader {
    /// `telemetry`: OpenTelemetry over OTLP/HTTP. Present, it needs `otlp_endpoint`; absent,
    /// the standard `OTEL_EXPORTER_OTLP_ENDPOINT` alone turns it on (with the other
    /// `OTEL_*` variables, which the exporter reads itself), unless `OTEL_SDK_DISABLED` is
    /// true. Neither: off, and nothing is traced.
    static func parseTelemetry(_ node: YAMLReader, environment: Environment) throws(ConfigurationError) -> LatchkeyConfiguration.Telemetry? {
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" { return nil }
        guard node.isPresent else {
            guard let endpoint = environment["OTEL_EXPORTER_OTLP_ENDPOINT"], !endpoint.isEmpty else { return nil }
            let url = try otlpEndpoint(endpoint) { message throws(ConfigurationError) in ConfigurationError(key: "OTEL_EXPORTER_OTLP_ENDPOINT", message) }
            return .init(otlpEndpoint: url, serviceName: environment["OTEL_SERVICE_NAME"] ?? "latchkey", sampleRatio: 1, headers: [])
        }
        try node.requireKeys(["otlp_endpoint", "service_name", "sample_ratio", "headers"])
        let endpointNode = node.child("otlp_endpoint")
        guard let endpoint = try endpointNode.string() else {
            throw endpointNode.error("is required: the collector's OTLP/HTTP address, such as http://127.0.0.1:4318")
        }
        let url = try otlpEndpoint(endpoint) { message throws(ConfigurationError) in endpointNode.error(message) }
        let nameNode = node.child("service_name")
        let serviceName = try nameNode.string() ?? "latchkey"
        guard !serviceName.isEmpty else { throw nameNode.error("must not be empty") }
        let ratioNode = node.child("sample_ratio")
        var ratio = 1.0
        if let text = try ratioNode.string() {
            guard let value = Double(text), (0...1).contains(value) else {
                throw ratioNode.error("must be a number from 0 to 1 (the share of traces recorded), found \"\(text.prefix(40))\"")
            }
            ratio = value
        }
        let headersNode = node.child("headers")
        var headers: [(String, String)] = []
        for name in try headersNode.keys() {
            let valueNode = headersNode.child(name)
            let value = try valueNode.string() ?? ""
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else { throw valueNode.error("is not a valid HTTP header name") }
            guard !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else { throw valueNode.error("must be one line") }
            headers.append((name, value))
        }
        return .init(otlpEndpoint: url, serviceName: serviceName, sampleRatio: ratio, headers: headers)
    }

    /// The collector's base address: http or https with a host, and no query; a trailing
    /// slash is dropped, since each signal's path (`/v1/traces`) is added to it.
    private static func otlpEndpoint(_ text: String, _ failure: (String) throws(ConfigurationError) -> ConfigurationError) throws(ConfigurationError) -> String {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host?.isEmpty == false,
            url.query == nil, url.fragment == nil
        else {
            throw try failure("must be an http or https URL of an OTLP/HTTP collector, such as http://127.0.0.1:4318, found \"\(text.prefix(80))\"")
        }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// RFC 9110's `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
