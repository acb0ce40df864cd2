public import BackgroundControl
import BackgroundCore
import BackgroundPaths
import BackgroundPosix
import Foundation

extension EmbeddedSystem {
    /// Accepts `bgctl`'s debug commands (`why`, `status`, `simulate-launch`,
    /// `simulate-expiration`) while the process runs.
    ///
    /// Listens on a Unix-domain socket of this process alone, `<pid>.<nonce>.sock` (mode
    /// `0600`) in the app's control directory (mode `0700`, owned by this user, created so
    /// under any umask; an existing one that is a symbolic link, owned by someone else or open
    /// to others is refused). Callers are checked with `SO_PEERCRED`: only this user and root
    /// are answered. Commands are served on a thread of their own, never on the signal path.
    /// The iOS debugger hooks work only on a device with a debugger attached; this is their
    /// equivalent for a running Linux process.
    ///
    /// - Parameter directory: The control directory; by default
    ///   `StateDirectories.controlDirectory(for:)` of `StateDirectories.current`.
    /// - Throws: ``DebugChannelError`` naming the directory and what is wrong with it.
    public func acceptDebugCommands(in directory: URL? = nil) throws(DebugChannelError) {
        guard let path = directory?.path ?? StateDirectories.current.controlDirectory(for: app) else {
            throw DebugChannelError(
                "no control directory: set BACKGROUND_CONTROL_DIR, XDG_STATE_HOME or HOME to an absolute path"
            )
        }
        let logger = configuration.logger
        do {
            let secure = try SecureDirectory.open(path, access: .privateToOwner, creating: true)
            let answer: @Sendable (DebugCommand) -> DebugReply = { [weak self] command in
                self?.run(command) ?? DebugReply(.rejected, "the app is shutting down\n")
            }
            let server = try ControlServer.start(in: secure, log: { logger.warning("\($0)") }, handler: answer)
            logger.info("accepting debug commands at \(ControlCharacters.escaped(path))/\(server.socketName)")
        } catch let error as SecureDirectoryError {
            throw DebugChannelError("\(error)")
        } catch {
            throw DebugChannelError("\(ControlCharacters.escaped(path)): \(error)")
        }
    }

    /// Carries out one command and returns its answer. Names in the text have their control
    /// characters escaped.
    public func run(_ command: DebugCommand) -> DebugReply {
        let identifier = ControlCharacters.escaped(command.identifier ?? "")
        switch command.action {
        case .why:
            return withDocument(explain(identifier: command.identifier), if: command.json) {
                try whyDocument(identifier: command.identifier, history: false)
            }
        case .whyWithHistory:
            return withDocument(explainWithHistory(identifier: command.identifier), if: command.json) {
                try whyDocument(identifier: command.identifier, history: true)
            }
        case .status:
            return withDocument(DebugReply(.done, statusText()), if: command.json) { try statusDocument() }
        case .simulateLaunch:
            guard pendingTaskRequests().contains(where: { $0.identifier == command.identifier }) else {
                return DebugReply(.notFound, "no pending task request with identifier \(identifier)\n")
            }
            simulateLaunch(forTaskWithIdentifier: command.identifier ?? "")
            return DebugReply(.done, "Simulating launch for task with identifier \(identifier)\n")
        case .simulateExpiration:
            guard runningTasks.contains(where: { $0.request.identifier == command.identifier }) else {
                return DebugReply(.notFound, "no running task with identifier \(identifier)\n")
            }
            simulateExpiration(forTaskWithIdentifier: command.identifier ?? "")
            return DebugReply(.done, "Simulating expiration for task with identifier \(identifier)\n")
        case .push:
            return push(command.payload ?? "", json: command.json)
        }
    }

    private func explain(identifier: String?) -> DebugReply {
        let status = transferStatus()
        let transfers = transfers(matching: identifier, in: status)
        let listed = status.map { status in transfers.map { self.transferText($0, of: status) }.joined() } ?? ""
        let awake = keptAwakeLine()
        if identifier != nil, !transfers.isEmpty { return DebugReply(.done, awake + listed) }
        let identifiers = identifier.map { [$0] } ?? pendingTaskRequests().map(\.identifier)
        guard !identifiers.isEmpty else {
            return DebugReply(.done, awake + (transfers.isEmpty ? "no pending task requests\n" : listed))
        }
        var found = false
        let text = identifiers.map { identifier in
            guard let why = eligibility(forTaskWithIdentifier: identifier) else {
                return "\(ControlCharacters.escaped(identifier)): no pending task request with this identifier\n"
            }
            found = true
            return ControlCharacters.escapedLines(why.renderText(formatInstant: formatWallClock))
        }.joined()
        return DebugReply(found ? .done : .notFound, awake + text + listed)
    }

