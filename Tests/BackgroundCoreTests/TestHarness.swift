import BackgroundCore
import Testing

// A tiny driver around `BackgroundSystem` that records every effect with the instant it was
// returned at, so tests read like a timeline. Virtual time only: no clock, no sleep.

/// The apps the tests use.
let notes: AppID = "com.example.notes"
let mail: AppID = "com.example.mail"
let maps: AppID = "com.example.maps"

/// The source locations the tests begin assertions from (the type is named here only).
enum Site {
    static let upload = CallSite(fileIDText: "Notes/UploadManager.swift", line: 42, functionText: "upload()")
    static let sync = CallSite(fileIDText: "Notes/SyncEngine.swift", line: 7, functionText: "sync()")
}

extension AssertionID {
    /// `.id(1)` reads like UIKit's "identifier 1 (0x1)".
    static func id(_ raw: Int) -> AssertionID { AssertionID(rawValue: raw) }
}

extension Instant {
    /// `.t(31)` is T+31.000s and `.t(35, 900)` is T+35.900s, as `Instant` prints them.
    ///
    static func t(_ seconds: Int64, _ milliseconds: Int64 = 0) -> Instant {
        .milliseconds(seconds * 1000 + milliseconds)
    }
}

/// One effect, stamped with the system's time after the event that produced it.
struct TimedEffect: Hashable, CustomStringConvertible {
    let at: Instant
    let effect: Effect

    var description: String { "\(at) \(effect)" }
}

/// Drives one `BackgroundSystem` and keeps its timeline.
struct Driver {
    private(set) var system: BackgroundSystem
    private(set) var timeline: [TimedEffect] = []

    init(policy: SystemPolicy = .iOS) {
        system = BackgroundSystem(policy: policy)
    }

    /// Sends one event at `instant` and returns its effects.
    /// Durable writes the system asked for, set aside so effect lists read as behaviour
    /// (persistence has its own tests).
    private(set) var persisted: [StoreChange] = []
    /// The reply to the last event sent.
    private(set) var lastReply: Reply?

    /// Sends one event at `instant` and returns its effects, `.persist` ones set aside.
    @discardableResult
    mutating func send(_ event: Event, at instant: Instant) throws(BackgroundSystemError) -> [Effect] {
        var effects: [Effect] = []
        lastReply = try system.handle(event, at: instant, into: &effects)
        effects.removeAll { effect in
            guard case .persist(let change) = effect else { return false }
            persisted.append(change)
            return true
        }
        timeline += effects.map { TimedEffect(at: system.now, effect: $0) }
        return effects
    }

    // MARK: One event each

    @discardableResult
    mutating func tick(at instant: Instant) throws(BackgroundSystemError) -> [Effect] {
        try send(.tick, at: instant)
    }

    @discardableResult
    mutating func begin(
        _ app: AppID,
        _ name: String = "Upload",
        handler: Bool = true,
        origin: CallSite = Site.upload,
        at instant: Instant
    ) throws(BackgroundSystemError) -> Answer {
        let effects = try send(
            .beginAssertion(app, name: name, origin: origin, hasExpirationHandler: handler),
            at: instant
        )
        return Answer(reply: lastReply, effects: effects)
    }

    @discardableResult
    mutating func end(_ app: AppID, _ raw: Int, at instant: Instant) throws(BackgroundSystemError) -> [Effect] {
        try send(.endAssertion(app, .id(raw)), at: instant)
    }

    @discardableResult
    mutating func handlerReturned(
        _ app: AppID,
        _ raw: Int,
        at instant: Instant
    ) throws(BackgroundSystemError)
        -> [Effect]
    {
        try send(.expirationHandlerReturned(app, .id(raw)), at: instant)
    }

    // MARK: Several events at one instant

    /// The user opens the app: launch in the foreground, then activate.
    mutating func open(_ app: AppID, at instant: Instant) throws(BackgroundSystemError) {
        try send(.launch(app, .foreground), at: instant)
        try send(.activate(app), at: instant)
    }

