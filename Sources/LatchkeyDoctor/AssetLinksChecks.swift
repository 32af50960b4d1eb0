import AppAssociation
import Foundation

extension DoctorRun {
    /// `/.well-known/assetlinks.json`: a statement per configured Android app, granting
    /// `get_login_creds`, with every configured signing-certificate fingerprint.
    func checkAssetLinks() async -> DoctorSection {
        let url = url(".well-known/assetlinks.json")
        var section = DoctorSection(title: "assetlinks.json", url: url.absoluteString)
        let expected = settings?.androidApps ?? []
        let outcome = await fetcher.fetch(url)
        let checks = ResponseChecks(id: "assetlinks", fileName: "assetlinks.json", url: url)
        let statements = checks.document(
            [AssetLinkStatement].self,
            from: outcome,
            shape: "a list of statements, each with relation and target {namespace, package_name, sha256_cert_fingerprints}",
            notFoundFix: "serve the file at \(url.absoluteString), the RP ID's exact host (Latchkey serves it when a client has android: { package_name, sha256_cert_fingerprints })",
            absentNote: expected.isEmpty ? (settings == nil ? "not served; it is needed only for Android apps" : "not served; no Android app is configured") : nil,
            in: &section
        )
        // Nothing was checked when the file is absent and not needed.
        if !section.checks.isEmpty { await checkExactHost(outcome, in: &section) }
        guard let statements else { return section }

        let apps = statements.filter { $0.target?.namespace == "android_app" }
        guard !apps.isEmpty else {
            section.add(.fail("assetlinks.statements", "has no android_app statement", fix: "add a statement whose target is {\"namespace\": \"android_app\", \"package_name\": …, \"sha256_cert_fingerprints\": […]}"))
            return section
        }
        checkWildcards(statements, in: &section)
        checkFingerprintFormat(apps, in: &section)
        if expected.isEmpty {
            for statement in apps where !(statement.relation ?? []).contains(AssetLinkStatement.getLoginCredentials) {
                section.add(Self.missingLoginCredentials(statement.target?.package_name ?? "an app"))
            }
        }
        for app in expected {
            checkApp(app, statements: apps, in: &section)
        }
        return section
    }

    /// Android reads the file only at the RP ID's exact host. When the API runs on another
    /// host, a copy there does not count.
    private func checkExactHost(_ outcome: FetchOutcome, in section: inout DoctorSection) async {
        guard relyingPartyID != site.host else {
            section.add(.pass("assetlinks.host", "fetched from the RP ID's own host, where Android looks (it has no wildcard or parent-domain matching)"))
            return
        }
        guard case .response(let response) = outcome, response.status != 200 else {
            section.add(.pass("assetlinks.host", "served at the RP ID's own host \(relyingPartyID), where Android looks"))
            return
        }
        let elsewhere = site.origin.appendingPathComponent(".well-known/assetlinks.json")
        if case .response(let copy) = await fetcher.fetch(elsewhere), copy.status == 200 {
            section.add(.fail(
                "assetlinks.host", "served at \(site.host) but not at the RP ID's host \(relyingPartyID)",
                fix: "Android reads assetlinks.json only from https://\(relyingPartyID)/.well-known/assetlinks.json; it does not use wildcards, subdomains or parent domains. Serve or proxy the file there"
            ))
        }
    }

    private func checkWildcards(_ statements: [AssetLinkStatement], in section: inout DoctorSection) {
        let wild = statements.compactMap { statement -> String? in
            let values = [statement.target?.package_name, statement.target?.site].compactMap { $0 }
            return values.first { $0.contains("*") }
        }
        section.check(
            "assetlinks.wildcards", passed: wild.isEmpty, "no wildcards in package names or sites",
            failure: "uses wildcards: \(wild.joined(separator: ", "))",
            fix: "Digital Asset Links has no wildcards; name each package and site exactly, and serve the file at every exact host that needs it"
        )
    }

    private func checkFingerprintFormat(_ apps: [AssetLinkStatement], in section: inout DoctorSection) {
        var problems: [String] = []
        for statement in apps {
            let package = statement.target?.package_name ?? "(no package_name)"
            if !AndroidApp.validatePackageName(package) { problems.append("package_name \"\(package)\" is not an application ID") }
            let texts = statement.target?.sha256_cert_fingerprints ?? []
            if texts.isEmpty { problems.append("\(package) lists no sha256_cert_fingerprints") }
            for text in texts {
                do {
                    let fingerprint = try CertificateFingerprint(parsing: text)
                    if fingerprint.description != text {
                        problems.append("\(package): \(text) is not written as uppercase hex pairs separated by colons (\(fingerprint))")
                    }
                } catch {
                    problems.append("\(package): \(text) \(error)")
                }
            }
        }
        section.check(
            "assetlinks.format", passed: problems.isEmpty, "every statement names a package and SHA-256 fingerprints in the expected form",
            failure: problems.joined(separator: "; "),
            fix: "write each fingerprint as keytool's SHA256 line prints it: 32 uppercase hex pairs separated by colons"
        )
    }

    private func checkApp(_ app: AndroidApp, statements: [AssetLinkStatement], in section: inout DoctorSection) {
        let mine = statements.filter { $0.target?.package_name == app.packageName }
        guard !mine.isEmpty else {
            let packages = statements.compactMap { $0.target?.package_name }
            section.add(.fail(
                "assetlinks.package", "has no statement for \(app.packageName)\(packages.isEmpty ? "" : "; it lists \(packages.joined(separator: ", "))")",
                fix: "add a statement for \(app.packageName) (the applicationId in build.gradle) with relation delegate_permission/common.get_login_creds and its fingerprints"
            ))
            return
        }
        section.add(.pass("assetlinks.package", "has a statement for \(app.packageName)"))
        if mine.contains(where: { ($0.relation ?? []).contains(AssetLinkStatement.getLoginCredentials) }) {
            section.add(.pass("assetlinks.relation", "grants \(app.packageName) delegate_permission/common.get_login_creds"))
        } else {
            section.add(Self.missingLoginCredentials(app.packageName))
        }
        let listed = Set(mine.flatMap { $0.target?.sha256_cert_fingerprints ?? [] }.compactMap { try? CertificateFingerprint(parsing: $0) })
        let missing = app.fingerprints.filter { !listed.contains($0) }
        section.check(
            "assetlinks.fingerprints", passed: missing.isEmpty, "lists all \(app.fingerprints.count) configured fingerprint(s) of \(app.packageName)",
            failure: "\(app.packageName) is missing fingerprint(s) \(missing.map(\.description).joined(separator: ", "))",
            fix: "list every certificate the app is signed with: the Play App Signing key (Play Console, App integrity), the upload key and the debug key (keytool -list -v prints each SHA256); an app signed with a missing one gets no passkeys"
        )
        for extra in listed.subtracting(app.fingerprints).sorted(by: { $0.description < $1.description }) {
            section.note("\(app.packageName) also lists \(extra), which the configuration does not name; Latchkey will reject its origin \(extra.androidOrigin)")
        }
    }

    private static func missingLoginCredentials(_ package: String) -> DoctorCheck {
        .fail(
            "assetlinks.relation", "\(package) is not granted delegate_permission/common.get_login_creds",
            fix: "add \"delegate_permission/common.get_login_creds\" to the statement's relation; without it Android will not let the app use the domain's passkeys"
        )
    }
}
