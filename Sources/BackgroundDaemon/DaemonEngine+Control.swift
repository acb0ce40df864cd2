import BackgroundCore
import BackgroundExecution
import BackgroundPosix
public import BackgroundProtocol
import Foundation

extension DaemonEngine {
    /// Answers a control client's request.
    func control(_ request: ControlRequest, from link: any ClientLink) {
        if case .followLog = request {
            // The recent lines come with the answer, sent under the lock, so before any line
            // this connection gets as a follower.
            state.withLock { state in
                state.sessions[link.linkID]?.role = .control(followsLog: true)
                let recent = state.recentLog
                link.send(.control(reply(.ok, recent.joined(separator: "\n"), ["following": true, "recent": recent])))
            }
            return
        }
        link.send(.control(answer(request)))
    }

    /// The answer to a request that is not a stream.
    public func answer(_ request: ControlRequest) -> ControlReply {
        switch request {
        case .status: return status()
        case .apps: return appsReply()
        case .assertions(let app): return assertionsReply(app)
        case .tasks(let app): return tasksReply(app)
        case .why(let identifier, let app): return why(identifier, app)
        case .open(let app): return open(app)
        case .home: return home()
        case .forceQuit(let app): return forceQuit(app)
        case .simulateLaunch(let identifier, let app):
            return debuggerHook(identifier, app, pending: true) { .simulateLaunch($0, identifier: identifier) }
        case .simulateExpiration(let identifier, let app):
            return debuggerHook(identifier, app, pending: false) { .simulateExpiration($0, identifier: identifier) }
        case .reports:
            let written = state.withLock { $0.reportsWritten }
            let text =
                written.isEmpty ? "no termination reports since the daemon started" : written.joined(separator: "\n")
            return reply(.ok, text, ["directory": configuration.reportsDirectory ?? "", "reports": written])
        case .events(let since):
            return reply(
                .ok,
                "use the journal at \(journal?.path ?? "(none)")",
                ["journal": journal?.path ?? "", "since": since]
            )
        case .followLog:
            return reply(.invalid, "follow the log on a connection of its own", [:])
        case .push(let app, let payload):
            return push(app, payload: payload)
        case .deviceConditions:
            let parts = deviceReply()
            return reply(.ok, parts.lines.joined(separator: "\n"), parts.document)
        case .overrideDevice(let arguments):
            return overrideDevice(arguments)
        case .clearDeviceOverrides:
            return overrideDevice(nil)
        case .reloadManifests:
            return reloadReply()
        }
    }

