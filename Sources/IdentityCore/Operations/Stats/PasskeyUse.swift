import Foundation
public import WebAuthn

/// What a passkey sign-in's audit event says of the passkey, so that the rollups (and anyone
/// reading the trail) can count providers, synced against device-bound passkeys, and
/// sign-ins from another device without looking the passkey up: `passkey <AAGUID>; synced`
/// or `…; device-bound`, with `; cross-device` for a sign-in over hybrid.
public struct PasskeyUse: Sendable, Hashable, CustomStringConvertible {
    public let aaguid: AAGUID
    /// Backup eligible: the provider syncs it.
    public let isSynced: Bool
    /// The passkey was on another device, reached over hybrid.
    public let isCrossDevice: Bool

    public init(aaguid: AAGUID, isSynced: Bool, isCrossDevice: Bool) {
        self.aaguid = aaguid
        self.isSynced = isSynced
        self.isCrossDevice = isCrossDevice
    }

    public var description: String {
        "passkey \(aaguid.uuidString.lowercased()); \(isSynced ? "synced" : "device-bound")\(isCrossDevice ? "; cross-device" : "")"
    }

    /// Reads a detail written by ``description``; `nil` for any other text.
    public init?(detail: String) {
        guard detail.hasPrefix("passkey ") else { return nil }
        let parts = detail.dropFirst("passkey ".count).split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count >= 2, let aaguid = AAGUID(uuidString: parts[0]), parts[1] == "synced" || parts[1] == "device-bound" else { return nil }
        self.init(aaguid: aaguid, isSynced: parts[1] == "synced", isCrossDevice: parts.dropFirst(2).contains("cross-device"))
    }
}
