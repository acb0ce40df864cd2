import BackgroundCore
import BackgroundProtocol
import Foundation

/// The daemon's background transfers in `bgctl daemon status` and `bgctl daemon why`: each one
/// that has not completed, running or waiting with why (the core's ``Eligibility``, as embedded
/// mode's `bgctl why` words it), and the completions that wait for their app with when it may be
/// launched for them.
extension DaemonEngine {
    /// One transfer of an app, with the status it came from (for its instants).
    struct TransferRow {
        var app: AppID
        var transfer: TransferStatus.Transfer
        var status: TransferStatus
    }

    /// Every transfer of `apps` that has not completed, by app, then by session and task.
    func transferRows(of apps: [AppID]) -> [TransferRow] {
        guard let transfers else { return [] }
        return apps.sorted().flatMap { app -> [TransferRow] in
            guard let status = transfers.transferStatus(of: app) else { return [] }
            return status.transfers.sorted { $0.key < $1.key }.map {
                TransferRow(app: app, transfer: $0, status: status)
            }
        }
    }

    /// The transfers part of `bgctl daemon status`: a count, one line per transfer, one per app
    /// whose completions wait for it.
    func transfersReply() -> ControlReplyParts {
        guard let transfers else {
            return ControlReplyParts(lines: ["transfers: not run by this daemon"], document: ["runs": false])
        }
        let apps = state.withLock { $0.installed.keys.sorted() }
        let rows = transferRows(of: apps)
        let running = rows.filter(\.transfer.isRunning).count
        var lines = ["transfers: \(running) running, \(rows.count - running) waiting"]
        for row in rows {
            lines.append("  \(row.app) \(Self.transferLine(row))")
        }
        var waiting: [[String: Any]] = []
        for app in apps {
            let completions = transfers.completionsWaiting(of: app)
            guard completions > 0 else { continue }
            let delay = transfers.relaunchDelay(of: app)
            let when = delay.map { "relaunch in \(DurationText.format($0))" } ?? "until the user opens it"
            lines.append("  \(app): \(completions) completed transfer(s) wait for the app (\(when))")
            waiting.append([
                "app": app.bundleIdentifier, "completions": completions,
                "relaunchInSeconds": delay.map { $0.seconds as Any } ?? NSNull(),
            ])
        }
        let document: [String: Any] = [
            "runs": true,
            "transfers": rows.map(Self.transferDocument),
            "completionsWaiting": waiting,
        ]
        return ControlReplyParts(lines: lines, document: document)
    }

    /// `bgctl daemon why <session>#<task>`: the transfer's state and why it waits; nil when no
    /// transfer of the selected apps has that identifier.
    func whyTransfer(_ identifier: String, among apps: [AppID]) -> ControlReply? {
        let found = transferRows(of: apps).filter { $0.transfer.key.identifier == identifier }
        guard let row = found.first else { return nil }
        guard found.count == 1 else {
            let owners = found.map(\.app.bundleIdentifier)
            return reply(
                .invalid,
                "\(identifier) is a transfer of several apps (\(owners.joined(separator: ", "))): name one with --app",
                ["apps": owners]
            )
        }
        let text: String
        if row.transfer.isRunning {
            text = "\(row.app): \(ControlCharacters.escaped(identifier)) (transfer): running"
        } else {
            let format = { (instant: Instant) in
                ISO8601DateFormatter().string(
                    from: Date(timeIntervalSince1970: row.status.originUnixSeconds + instant.seconds)
                )
            }
            text =
                "\(row.app): "
                + ControlCharacters.escapedLines(row.transfer.eligibility.renderText(formatInstant: format))
        }
        return reply(.ok, text, Self.transferDocument(row))
    }

    /// One line: `<session>#<task>: running`, or `waiting: <the deciding factor>`.
    static func transferLine(_ row: TransferRow) -> String {
        let identifier = ControlCharacters.escaped(row.transfer.key.identifier)
        guard !row.transfer.isRunning else { return "\(identifier): running" }
        let why =
            row.transfer.eligibility.decidingFactor.map {
                DaemonTransfers.words($0, origin: row.status.originUnixSeconds)
            } ?? "its turn (eligible)"
        return "\(identifier): waiting: \(why)"
    }

    /// A transfer as JSON: app, identifier, session, task, state, eligibility (instants in
    /// seconds from `originUnixSeconds`, the engine's T+0).
    static func transferDocument(_ row: TransferRow) -> [String: Any] {
        let eligibility =
            (try? JSONEncoder().encode(row.transfer.eligibility)).flatMap {
                try? JSONSerialization.jsonObject(with: $0)
            }
            ?? [:]
        return [
            "app": row.app.bundleIdentifier,
            "identifier": row.transfer.key.identifier,
            "session": row.transfer.key.session,
            "task": row.transfer.key.task,
            "state": row.transfer.isRunning ? "running" : "waiting",
            "eligibility": eligibility,
            "originUnixSeconds": row.status.originUnixSeconds,
        ]
    }
}
