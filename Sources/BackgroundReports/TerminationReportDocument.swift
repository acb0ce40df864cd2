public import BackgroundCore
public import Foundation

/// A termination report in its published JSON form: a versioned format for other programs,
/// described by `schemas/termination-report.schema.json`.
///
/// Durations and instants are seconds as numbers, the exception code is a string such as
/// `"0x8badf00d"`, the reason is a word, dates are ISO 8601, and `formatVersion` says which
/// version of the format this is. New fields may be added within a version; a change that
/// removes or redefines a field gets a new version.
///
/// ```json
/// {"formatVersion": 1, "app": "com.example.exporter", "reason": "watchdog", "code": "0x8badf00d",
///  "date": "2026-11-24T03:12:09Z", "atSeconds": 31, "permittedBackgroundSeconds": 30, ...}
/// ```
public struct TerminationReportDocument: Codable, Sendable, Hashable {
    /// The version of the format this build writes.
    public static let currentFormatVersion = 1

    /// A background task still held when the app ended.
    public struct LeakedAssertion: Codable, Sendable, Hashable {
        /// The task's identifier (`UIBackgroundTaskIdentifier.rawValue`).
        public var id: Int
        /// The name given to `beginBackgroundTask(withName:)`.
        public var name: String
        /// When it began, in seconds since the system started.
        public var beganAtSeconds: Double
        /// Where it began: `Module/File.swift`.
        public var fileID: String
        /// The line it began on.
        public var line: UInt
        /// The function it began in.
        public var function: String
        /// Whether its expiration handler was called.
        public var expirationDelivered: Bool
    }

    /// A task run handed to the app and never completed.
    public struct UncompletedTask: Codable, Sendable, Hashable {
        /// The run's number.
        public var run: Int
        /// The task request's identifier.
        public var identifier: String
        /// `appRefresh`, `processing`, `continuedProcessing` or `fetch`.
        public var kind: String
        /// When the run started, in seconds since the system started.
        public var startedAtSeconds: Double
    }

    /// A file lock the app held in a shared container when it was to be suspended: what
    /// `0xdead10cc` is for (`backgroundd` finds them in `/proc/locks`).
    public struct HeldLock: Codable, Sendable, Hashable, CustomStringConvertible {
        /// The locked file, as the app's descriptor names it.
        public var path: String
        /// `POSIX`, `FLOCK`, `OFDLCK` or `LEASE`, as `/proc/locks` names the family.
        public var kind: String
        /// `READ` (shared) or `WRITE` (exclusive).
        public var access: String
        /// The first byte locked.
        public var start: UInt64
        /// The last byte locked; absent for "to the end of the file".
        public var end: UInt64?
        /// The owner `/proc/locks` names; absent where it names none (open file description locks).
        public var pid: Int32?

        /// A lock as `/proc/locks` shows it.
        public init(path: String, kind: String, access: String, start: UInt64, end: UInt64?, pid: Int32?) {
            self.path = path
            self.kind = kind
            self.access = access
            self.start = start
            self.end = end
            self.pid = pid
        }

        /// `POSIX WRITE lock on /srv/group/db.sqlite (bytes 0-EOF, pid 4242)`.
        public var description: String {
            let range = "bytes \(start)-\(end.map(String.init) ?? "EOF")"
            let owner = pid.map { ", pid \($0)" } ?? ""
            return "\(kind) \(access) lock on \(path) (\(range)\(owner))"
        }
    }

    /// The process that ended, when known.
    public struct Process: Codable, Sendable, Hashable {
        /// The process's name.
        public var name: String
        /// Its process identifier.
        public var pid: Int32

        /// A process's name and identifier.
        public init(name: String, pid: Int32) {
            self.name = name
            self.pid = pid
        }
    }

    /// The format's version: ``currentFormatVersion`` when written by this build.
    public var formatVersion: Int
    /// The app's bundle identifier.
    public var app: String
    /// The incident number, counting terminations of this system from 1.
    public var incident: Int
    /// The wall-clock time of the termination, ISO 8601 (UTC); absent when unknown.
    public var date: Date?
    /// The process, when known.
    public var process: Process?
    /// `watchdog`, `exited`, `forceQuit` or `systemReclaimed`.
    public var reason: String
    /// The exception code for watchdog terminations, such as `"0x8badf00d"`; absent otherwise.
    public var code: String?
    /// The exit status, for `exited`.
    public var exitStatus: Int32?
    /// What happened, in a sentence.
    public var explanation: String
    /// When, in seconds since the system started.
    public var atSeconds: Double
    /// The state before the termination: `active`, `inactive`, `background`, `suspended`, ...
    public var stateBefore: String
    /// The background budget that applied, in seconds.
    public var permittedBackgroundSeconds: Double
    /// The policy's name, such as `iOS` or `server(grace: 20.000s)`.
    public var policy: String
    /// Every background task still held, in the order they began.
    public var leakedAssertions: [LeakedAssertion]
    /// Every task run not completed.
    public var uncompletedTasks: [UncompletedTask]
    /// For `0xdead10cc`: the file locks the app held in its shared containers when it was to
    /// be suspended, sorted by path; absent in other reports.
    public var locksHeldAtSuspension: [HeldLock]?

    /// The document for a report, with the wall-clock date and the process when known.
    public init(_ report: TerminationReport, date: Date? = nil, process: Process? = nil) {
        formatVersion = Self.currentFormatVersion
        app = report.app.bundleIdentifier
        incident = report.incident
        self.date = date
        self.process = process
        switch report.reason {
        case .watchdog(let code):
            reason = "watchdog"
            self.code = code.description
        case .exited(let status):
            reason = "exited"
            exitStatus = status
        case .userForceQuit: reason = "forceQuit"
        case .systemReclaimed: reason = "systemReclaimed"
        }
        explanation = report.explanation
        atSeconds = report.at.seconds
        stateBefore = report.stateBefore.name
        permittedBackgroundSeconds = report.permittedBackgroundDuration.seconds
        policy = report.policyName
        leakedAssertions = report.leakedAssertions.map {
            LeakedAssertion(
                id: $0.id.rawValue,
                name: $0.name,
                beganAtSeconds: $0.beganAt.seconds,
                fileID: $0.origin.fileID,
                line: $0.origin.line,
                function: $0.origin.function,
                expirationDelivered: $0.expirationDelivered
            )
        }
        uncompletedTasks = report.uncompletedTasks.map {
            UncompletedTask(
                run: $0.run.rawValue,
                identifier: $0.identifier,
                kind: $0.kind.description,
                startedAtSeconds: $0.startedAt.seconds
            )
        }
    }

    /// The document as JSON: pretty-printed, sorted keys, ISO 8601 dates.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }
}