    private func explainWithHistory(identifier: String?) -> DebugReply {
        let now = self.now
        let identifiers = identifier.map { [$0] } ?? state.withLock { $0.core.explainedIdentifiers(of: app) }
        let awake = keptAwakeLine()
        guard !identifiers.isEmpty else { return DebugReply(.done, awake + "nothing pending and no run recorded\n") }
        var found = false
        let text = identifiers.map { identifier in
            guard let explanation = state.withLock({ $0.core.explanation(of: app, identifier: identifier, at: now) })
            else { return "\(ControlCharacters.escaped(identifier)): no pending task request with this identifier\n" }
            found = true
            return ControlCharacters.escapedLines(explanation.renderText(formatInstant: formatWallClock))
        }.joined()
        return DebugReply(found ? .done : .notFound, awake + text)
    }

    private func statusText() -> String {
        let pid = ProcessInfo.processInfo.processIdentifier
        let now = self.now
        var lines = ["\(ControlCharacters.escaped(app.bundleIdentifier)) [pid \(pid)]: \(lifecycleState)"]
        if let awake = keptAwake { lines.append("  \(awake.keepsAwakeText(at: now))") }
        for activity in modeActivities {
            let held = DurationText.format(activity.heldFor(at: now))
            lines.append("  mode '\(activity.mode)' held since \(formatWallClock(activity.since)) (\(held))")
        }
        for request in pendingTaskRequests() {
            let earliest = request.earliestBegin.map(formatWallClock) ?? "now"
            lines.append(
                "  pending \(ControlCharacters.escaped(request.identifier)) (\(request.kind)), earliest \(earliest)"
            )
        }
        for run in runningTasks {
            lines.append(
                "  running \(ControlCharacters.escaped(run.request.identifier)) (\(run.request.kind)), since \(formatWallClock(run.startedAt))"
            )
        }
        lines += ConditionDocument.embedded(device).map { "  " + $0.line }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The reply with its JSON document when one was asked for; a document that cannot be
    /// encoded turns the reply into a rejection naming why.
    func withDocument(_ reply: DebugReply, if asked: Bool?, _ document: () throws -> String) -> DebugReply {
        guard asked == true else { return reply }
        do {
            var answered = reply
            answered.document = try document()
            return answered
        } catch {
            return DebugReply(.rejected, "the answer could not be encoded as JSON: \(error)\n")
        }
    }

    /// `why --json` from the running app: the same document as from a store or a scenario.
    private func whyDocument(identifier: String?, history: Bool) throws -> String {
        let now = self.now
        let (identifiers, explanations) = state.withLock { state -> ([String], [String: RequestExplanation]) in
            let asked: [String]
            if let identifier {
                asked = [identifier]
            } else if history {
                asked = state.core.explainedIdentifiers(of: app)
            } else {
                asked = state.core.pendingRequests(of: app).map(\.identifier)
            }
            var found: [String: RequestExplanation] = [:]
            for id in asked {
                if let explanation = state.core.explanation(of: app, identifier: id, at: now) {
                    found[id] = explanation
                }
            }
            return (asked, found)
        }
        let kept = identifiers.compactMap { explanations[$0] }
        let status = transferStatus()
        let transfers = transferDocuments(matching: identifier, in: status)
        let document = WhyDocument(
            app: app,
            timelineOrigin: formatWallClock(.zero),
            now: now,
            nowDate: formatWallClock(now),
            explanations: history ? kept : kept.filter { $0.eligibility != nil }.map(\.withoutHistory),
            unknown: identifiers.filter { id in explanations[id] == nil && !transfers.contains { $0.identifier == id }
            },
            keptAwakeBy: heldModeDocuments().keptAwakeBy,
            transfers: status == nil ? nil : transfers,
            transfersTimelineOrigin: status.map {
                ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: $0.originUnixSeconds))
            }
        )
        return try WhyDocument.encode(document)
    }

    /// `status --json`: the same facts as ``statusText()``.
    private func statusDocument() throws -> String {
        let modes = heldModeDocuments()
        let document = StatusDocument(
            app: app,
            pid: ProcessInfo.processInfo.processIdentifier,
            state: "\(lifecycleState)",
            pending: pendingTaskRequests().map {
                StatusDocument.Pending(
                    identifier: $0.identifier,
                    kind: "\($0.kind)",
                    earliestBegin: $0.earliestBegin.map(formatWallClock)
                )
            },
            running: runningTasks.map {
                StatusDocument.Running(
                    identifier: $0.request.identifier,
                    kind: "\($0.request.kind)",
                    since: formatWallClock($0.startedAt)
                )
            },
            modes: modes.held,
            keptAwakeBy: modes.keptAwakeBy,
            device: ConditionDocument.embedded(device)
        )
        return try WhyDocument.encode(document)
    }

    /// An instant as an ISO 8601 wall-clock time.
    func formatWallClock(_ instant: Instant) -> String {
        ISO8601DateFormatter().string(from: date(for: instant))
    }
}

/// The debug channel could not be opened.
public struct DebugChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the directory.
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
