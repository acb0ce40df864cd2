public import Foundation

/// A simulation to run: a device, the apps on it, what the user and the device do over time,
/// and what must be true at the end.
///
/// Scenarios are JSON files in the format documented in `docs/scenarios.md` and described by
/// `schemas/scenario.schema.json`. Decoding is strict: every problem, including an unknown key,
/// is a ``ScenarioError`` naming the path of the offending value.
///
/// ```swift
/// let scenario = try Scenario.decode(from: Data("""
///     {
///       "formatVersion": 1,
///       "name": "Refresh once",
///       "duration": "2h",
///       "apps": [{"id": "com.example.news", "onLaunch": [{"register": "com.example.news.refresh"}]}],
///       "timeline": [{"at": "+1m", "user": "open", "app": "com.example.news"}]
///     }
///     """.utf8))
/// scenario.timeline[0].event   // .user(.open(app: "com.example.news"))
/// ```
///
/// Encoding produces the canonical form: durations such as `"1h30m"`, keys sorted, defaults
/// left out. Decoding what ``jsonData()`` returns gives back an equal scenario.
public struct Scenario: Sendable, Hashable {
    /// The format version this build reads and writes.
    public static let formatVersion = 1
    /// The largest scenario file accepted: 16 MiB.
    public static let maximumFileSize = 16 << 20
    /// The most apps a scenario may define: a phone has hundreds; ten thousand keep a scenario
    /// of the largest file (``maximumFileSize``) and its run bounded.
    public static let maximumApps = 10_000
    /// The most steps a timeline may have.
    public static let maximumSteps = 100_000
    /// The most step occurrences, repeats included, a timeline may expand to.
    public static let maximumOccurrences = 1_000_000

    /// A short title, shown in reports. Not empty.
    public var name: String
    /// Free text about what the scenario shows.
    public var description: String?
    /// The seed of every random choice (jitter, the system's decisions). Default 0.
    public var seed: UInt64
    /// The wall-clock time at T+0 and the scenario's time zone. Default `2026-01-01T00:00:00Z`.
    public var start: Start
    /// How long the scenario runs: more than zero, at most 400 days.
    public var duration: Duration
    /// The system's rules. Default ``Policy/iOS``.
    public var policy: Policy
    /// The device at T+0.
    public var device: Device
    /// The apps installed on the device, with unique ids.
    public var apps: [App]
    /// What happens, in file order (the engine orders occurrences by time, then by file order).
    public var timeline: [Step]
    /// What must be true at the end (`expect` in the file); nil when nothing is checked.
    public var expectations: Expectations?

    /// Creates a scenario. Nothing is checked; ``validated()`` checks it as the decoder would.
    ///
    /// ```swift
    /// let scenario = Scenario(name: "Idle day", duration: .seconds(86_400))
    /// ```
    public init(
        name: String,
        description: String? = nil,
        seed: UInt64 = 0,
        start: Start = .default,
        duration: Duration,
        policy: Policy = .iOS,
        device: Device = Device(),
        apps: [App] = [],
        timeline: [Step] = [],
        expectations: Expectations? = nil
    ) {
        self.name = name
        self.description = description
        self.seed = seed
        self.start = start
        self.duration = duration
        self.policy = policy
        self.device = device
        self.apps = apps
        self.timeline = timeline
        self.expectations = expectations
    }

    /// Decodes a scenario from a JSON document, checking everything.
    ///
    /// - Parameter data: The document, UTF-8, at most ``maximumFileSize`` bytes.
    /// - Throws: ``ScenarioError`` for every problem, with the path of the offending value.
    public static func decode(from data: Data) throws(ScenarioError) -> Scenario {
        guard data.count <= maximumFileSize else {
            throw ScenarioError(
                code: .limitExceeded,
                path: "",
                message: "the document is \(data.count) bytes; the limit is \(maximumFileSize) (16 MiB)"
            )
        }
        return try Scenario(json: JSONValue(parsing: data))
    }

