import ArgumentParser
import BackgroundControl
import BackgroundExecution
import BackgroundSimulator
import BackgroundStore
import CommandOutput
import Foundation

/// A system `bgctl why` explains without a running app: restored from an app's store, or a
/// simulator scenario run to a chosen time.
struct ExplainedSystem {
    var system: BackgroundSystem
    var app: AppID
    var now: Instant
    /// Wall-clock seconds since 1970 of the timeline's T+0.
    var originUnixSeconds: Double
    /// Termination reports known to this source (the simulator's; the store keeps none).
    var reports: [TerminationReport]
    /// Where it came from, as a file name (never a full path: bundles carry no personal data).
    var sourceName: String
    /// The app's background transfers that have not completed, under the core's transfer rules
    /// for the same device (`<session>#<task>` identifiers).
    var transfers = TransferQueue()

    var manifest: AppManifest? { system.manifest(of: app) }

    func format(_ instant: Instant) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: originUnixSeconds + instant.seconds))
    }

    /// The app's store read into a fresh system at the present wall-clock time, for `device`.
    static func store(
        _ path: String,
        app: AppID,
        device: DeviceConditions,
        network: TransferNetwork? = nil,
        followsSymbolicLinks: Bool = false
    ) throws -> ExplainedSystem {
        let origin = Date().timeIntervalSince1970
        let apps: [PersistedApp]
        let transfers: [TransferCheckpoint]
        do {
            // Read-only: nothing is created or written.
            let store = try BackgroundStore.openForReading(path: path, followsSymbolicLinks: followsSymbolicLinks)
            apps = try store.load(clock: WallClock(unixSecondsAtOrigin: origin))
            transfers = try store.transfers(of: app).filter { $0.state != .completed }
        } catch {
            throw CommandFailure(store: error)
        }
        let saved = apps.first { $0.app == app }
        if saved == nil && transfers.isEmpty {
            throw CommandFailure(.negativeAnswer, path, "the store has nothing for \(app)")
        }
        var system = BackgroundSystem(policy: .iOS, device: device)
        // Restored to be looked at: nothing dispatched, so a request that would run now is explained.
        if let saved { _ = system.restoreForInspection(saved, at: .zero) }
        var queue = TransferQueue(device: device)
        queue.setDevice(device, network: network ?? TransferNetwork(network: device.network))
        for transfer in transfers {
            let key = TransferKey(app: transfer.app, session: transfer.session, task: transfer.task)
            let begin = transfer.earliestBeginUnixSeconds.map {
                Instant(offset: .seconds(fromInterval: max(0, $0 - origin)))
            }
            queue.submit(key, transfer.requirements ?? TransferRequirements(), earliestBegin: begin, at: .zero)
        }
        let name = URL(filePath: path).lastPathComponent
        return ExplainedSystem(
            system: system,
            app: app,
            now: .zero,
            originUnixSeconds: origin,
            reports: [],
            sourceName: name,
            transfers: queue
        )
    }

    /// The eligibility of a waiting transfer named `<session>#<task>`.
    func transferEligibility(_ identifier: String) -> Eligibility? {
        transfers.transfers.first { $0.key.app == app && $0.key.identifier == identifier }
            .flatMap { transfers.eligibility(of: $0.key, at: now) }
    }

    /// Whether `bgctl why` knows the identifier: a pending request (or, with history, one that
    /// ran) or a transfer.
    func knows(_ identifier: String) -> Bool {
        system.explanation(of: app, identifier: identifier, at: now) != nil || transferEligibility(identifier) != nil
    }

    /// A scenario run on the simulator to `at` (a duration from its start) or its end.
    @MainActor
    static func scenario(_ path: String, app: String?, at: String?) throws -> ExplainedSystem {
        var loaded: Scenario
        do {
            loaded = try Scenario.load(contentsOf: URL(fileURLWithPath: path))
            if let at { loaded.duration = min(loaded.duration, try offset(at, in: loaded)) }
        } catch {
            throw CommandFailure(
                FileManager.default.fileExists(atPath: path) ? .badInput : .inputMissing,
                path,
                "\(error)"
            )
        }
        guard let chosen = app ?? loaded.apps.first?.id, loaded.apps.contains(where: { $0.id == chosen }) else {
            throw CommandFailure(.usage, "--app \(app ?? "")", "the scenario has no such app")
        }
        let run: ScenarioRun
        do {
            run = try ScenarioRun(loaded)
        } catch {
            throw CommandFailure(.badInput, path, "\(error)")
        }
        let simulator = run.simulator
        return ExplainedSystem(
            system: simulator.system,
            app: AppID(chosen),
            now: simulator.now,
            originUnixSeconds: simulator.configuration.start.timeIntervalSince1970,
            reports: simulator.reports.filter { $0.app == AppID(chosen) },
            sourceName: URL(filePath: path).lastPathComponent
        )
    }

    /// `--at`: a duration from the scenario's start (`14h`) or a time as scenarios write it
    /// (`21:00`, `day 2 07:00`).
    static func offset(_ text: String, in scenario: Scenario) throws -> Duration {
        if let duration = try? ScenarioTime.parseDuration(text) { return duration }
        return try Scenario.Step.At(parsing: text).offset(from: scenario.start)
    }

    /// The identifiers to explain: the pending ones, and with history those that ran.
    func identifiers(includingHistory: Bool) -> [String] {
        let tasks =
            includingHistory ? system.explainedIdentifiers(of: app) : system.pendingRequests(of: app).map(\.identifier)
        return tasks + transfers.transfers.filter { $0.key.app == app }.map(\.key.identifier)
    }

    /// `bgctl why`'s answer without history, as `bgctl why --store` gives it.
    func whyResult(identifiers: [String]) -> WhyResult {
        let date = { (instant: Instant) in Date(timeIntervalSince1970: originUnixSeconds + instant.seconds) }
        return WhyResult(
            app: app.bundleIdentifier,
            requests: identifiers.map { identifier in
                (system.eligibility(of: app, identifier: identifier, at: now) ?? transferEligibility(identifier))
                    .map { WhyResult.Request($0, date: date) } ?? .unknown(identifier)
            }
        )
    }

    /// `bgctl why` as text: the eligibility, and with `history` the full explanation.
    func text(identifiers: [String], history: Bool) -> String {
        identifiers.map { identifier in
            if history, let explanation = system.explanation(of: app, identifier: identifier, at: now) {
                return explanation.renderText(formatInstant: format)
            }
            guard
                let why = system.eligibility(of: app, identifier: identifier, at: now)
                    ?? transferEligibility(identifier)
            else {
                return "\(identifier): no pending task request with this identifier\n"
            }
            return why.renderText(formatInstant: format)
        }.joined()
    }

    /// `bgctl why --json`: instants are seconds from `timelineOrigin`.
    func json(identifiers: [String], history: Bool) throws -> String {
        let explanations = identifiers.compactMap { system.explanation(of: app, identifier: $0, at: now) }
        let document = WhyDocument(
            app: app,
            timelineOrigin: format(.zero),
            now: now,
            nowDate: format(now),
            explanations: history ? explanations : explanations.filter { $0.eligibility != nil }.map(\.withoutHistory),
            // Transfers have no history of runs: `--json --history` explains task requests only.
            unknown: identifiers.filter {
                system.explanation(of: app, identifier: $0, at: now) == nil && transferEligibility($0) == nil
            }
        )
        return try WhyDocument.encode(document)
    }
}