    /// The user leaves an active app: deactivate and enter the background; returns the second's effects.
    @discardableResult
    mutating func leave(_ app: AppID, at instant: Instant) throws(BackgroundSystemError) -> [Effect] {
        try send(.deactivate(app), at: instant)
        return try send(.enterBackground(app), at: instant)
    }

    /// Leaves the app and lets `applicationDidEnterBackground(_:)` return at once; returns its effects.
    @discardableResult
    mutating func background(_ app: AppID, at instant: Instant) throws(BackgroundSystemError) -> [Effect] {
        try leave(app, at: instant)
        return try send(.didEnterBackgroundReturned(app), at: instant)
    }

    // MARK: A common start

    /// Notes, opened at T+0, begins one assertion per entry at T+1, T+2, … (`true`: with an
    /// expiration handler) and is in the background from T+10 (under iOS: expiration at T+35, budget end T+40).
    static func inBackground(handlers: [Bool], policy: SystemPolicy = .iOS) throws(BackgroundSystemError) -> Driver {
        var d = Driver(policy: policy)
        try d.open(notes, at: .zero)
        for (offset, handler) in handlers.enumerated() {
            try d.begin(notes, "Task \(offset + 1)", handler: handler, at: .t(Int64(offset + 1)))
        }
        try d.background(notes, at: .t(10))
        return d
    }

    // MARK: Queries

    func state(_ app: AppID) -> AppLifecycleState { system.state(of: app) }

    func heldIDs(_ app: AppID) -> [Int] { system.assertions(of: app).map(\.id.rawValue) }

    func remaining(_ app: AppID, at instant: Instant) -> Duration? {
        system.backgroundTimeRemaining(of: app, at: instant)
    }
}

extension Array where Element == Effect {
    /// The effects without log records, for comparing what the shell must do.
    var withoutLogs: [Effect] {
        filter {
            if case .log = $0 { return false }
            return true
        }
    }

    /// The log records, in order.
    var logs: [LogRecord] {
        compactMap {
            if case .log(let record) = $0 { return record }
            return nil
        }
    }

    /// The termination reports of `.terminate` and `.exit` effects, in order.
    var reports: [TerminationReport] {
        compactMap {
            switch $0 {
            case .terminate(_, let report), .exit(_, _, let report): return report
            default: return nil
            }
        }
    }
}

extension Effect {
    /// The case's name, to see which kinds of effects a run produced.
    var kind: String {
        String(String(describing: self).prefix { $0 != "(" })
    }
}

/// A call's reply and the effects that came with it; reads like its effects otherwise.
@dynamicMemberLookup
struct Answer: Equatable {
    var reply: Reply?
    var effects: [Effect]

    /// Granted, with nothing else to do.
    static func granted(_ id: AssertionID) -> Answer { Answer(reply: .granted(id), effects: []) }

    /// Rejected with this code, with nothing else to do.
    static func rejected(_ identifier: String, _ code: SubmissionRejection) -> Answer {
        Answer(reply: .rejected(identifier: identifier, code), effects: [])
    }

    subscript<T>(dynamicMember path: KeyPath<[Effect], T>) -> T { effects[keyPath: path] }

    /// The reply with only the effects that are behaviour (no logs, wake-ups or store writes).
    var withoutBookkeeping: Answer { Answer(reply: reply, effects: effects.withoutBookkeeping) }

    /// The request accepted, if the reply accepted one.
    var acceptedRequests: [TaskRequest] {
        if case .accepted(let request) = reply { [request] } else { [] }
    }

    /// The rejection code, if the reply rejected the request.
    var rejections: [SubmissionRejection] {
        if case .rejected(_, let code) = reply { [code] } else { [] }
    }
}

extension Incarnation {
    /// An app's first process.
    static let first = Incarnation(rawValue: 1)
}
