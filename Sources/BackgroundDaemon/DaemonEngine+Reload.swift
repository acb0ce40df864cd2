public import BackgroundCore
import BackgroundProtocol
import Foundation

/// What reading the manifests directory again changed (``DaemonEngine/reloadManifests()``).
public struct ManifestReload: Sendable, Hashable {
    /// Apps installed by a manifest that was not there before, ordered by bundle identifier.
    public var added: [AppID]
    /// Apps whose manifest (or launch command) changed: the new one is in force, for the core
    /// (permitted identifiers, modes) and for the next launch.
    public var updated: [AppID]
    /// Apps whose manifest is gone (or no longer loads): no longer launched or admitted. A
    /// process of theirs that runs is left running; their records in the store are kept, as at
    /// a start that finds them without a manifest.
    public var removed: [AppID]
    /// How many apps are installed after the reload.
    public var installed: Int
    /// The manifests that were not loaded, by file, with the reason (as at the start).
    public var problems: [ManifestDirectory.Problem]
}

extension DaemonEngine {
    /// Reads the manifests directory again, with every check of the start (the directory's
    /// owner and mode, each file's type, owner, mode and size, links never followed, the
    /// executable's trust, per-app uids), and puts the result in force: new apps are
    /// installed, changed manifests replace the old ones, apps whose manifest is gone are no
    /// longer launched. Reloads run one at a time; the inotify watch (``ManifestWatcher``) and
    /// `bgctl daemon reload` both come here.
    ///
    /// - Throws: ``DaemonError`` when the directory itself cannot be read safely (nothing
    ///   changes), or when this engine has no ``Configuration/manifestLoader``.
    public func reloadManifests() throws(DaemonError) -> ManifestReload {
        guard let loader = configuration.manifestLoader else {
            throw DaemonError(.badConfiguration, "this daemon reads its manifests only at the start")
        }
        return try reloading.withLock { _ throws(DaemonError) -> ManifestReload in
            let manifests = try loader()
            let (added, updated, removed) = state.withLock { state -> ([InstalledApp], [InstalledApp], [AppID]) in
                var added: [InstalledApp] = []
                var updated: [InstalledApp] = []
                for app in manifests.apps {  // ordered by bundle identifier
                    if let old = state.installed[app.id] {
                        if old != app { updated.append(app) }
                    } else {
                        added.append(app)
                    }
                    state.installed[app.id] = app
                }
                let kept = Set(manifests.apps.map(\.id))
                let removed = state.installed.keys.filter { !kept.contains($0) }.sorted()
                for app in removed { state.installed[app] = nil }
                return (added, updated, removed)
            }
            for app in added + updated { deliver(.install(app.manifest)) }
            return ManifestReload(
                added: added.map(\.id),
                updated: updated.map(\.id),
                removed: removed,
                installed: manifests.apps.count,
                problems: manifests.problems
            )
        }
    }

    /// ``reloadManifests()``, its outcome logged: for the watch, which has no one to answer.
    func reloadManifestsLogged(cause: String) {
        do {
            let reload = try reloadManifests()
            guard !reload.added.isEmpty || !reload.updated.isEmpty || !reload.removed.isEmpty else { return }
            logger.notice("\(cause): \(Self.summary(of: reload))")
            for problem in reload.problems { logger.error("manifest \(problem.file) not loaded: \(problem.reason)") }
        } catch {
            logger.error("\(cause), but the manifests could not be read again: \(error)")
        }
    }

    /// `bgctl daemon reload`: the answer names what changed and every manifest not loaded
    /// (`bgctl` exits 65 when there is one).
    func reloadReply() -> ControlReply {
        let reload: ManifestReload
        do {
            reload = try reloadManifests()
        } catch {
            // An unsafe or unreadable directory changes nothing: the apps in force stay.
            let outcome: ControlReply.Outcome = error.code == .unsafeDirectory ? .denied : .failed
            return reply(outcome, "the manifests could not be read again: \(error)", ["error": error.description])
        }
        var lines = [Self.summary(of: reload)]
        for problem in reload.problems { lines.append("not loaded: \(problem.file): \(problem.reason)") }
        return reply(
            .ok,
            lines.joined(separator: "\n"),
            [
                "added": reload.added.map(\.bundleIdentifier),
                "updated": reload.updated.map(\.bundleIdentifier),
                "removed": reload.removed.map(\.bundleIdentifier),
                "installed": reload.installed,
                "notLoaded": reload.problems.map { ["file": $0.file, "reason": $0.reason] },
            ]
        )
    }

    static func summary(of reload: ManifestReload) -> String {
        func list(_ apps: [AppID]) -> String {
            apps.isEmpty ? "none" : apps.map(\.bundleIdentifier).joined(separator: ", ")
        }
        return
            "\(reload.installed) apps installed; added: \(list(reload.added)); updated: \(list(reload.updated)); removed: \(list(reload.removed))"
            + (reload.problems.isEmpty ? "" : "; \(reload.problems.count) manifests not loaded")
    }
}
