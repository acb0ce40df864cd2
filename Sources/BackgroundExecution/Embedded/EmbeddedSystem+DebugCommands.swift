import BackgroundCore
import Foundation

extension EmbeddedSystem {
    /// Accepts `bgctl`'s debug commands (`why`, `status`, `simulate-launch`,
    /// `simulate-expiration`) while the process runs.
    ///
    /// Creates the app's control directory with mode 0700 (only this user can use it) and
    /// answers each `*.request` file found there when SIGUSR1 arrives, writing
    /// `<name>.response` next to it. The iOS debugger hooks work only on a device with a
    /// debugger attached; this is their equivalent for a running Linux process.
    ///
    /// - Parameter directory: The control directory; by default
    ///   ``DebugCommand/defaultControlDirectory(for:)``.
    /// - Throws: The file system's error if the directory cannot be created.
    public func acceptDebugCommands(in directory: URL? = nil) throws {
        let directory = directory ?? DebugCommand.defaultControlDirectory(for: app)
        try FileManager.default.createDirectory(
            at: directory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        SignalPipe.listen(to: SIGUSR1) { [weak self] in self?.answerDebugRequests(in: directory) }
    }

    /// Answers every pending request file in the directory.
    func answerDebugRequests(in directory: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names.sorted() where name.hasSuffix(".request") {
            let request = directory.appendingPathComponent(name)
            let response = directory.appendingPathComponent(String(name.dropLast(".request".count)) + ".response")
            let answer: String
            do {
                let data = try readBounded(request)
                answer = try run(DebugCommand.decode(data))
            } catch {
                answer = "error: \(error)\n"
            }
            try? FileManager.default.removeItem(at: request)
            try? Data(answer.utf8).write(to: response, options: .atomic)
        }
    }

    private func readBounded(_ url: URL) throws -> Data {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        return try handle.read(upToCount: DebugCommand.maximumRequestSize + 1) ?? Data()
    }

    /// Carries out one command and returns its answer as text.
    public func run(_ command: DebugCommand) -> String {
        switch command.action {
        case .why:
            return explain(identifier: command.identifier)
        case .whyWithHistory:
            return explainWithHistory(identifier: command.identifier)
        case .status:
            return statusText()
        case .simulateLaunch:
            let identifier = command.identifier ?? ""
            guard pendingTaskRequests().contains(where: { $0.identifier == identifier }) else {
                return "error: no pending task request with identifier \(identifier)\n"
            }
            simulateLaunch(forTaskWithIdentifier: identifier)
            return "Simulating launch for task with identifier \(identifier)\n"
        case .simulateExpiration:
            let identifier = command.identifier ?? ""
            guard runningTasks.contains(where: { $0.request.identifier == identifier }) else {
                return "error: no running task with identifier \(identifier)\n"
            }
            simulateExpiration(forTaskWithIdentifier: identifier)
            return "Simulating expiration for task with identifier \(identifier)\n"
        }
    }

    private func explain(identifier: String?) -> String {
        let identifiers = identifier.map { [$0] } ?? pendingTaskRequests().map(\.identifier)
        guard !identifiers.isEmpty else { return "no pending task requests\n" }
        return identifiers.map { identifier in
            guard let why = eligibility(forTaskWithIdentifier: identifier) else {
                return "\(identifier): no pending task request with this identifier\n"
            }
            return why.renderText(formatInstant: formatWallClock)
        }.joined()
    }

    private func explainWithHistory(identifier: String?) -> String {
        let now = self.now
        let identifiers = identifier.map { [$0] } ?? state.withLock { $0.core.explainedIdentifiers(of: app) }
        guard !identifiers.isEmpty else { return "nothing pending and no run recorded\n" }
        return identifiers.map { identifier in
            guard let explanation = state.withLock({ $0.core.explanation(of: app, identifier: identifier, at: now) })
            else { return "\(identifier): no pending task request with this identifier\n" }
            return explanation.renderText(formatInstant: formatWallClock)
        }.joined()
    }

    private func statusText() -> String {
        var lines = ["\(app): \(lifecycleState)"]
        for request in pendingTaskRequests() {
            let earliest = request.earliestBegin.map(formatWallClock) ?? "now"
            lines.append("  pending \(request.identifier) (\(request.kind)), earliest \(earliest)")
        }
        for run in runningTasks {
            lines.append(
                "  running \(run.request.identifier) (\(run.request.kind)), since \(formatWallClock(run.startedAt))"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// An instant as an ISO 8601 wall-clock time.
    func formatWallClock(_ instant: Instant) -> String {
        ISO8601DateFormatter().string(from: date(for: instant))
    }
}
