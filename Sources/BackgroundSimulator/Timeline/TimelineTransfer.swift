/// One background transfer in an app's transfers lane: its waits and runs, and how it ended.
///
/// ```swift
/// TimelineTransfer(name: "com.example.downloads#1", segments: [
///     .init(start: 0, end: 600, phase: .waiting, detail: "needs external power"),
///     .init(start: 600, end: 660, phase: .running, detail: "5000000 of 5000000 bytes"),
/// ], outcome: .completed, detail: "download of 5000000 bytes: HTTP 200")
/// ```
public struct TimelineTransfer: Sendable, Hashable, Codable {
    /// What a segment of the transfer's life is.
    public enum Phase: String, Sendable, Hashable, Codable, CaseIterable {
        /// Queued: waiting for its conditions (the detail says which), its turn, or a retry.
        case waiting
        /// Bytes moving.
        case running
    }

    /// How the transfer ended; `nil` while it goes on.
    public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
        /// A response arrived (whatever its status).
        case completed
        /// An error ended it (-999 cancelled, …).
        case failed
    }

    /// One stretch of the transfer's life.
    public struct Segment: Sendable, Hashable, Codable {
        /// The start, in seconds from the start of the run.
        public var start: Double
        /// The end, in seconds from the start of the run.
        public var end: Double
        /// Waiting or running.
        public var phase: Phase
        /// Why it waits, or how far it got; shown on hover.
        public var detail: String

        /// Creates a segment.
        public init(start: Double, end: Double, phase: Phase, detail: String = "") {
            self.start = start
            self.end = end
            self.phase = phase
            self.detail = detail
        }
    }

    /// `<session>#<task>` (untrusted text: escaped, and truncated where it does not fit).
    public var name: String
    /// Its waits and runs, in order.
    public var segments: [Segment]
    /// How it ended, drawn as a cap at its end; `nil` while it goes on.
    public var outcome: Outcome?
    /// What it is and how it ended, shown on hover.
    public var detail: String

    /// Creates a transfer.
    public init(name: String, segments: [Segment], outcome: Outcome? = nil, detail: String = "") {
        self.name = name
        self.segments = segments
        self.outcome = outcome
        self.detail = detail
    }

    /// The legend's keys: the phases, then the outcomes.
    static let legendKeys = Phase.allCases.map(\.rawValue) + Outcome.allCases.map(\.rawValue)

    /// Its start (the first segment's) and end (the last segment's).
    var extent: (start: Double, end: Double) {
        (segments.map(\.start).min() ?? 0, segments.map(\.end).max() ?? 0)
    }
}
