import BackgroundCore

extension SourceRules {
    /// Identifiers against `BGTaskSchedulerPermittedIdentifiers`, and request kinds against `UIBackgroundModes`.
    func permissionFindings(_ manifest: AppManifest, unresolvedRegistrations: Int) -> [Finding] {
        var findings: [Finding] = []
        let patterns = Set(manifest.permittedTaskIdentifiers)
        for use in uses where use.use.role != .cancel && !manifest.permits(taskIdentifier: use.identifier) {
            // Registering the wildcard itself is permitted; submissions then miss it (submitted-not-registered).
            if use.use.role == .register && patterns.contains(use.identifier) { continue }
            findings.append(notPermitted(use, manifest))
        }
        findings += neverRegistered(manifest, unresolvedRegistrations: unresolvedRegistrations)
        let needs: [(RequestKind, BackgroundMode)] = [(.refresh, .fetch), (.processing, .processing)]
        for (kind, mode) in needs where !manifest.backgroundModes.contains(mode) {
            guard let first = uses.first(where: { $0.use.role == .request(kind) }) else { continue }
            findings.append(
                Finding(
                    .missingBackgroundMode,
                    "the app creates a \(kind.rawValue) ('\(first.identifier)') but UIBackgroundModes has no "
                        + "'\(mode.rawValue)'",
                    fix: "add <string>\(mode.rawValue)</string> to UIBackgroundModes in Info.plist",
                    at: first.use.position
                )
            )
        }
        return findings
    }

    private func notPermitted(_ use: Examination.Use, _ manifest: AppManifest) -> Finding {
        let verb = use.use.role == .register ? "registered" : "submitted"
        var why =
            manifest.declaresTaskSchedulerIdentifiers
            ? "BGTaskSchedulerPermittedIdentifiers does not list it"
            : "the manifest has no BGTaskSchedulerPermittedIdentifiers"
        let wildcards = manifest.permittedTaskIdentifiers.compactMap(AppManifest.wildcardPrefix(of:))
        if let prefix = wildcards.first(where: { use.identifier == $0 || use.identifier.hasPrefix($0 + ".") }) {
            why +=
                "; the wildcard '\(prefix).*' permits only '\(prefix).' followed by one or more non-empty components"
        }
        let continued = use.use.role == .request(.continuedProcessing)
        return Finding(
            .identifierNotPermitted,
            "'\(use.identifier)' is \(verb) but \(why)",
            fix: "add <string>\(use.identifier)</string> to BGTaskSchedulerPermittedIdentifiers in Info.plist"
                + (continued
                    ? ", or a wildcard '\(manifest.bundleIdentifier.bundleIdentifier).<context>.*' for continued processing"
                    : ""),
            at: use.use.position,
            identifier: use.identifier
        )
    }

    private func neverRegistered(_ manifest: AppManifest, unresolvedRegistrations: Int) -> [Finding] {
        let registered = uses.filter { $0.use.role == .register }.map(\.identifier)
        var findings: [Finding] = []
        for entry in manifest.permittedTaskIdentifiers {
            let covered: Bool
            if let prefix = AppManifest.wildcardPrefix(of: entry) {
                covered = registered.contains { $0 == entry || $0.hasPrefix(prefix + ".") }
            } else {
                covered = registered.contains(entry)
            }
            guard !covered else { continue }
            let caveat =
                unresolvedRegistrations > 0
                ? " (\(unresolvedRegistrations) registration(s) could not be resolved; it may be one of them)" : ""
            findings.append(
                Finding(
                    .permittedNeverRegistered,
                    "'\(entry)' is permitted in BGTaskSchedulerPermittedIdentifiers but never registered" + caveat,
                    fix: "register it in application(_:didFinishLaunchingWithOptions:), or remove it from the manifest",
                    at: manifestPath.map { ManifestInput.position(of: entry, in: $0) },
                    identifier: entry
                )
            )
        }
        return findings
    }
}