    /// Reads and decodes a scenario file.
    ///
    /// ```swift
    /// let scenario = try Scenario.load(contentsOf: URL(filePath: "Scenarios/news.json"))
    /// ```
    ///
    /// - Parameter url: A file URL.
    /// - Throws: ``ScenarioError`` with ``ScenarioError/file`` set to the file's name:
    ///   ``ScenarioError/Code/unreadable`` when the file cannot be read, and every error of
    ///   ``decode(from:)``.
    public static func load(contentsOf url: URL) throws(ScenarioError) -> Scenario {
        let file = url.lastPathComponent
        let data: Data
        do {
            guard url.isFileURL else {
                throw ScenarioError(code: .unreadable, path: "", message: "\(url) is not a file URL", file: file)
            }
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            data = try handle.read(upToCount: maximumFileSize + 1) ?? Data()
            if data.count > maximumFileSize {
                // Only the first bytes were read: say the file's real size, not what was read.
                let size = try handle.seekToEnd()
                throw ScenarioError(
                    code: .limitExceeded,
                    path: "",
                    message: "the document is \(size) bytes; the limit is \(maximumFileSize) (16 MiB)",
                    file: file
                )
            }
        } catch let error as ScenarioError {
            throw error
        } catch {
            throw ScenarioError(code: .unreadable, path: "", message: Self.readFailure(error), file: file)
        }
        do {
            return try decode(from: data)
        } catch {
            var located = error
            located.file = file
            throw located
        }
    }

    /// Why a file could not be read, in the system's words (no `NSError` dump).
    static func readFailure(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain {
            return "cannot read the file: " + String(cString: strerror(Int32(underlying.code)))
        }
        if let posix = error as? POSIXError {
            return "cannot read the file: " + String(cString: strerror(posix.code.rawValue))
        }
        return "cannot read the file: " + (error as NSError).localizedDescription
    }

    /// Checks the scenario as the decoder would, by encoding and decoding it.
    ///
    /// Use it on scenarios built in code (a fuzzer's reproducers) before running or saving them.
    ///
    /// - Returns: The decoded scenario, equal to this one when it is valid.
    /// - Throws: The ``ScenarioError`` that decoding ``jsonData()`` throws.
    public func validated() throws(ScenarioError) -> Scenario {
        try Scenario.decode(from: jsonData())
    }

    /// The scenario as canonical JSON: pretty printed, keys sorted, defaults left out, a final
    /// newline. Decoding it gives back an equal scenario.
    public func jsonData() -> Data {
        jsonValue.serializedData()
    }

    /// The app with this id, if the scenario defines one.
    public func app(withID id: String) -> App? {
        apps.first { $0.id == id }
    }

    /// The offsets from T+0 at which a step happens, before jitter: its `at`, then every repeat
    /// interval after it, as long as they fall before the end of the scenario.
    ///
    /// ```swift
    /// // start 06:00, duration 1d, {"at": "07:30", "repeat": "daily"}
    /// scenario.occurrences(of: step)   // [.seconds(5400)]
    /// ```
    public func occurrences(of step: Step) -> [Duration] {
        let first = step.at.offset(from: start)
        guard first >= .zero, first < duration else { return [] }
        guard let interval = step.repeat?.interval, interval > .zero else { return [first] }
        let count = Self.occurrenceCount(first: first, interval: interval, end: duration)
        return (0..<count).map { first + interval * $0 }
    }

    /// How many of `first`, `first + interval`, … fall before `end`.
    static func occurrenceCount(first: Duration, interval: Duration, end: Duration) -> Int {
        let span = ScenarioTime.milliseconds(of: end) - ScenarioTime.milliseconds(of: first)
        let step = ScenarioTime.milliseconds(of: interval)
        guard span > 0, step > 0 else { return span > 0 ? 1 : 0 }
        return Int((span - 1) / step + 1)
    }
}

extension Scenario: Codable {
    /// Decodes a scenario from any decoder, checking it as ``decode(from:)`` does.
    ///
    /// - Throws: ``ScenarioError``, or the decoder's error when the input is not JSON-like.
    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        self = try Scenario.decode(from: value.serializedData())
    }

    /// Encodes the canonical form (see ``jsonData()``).
    public func encode(to encoder: any Encoder) throws {
        try jsonValue.encode(to: encoder)
    }
}
