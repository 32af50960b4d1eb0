import AppAssociation
import Foundation

extension DoctorRun {
    /// Apple's CDN refuses larger files.
    static let appleAssociationSizeLimit = 128 * 1024

    /// `/.well-known/apple-app-site-association`: `webcredentials.apps` must list every
    /// configured app as `TEAMID.bundle.id`.
    func checkAppleAppSiteAssociation() async -> DoctorSection {
        let url = url(".well-known/apple-app-site-association")
        var section = DoctorSection(title: "apple-app-site-association", url: url.absoluteString)
        let expected = settings?.appleApps.flatMap(\.appIDs) ?? []
        let checks = ResponseChecks(id: "aasa", fileName: "apple-app-site-association", url: url, sizeLimit: Self.appleAssociationSizeLimit)
        guard let document = checks.document(
            AppleAppSiteAssociation.self,
            from: await fetcher.fetch(url),
            shape: "an object with webcredentials.apps, a list of app IDs (TEAMID.bundle.id)",
            notFoundFix: "serve the file at \(url.absoluteString): iOS reads it from the RP ID's host when the app is installed (Latchkey serves it when a client has ios: { team_id, bundle_ids })",
            absentNote: expected.isEmpty ? (settings == nil ? "not served; it is needed only for Apple platform apps" : "not served; no Apple app is configured") : nil,
            in: &section
        ) else { return section }

        guard let apps = document.webcredentials?.apps, !apps.isEmpty else {
            section.add(.fail(
                "aasa.webcredentials", "has no webcredentials.apps",
                fix: "passkeys need {\"webcredentials\": {\"apps\": [\"TEAMID.bundle.id\"]}}; applinks alone do not let an app use the domain's passkeys"
            ))
            return section
        }
        let malformed = apps.filter { AppleApp.splitAppID($0) == nil }
        section.check(
            "aasa.webcredentials", passed: malformed.isEmpty, "webcredentials.apps lists \(apps.joined(separator: ", "))",
            failure: "webcredentials.apps has entries that are not app IDs: \(malformed.joined(separator: ", "))",
            fix: "an app ID is the 10-character team ID, a dot and the bundle ID, such as ABCDE12345.com.example.app"
        )
        for appID in expected {
            section.add(Self.check(expected: appID, in: apps))
        }
        if settings != nil {
            for extra in apps where !expected.contains(extra) && !malformed.contains(extra) {
                section.note("also lists \(extra), which the configuration does not name")
            }
        }
        return section
    }

    private static func check(expected appID: String, in apps: [String]) -> DoctorCheck {
        if apps.contains(appID) { return .pass("aasa.app", "includes the configured app \(appID)") }
        guard let (team, bundle) = AppleApp.splitAppID(appID) else {
            return .fail("aasa.app", "\(appID) is not an app ID", fix: "correct the client's ios settings")
        }
        if let other = apps.first(where: { AppleApp.splitAppID($0)?.bundleID == bundle }), let otherTeam = AppleApp.splitAppID(other)?.teamID {
            return .fail(
                "aasa.app", "lists \(other), not \(appID): the team ID is wrong",
                fix: "the configuration's team ID is \(team), the file says \(otherTeam); the team ID is on the Membership page of the Apple Developer portal. Correct whichever is wrong, then redeploy the file"
            )
        }
        return .fail(
            "aasa.app", "\(appID) is missing from webcredentials.apps",
            fix: "add \"\(appID)\" to webcredentials.apps; without it iOS will not offer the domain's passkeys in the app"
        )
    }
}