    private func status() -> ControlReply {
        let now = clock()
        let device = deviceReply()
        var summary = state.withLock { state -> [String: Any] in
            let apps = state.installed.keys.sorted()
            let pending = apps.reduce(0) { $0 + state.core.pendingRequests(of: $1).count }
            let connected = state.appLinks.count
            return [
                "pid": Int(SystemCall.processID),
                "processControl": processes.mechanism,
                "isolation": configuration.isolation.name,
                "isolationDetail": configuration.isolation.description,
                "installedApps": apps.count,
                "connectedApps": connected,
                "connections": state.sessions.count,
                "pendingRequests": pending,
                "eventsHandled": state.eventsHandled,
                "launchesFailed": state.launchesFailed,
                "reportsWritten": state.reportsWritten.count,
                "nextDeadlineSeconds": state.core.nextDeadline.map { ($0 - clock()).seconds } ?? NSNull(),
                "keptAwake": appsKeptAwake(in: state, at: now),
                "memoryPressure": state.core.currentMemoryPressure.rawValue,
                "reclaimNext": state.core.reclaimCandidates.first.map { $0.bundleIdentifier as Any } ?? NSNull(),
                "notFrozen": state.notFrozen.keys.sorted().map { app -> [String: Any] in
                    ["app": app.bundleIdentifier, "reason": state.notFrozen[app]!]
                },
            ]
        }
        summary["device"] = device.document
        let transfers = transfersReply()
        summary["transfers"] = transfers.document
        let awake = (summary["keptAwake"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
        let notFrozen = (summary["notFrozen"] as? [[String: Any]] ?? []).map {
            "not frozen when suspended: \($0["app"]!): \($0["reason"]!)"
        }
        let text = """
            backgroundd (pid \(summary["pid"]!)): running
            process control: \(processes.mechanism)
            isolation: \(configuration.isolation)
            apps: \(summary["installedApps"]!) installed, \(summary["connectedApps"]!) connected
            pending requests: \(summary["pendingRequests"]!)
            events handled: \(summary["eventsHandled"]!)
            """ + device.lines.map { "\n" + $0 }.joined() + transfers.lines.map { "\n" + $0 }.joined()
            + awake.map { "\n" + $0 }.joined() + notFrozen.map { "\n" + $0 }.joined()
        return reply(.ok, text, summary)
    }

    private func appsReply() -> ControlReply {
        let now = clock()
        let rows = state.withLock { state -> [[String: Any]] in
            state.installed.keys.sorted().map { app in
                let whyNotFrozen = state.notFrozen[app]
                return [
                    "app": app.bundleIdentifier,
                    "state": Self.reportedState(state.core.state(of: app), whyNotFrozen: whyNotFrozen),
                    "whyNotFrozen": whyNotFrozen.map { $0 as Any } ?? NSNull(),
                    "incarnation": state.core.incarnation(of: app).rawValue,
                    "connected": state.appLinks[app] != nil,
                    "assertions": state.core.assertions(of: app).count,
                    "pendingRequests": state.core.pendingRequests(of: app).count,
                    "runningTasks": state.core.runningTasks(of: app).count,
                    "launchable": state.installed[app]?.launch != nil,
                    "manifest": state.installed[app]?.file ?? "",
                    "pid": processes.pid(of: app).map { Int($0) as Any } ?? NSNull(),
                    "uid": state.installed[app]?.user.map { Int($0.uid) as Any } ?? NSNull(),
                    "modes": heldModes(app, in: state, at: now),
                    "restartGrace": inRestartGrace(app, in: state),
                ]
            }
        }
        let text =
            rows.isEmpty
            ? "no apps installed"
            : rows.map {
                "\($0["app"]!)  \($0["state"]!)  assertions \($0["assertions"]!)  pending \($0["pendingRequests"]!)"
                    + Self.modesText($0["modes"] as? [[String: Any]] ?? [])
                    + ($0["restartGrace"] as? Bool == true ? "  (carried on after a restart: may connect again)" : "")
                    + ($0["state"] as? String == Self.notFrozenState
                        ? "  (suspended by the system, but not frozen: \($0["whyNotFrozen"]!))" : "")
            }
            .joined(separator: "\n")
        return reply(.ok, text, ["apps": rows])
    }

    /// What `apps` reports for a process the system suspended but the daemon could not freeze
    /// (started by the user, out of the process control's reach): never `suspended`.
    static let notFrozenState = "not-frozen"

    /// The state `apps` reports: the core's, except `suspended` for a process that runs on.
    static func reportedState(_ state: AppLifecycleState, whyNotFrozen: String?) -> String {
        state == .suspended && whyNotFrozen != nil ? notFrozenState : state.description
    }

    private func assertionsReply(_ only: AppID?) -> ControlReply {
        let now = clock()
        let rows = state.withLock { state -> [[String: Any]] in
            selected(only, in: state).flatMap { app in
                state.core.assertions(of: app).map { assertion in
                    [
                        "app": app.bundleIdentifier, "id": assertion.id.rawValue, "name": assertion.name,
                        "heldSeconds": (now - assertion.beganAt).seconds, "origin": assertion.origin.description,
                    ] as [String: Any]
                }
            }
        }
        if let only, !isInstalled(only) { return notInstalled(only) }
        let text =
            rows.isEmpty
            ? "no assertions held"
            : rows.map {
                "\($0["app"]!)  #\($0["id"]!) \($0["name"]!)  held \(DurationText.format(.seconds($0["heldSeconds"] as! Double)))  \($0["origin"]!)"
            }
            .joined(separator: "\n")
        return reply(.ok, text, ["assertions": rows])
    }

    private func why(_ identifier: String, _ only: AppID?) -> ControlReply {
        let now = clock()
        let found = state.withLock { state -> [(AppID, RequestExplanation)] in
            selected(only, in: state).compactMap { app in
                state.core.explanation(of: app, identifier: identifier, at: now).map { (app, $0) }
            }
        }
        guard let (app, explanation) = found.first else {
            // A transfer's `<session>#<task>` (docs/transfers.md, "System mode").
            let apps = state.withLock { selected(only, in: $0) }
            if let answer = whyTransfer(identifier, among: apps) { return answer }
            return reply(
                .notFound,
                "no request or transfer \(identifier) is pending or remembered",
                ["identifier": identifier]
            )
        }
        guard found.count == 1 else {
            let apps = found.map(\.0.bundleIdentifier)
            return reply(
                .invalid,
                "\(identifier) is a request of several apps (\(apps.joined(separator: ", "))): name one with --app",
                ["apps": apps]
            )
        }
        let awake = keptAwake(app, at: now)
        let text =
            (awake.map { "\(app): \($0.text)\n" } ?? "") + "\(app): "
            + explanation.renderText { instant in
                instant >= now
                    ? "in \(DurationText.format(instant - now))" : "\(DurationText.format(now - instant)) ago"
            }
        let json =
            (try? JSONEncoder().encode(explanation)).flatMap { try? JSONSerialization.jsonObject(with: $0) } ?? [:]
        return reply(
            .ok,
            text,
            ["app": app.bundleIdentifier, "explanation": json, "keptAwakeBy": awake?.document ?? NSNull()]
        )
    }

    private func open(_ app: AppID) -> ControlReply {
        guard isInstalled(app) else { return notInstalled(app) }
        bringToForeground(app)
        let now = state.withLock { $0.core.state(of: app) }
        return reply(.ok, "\(app): \(now)", ["app": app.bundleIdentifier, "state": now.description])
    }

    /// The user brings the app to the foreground (`open`, or a process of the app the user
    /// started, whose hello launches it): the app in the foreground, if another, goes to the
    /// background first (willResignActive, didEnterBackground, its budget), as when the user
    /// switches apps on iOS; then the app is launched, or comes back, and becomes active. One
    /// app in the foreground at a time, whoever started it: every way into the foreground the
    /// user takes goes through here, and a declaration never does (`takeOver`).
    func bringToForeground(_ app: AppID) {
        let others = state.withLock { state in
            state.installed.keys.sorted().filter { $0 != app && state.core.state(of: $0).isForeground }
        }
        for other in others { sendHome(other) }
        switch state.withLock({ $0.core.state(of: app) }) {
        case .notRunning, .terminated:
            deliver(.launch(app, .foreground))
            deliver(.activate(app))
        case .background, .suspended:
            deliver(.enterForeground(app))
            deliver(.activate(app))
        case .inactive:
            deliver(.activate(app))
        case .active:
            break
        }
    }

    private func home() -> ControlReply {
        let foreground = state.withLock { state in
            state.installed.keys.sorted().filter { state.core.state(of: $0).isForeground }
        }
        for app in foreground { sendHome(app) }
        let text =
            foreground.isEmpty
            ? "no app is in the foreground" : foreground.map { "\($0): background" }.joined(separator: "\n")
        return reply(.ok, text, ["apps": foreground.map(\.bundleIdentifier)])
    }

    private func sendHome(_ app: AppID) {
        if state.withLock({ $0.core.state(of: app) }) == .active { deliver(.deactivate(app)) }
        if state.withLock({ $0.core.state(of: app) }) == .inactive { deliver(.enterBackground(app)) }
    }

    private func forceQuit(_ app: AppID) -> ControlReply {
        guard isInstalled(app) else { return notInstalled(app) }
        deliver(.terminate(app, .userForceQuit))
        return reply(
            .ok,
            "\(app): force-quit; it is not launched in the background until opened",
            ["app": app.bundleIdentifier]
        )
    }

    private func debuggerHook(
        _ identifier: String,
        _ only: AppID?,
        pending: Bool,
        event: (AppID) -> Event
    ) -> ControlReply {
        if let only, !isInstalled(only) { return notInstalled(only) }
        let owners = state.withLock { state in
            selected(only, in: state).filter { app in
                pending
                    ? state.core.pendingRequests(of: app).contains { $0.identifier == identifier }
                    : state.core.runningTasks(of: app).contains { $0.request.identifier == identifier }
            }
        }
        let what = pending ? "pending" : "running"
        guard let app = owners.first else {
            return reply(.notFound, "no \(what) task \(identifier)", ["identifier": identifier])
        }
        guard owners.count == 1 else {
            return reply(.invalid, "\(identifier) is \(what) for several apps: name one with --app", [:])
        }
        deliver(event(app))
        return reply(
            .ok,
            "\(app): \(pending ? "launched" : "expired") \(identifier)",
            ["app": app.bundleIdentifier, "identifier": identifier]
        )
    }

    func selected(_ only: AppID?, in state: State) -> [AppID] {
        only.map { state.installed[$0] == nil ? [] : [$0] } ?? state.installed.keys.sorted()
    }

    func isInstalled(_ app: AppID) -> Bool { state.withLock { $0.installed[app] != nil } }

    func notInstalled(_ app: AppID) -> ControlReply {
        reply(.notFound, "\(app) is not installed", ["app": app.bundleIdentifier])
    }

    func reply(_ outcome: ControlReply.Outcome, _ text: String, _ document: [String: Any]) -> ControlReply {
        var document = document
        document["outcome"] = outcome.rawValue
        let data = (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])) ?? Data("{}".utf8)
        return ControlReply(outcome, text: text, json: String(decoding: data, as: UTF8.self))
    }
}
