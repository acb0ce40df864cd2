import BackgroundCore
import BackgroundProtocol
import Foundation

/// `bgctl daemon tasks`: every pending and running task request with its times, as
/// `systemctl list-timers` shows timers: when it can run next (and what it waits for), when it
/// last ran and how that run ended.
extension DaemonEngine {
    /// One request's row: its document (`--json`) and its cells for the text table.
    struct TaskTimerRow {
        var document: [String: Any]
        var cells: [String]
    }

    static let taskTimerHeader = [
        "NEXT", "LEFT", "LAST", "PASSED", "RESULT", "STATE", "APP", "IDENTIFIER", "WAITING FOR",
    ]

    func tasksReply(_ only: AppID?) -> ControlReply {
        if let only, !isInstalled(only) { return notInstalled(only) }
        let now = clock()
        let rows = state.withLock { state -> [TaskTimerRow] in
            selected(only, in: state).flatMap { app -> [TaskTimerRow] in
                let pending = state.core.pendingRequests(of: app).sorted { $0.identifier < $1.identifier }.map {
                    request in
                    taskTimerRow(app, request, run: nil, in: state, at: now)
                }
                let running = state.core.runningTasks(of: app).sorted { $0.id.rawValue < $1.id.rawValue }.map { run in
                    taskTimerRow(app, run.request, run: run, in: state, at: now)
                }
                return pending + running
            }
        }
        let text =
            rows.isEmpty
            ? "no pending or running tasks"
            : Self.table([Self.taskTimerHeader] + rows.map(\.cells))
        return reply(.ok, text, ["tasks": rows.map(\.document)])
    }

    private func taskTimerRow(
        _ app: AppID,
        _ request: TaskRequest,
        run: TaskRun?,
        in state: State,
        at now: Instant
    ) -> TaskTimerRow {
        let eligibility = run == nil ? state.core.eligibility(of: app, identifier: request.identifier, at: now) : nil
        let history = state.core.history(of: app, identifier: request.identifier, at: now)
        let last = history.runs.last
        var document: [String: Any] = [
            "app": app.bundleIdentifier, "identifier": request.identifier, "kind": request.kind.rawValue,
            "state": run == nil ? "pending" : "running",
        ]
        var cells = ["-", "-"]
        if let run {
            document["run"] = run.id.rawValue
            document["startedAt"] = wallDate(run.startedAt)
            document["nextRun"] = NSNull()
        } else if let eligibility {
            document["nextRun"] = [
                "at": wallDate(eligibility.earliestRun),
                "inSeconds": max(0, (eligibility.earliestRun - now).secondsValue),
                "eligibleNow": eligibility.isEligible,
                "waitingFor": eligibility.unmet.map(Self.conditionName),
            ]
            cells = [
                wallDate(eligibility.earliestRun),
                eligibility.earliestRun > now ? "in " + DurationText.format(eligibility.earliestRun - now) : "now",
            ]
        }
        document["pendingSince"] = history.pendingSince.map { wallDate($0) as Any } ?? NSNull()
        if let last {
            document["lastRun"] = [
                "startedAt": wallDate(last.startedAt), "endedAt": wallDate(last.endedAt),
                "durationSeconds": last.duration.secondsValue, "outcome": last.outcome.rawValue,
            ]
            cells += [wallDate(last.endedAt), DurationText.format(now - last.endedAt) + " ago", last.outcome.rawValue]
        } else {
            document["lastRun"] = NSNull()
            cells += ["-", "-", "-"]
        }
        let waiting = eligibility?.unmet.map(Self.conditionName).joined(separator: ",") ?? ""
        cells += [
            run == nil ? "pending" : "running", app.bundleIdentifier, request.identifier,
            waiting.isEmpty ? "-" : waiting,
        ]
        return TaskTimerRow(document: document, cells: cells)
    }

    /// An instant as a wall-clock time, ISO 8601 in UTC (`2026-11-28T14:00:00Z`).
    private func wallDate(_ instant: Instant) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: wallClock.unixSeconds(of: instant)))
    }

    /// A condition's stable name in `waitingFor` (its sentence is `bgctl daemon why`'s).
    static func conditionName(_ condition: UnmetCondition) -> String {
        switch condition {
        case .notBefore: return "earliestBeginDate"
        case .requiresExternalPower: return "externalPower"
        case .requiresNetwork: return "network"
        case .deviceInUse: return "idle"
        case .notUnlockedSinceBoot: return "unlockedSinceBoot"
        case .batteryCriticallyLow: return "battery"
        case .lowPowerMode: return "lowPowerMode"
        case .backgroundAppRefreshOff: return "backgroundAppRefresh"
        case .forceQuit: return "forceQuit"
        case .appNotUsedRecently: return "appUsage"
        case .awaitingPredictedUse: return "predictedUse"
        case .budgetExhausted: return "budget"
        case .rateLimited: return "rateLimit"
        case .concurrencyLimit: return "concurrency"
        case .systemBusy: return "systemBusy"
        case .cellularNotAllowed: return "cellular"
        case .expensiveNetworkNotAllowed: return "expensiveNetwork"
        case .constrainedNetworkNotAllowed: return "constrainedNetwork"
        case .requiresUnmeteredNetwork: return "unmeteredNetwork"
        }
    }

    /// Rows as columns padded to their widest cell, two spaces apart.
    static func table(_ rows: [[String]]) -> String {
        let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    fileprivate var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
