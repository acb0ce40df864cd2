import BackgroundCore
import Foundation

/// One run of the rules over a manifest and the facts from the sources.
struct Examination {
    var manifest: AppManifest?
    var manifestPath: String?
    var facts: SourceFacts?

    /// A resolved identifier use.
    struct Use {
        var use: IdentifierUse
        var identifier: String
    }

    private var bundleIdentifier: String? { manifest?.bundleIdentifier.bundleIdentifier }

    func findings() -> [Finding] {
        var findings = manifestFindings()
        guard let facts else { return findings }
        var resolved: [Use] = []
        var unresolvedRegistrations = 0
        for use in facts.identifierUses {
            switch facts.constants.resolve(use.expression, in: use.context.types, bundleIdentifier: bundleIdentifier) {
            case .value(let identifier):
                resolved.append(Use(use: use, identifier: identifier))
            case .unresolved(let reason):
                if use.role == .register { unresolvedRegistrations += 1 }
                findings.append(unresolved(use, reason: reason))
            }
        }
        let sources = SourceRules(facts: facts, uses: resolved, manifest: manifest, manifestPath: manifestPath)
        findings += sources.registrationFindings(unresolvedRegistrations: unresolvedRegistrations)
        findings += sources.backgroundTaskFindings()
        if let manifest {
            findings += sources.permissionFindings(manifest, unresolvedRegistrations: unresolvedRegistrations)
            if manifest.declaresTaskSchedulerIdentifiers {
                findings += facts.fetchIntervalCalls.map { position in
                    Finding(
                        .fetchDisabledByPermittedIdentifiers,
                        "setMinimumBackgroundFetchInterval(_:) is called, but the manifest declares "
                            + "BGTaskSchedulerPermittedIdentifiers, so legacy background fetch never runs",
                        fix: "schedule a BGAppRefreshTaskRequest (registered at launch) instead of background fetch",
                        at: position
                    )
                }
            }
        }
        return findings
    }

    private func unresolved(_ use: IdentifierUse, reason: String) -> Finding {
        let call =
            switch use.role {
            case .register: "register(forTaskWithIdentifier:)"
            case .request(let kind): "\(kind.rawValue)(identifier:)"
            case .cancel: "cancel(taskRequestWithIdentifier:)"
            }
        return Finding(
            .unresolvedIdentifier,
            "the identifier passed to \(call) cannot be resolved: \(reason)",
            fix: "use a string literal, a `static let` constant or an enum raw value the doctor can read",
            at: use.position
        )
    }

    // MARK: The manifest alone

    private func manifestFindings() -> [Finding] {
        guard let manifest else { return [] }
        var findings: [Finding] = []
        for mode in manifest.backgroundModes.sorted(by: { $0.rawValue < $1.rawValue }) where !mode.isKnown {
            let guess = BackgroundMode.known.min {
                distance(mode.rawValue, $0.rawValue) < distance(mode.rawValue, $1.rawValue)
            }
            let suggestion = guess.flatMap { distance(mode.rawValue, $0.rawValue) <= 3 ? $0.rawValue : nil }
            findings.append(
                Finding(
                    .unknownBackgroundMode,
                    "UIBackgroundModes contains '\(mode.rawValue)', which is not a background mode"
                        + (suggestion.map { " (did you mean '\($0)'?)" } ?? ""),
                    fix: suggestion.map { "write '\($0)'" } ?? "remove '\(mode.rawValue)' from UIBackgroundModes",
                    at: manifestPosition(of: mode.rawValue)
                )
            )
        }
        let expected = manifest.bundleIdentifier.bundleIdentifier + "."
        for entry in manifest.permittedTaskIdentifiers {
            guard let prefix = AppManifest.wildcardPrefix(of: entry), !prefix.hasPrefix(expected) else { continue }
            findings.append(
                Finding(
                    .wildcardForm,
                    "the wildcard '\(entry)' in BGTaskSchedulerPermittedIdentifiers does not start with the bundle "
                        + "identifier '\(manifest.bundleIdentifier.bundleIdentifier)'",
                    fix: "write it as '\(expected)<context>.*'",
                    at: manifestPosition(of: entry)
                )
            )
        }
        return findings
    }

    /// The manifest's line holding a value (see ``ManifestInput/position(of:in:)``).
    func manifestPosition(of value: String) -> SourcePosition? {
        manifestPath.map { ManifestInput.position(of: value, in: $0) }
    }

    /// Levenshtein distance, for "did you mean" on misspelled modes.
    private func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let saved = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = saved
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}
