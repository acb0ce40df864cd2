/// A simulated run reduced to what its timeline shows: the device's battery, network and events, and for every app
/// its lifecycle states, background task assertions, `BGTaskScheduler` tasks, background-time budget and events.
///
/// Times are seconds from the start of the simulation; the x axis spans `0...duration` and anything outside it is
/// clipped. The document is plain data, so an adapter can build it from any log, and it round-trips through
/// `Codable` (for fixtures and golden files). Render it with ``TimelineRenderer/html(for:options:)``.
///
/// ```swift
/// let document = TimelineDocument(
///     title: "Upload on save",
///     subtitle: "seed 42 · policy iOS 18",
///     duration: 6 * 3600,
///     originUnixSeconds: 1_710_136_800,   // 2024-03-11 06:00 UTC
///     utcOffsetSeconds: 3600,             // axis labels in UTC+01:00
///     apps: [AppTimeline(id: "com.example.photos", states: [TimelineSpan(start: 0, end: 60, label: "active")])]
/// )
/// let html = TimelineRenderer.html(for: document)
/// ```
public struct TimelineDocument: Sendable, Hashable, Codable {
    /// The heading of the page, for example the scenario's name.
    public var title: String
    /// A second line under the title, for example the seed and the policy.
    public var subtitle: String
    /// The length of the run in seconds: the x axis spans `0...duration`. A duration that is not a positive number
    /// is replaced by the latest time in the document (or 60 s when there is none).
    public var duration: Double
    /// The wall-clock time of `t = 0`, in seconds since 1970-01-01 UTC; axis labels and details show wall-clock times.
    public var originUnixSeconds: Double
    /// The offset from UTC of the time zone the labels are shown in, in seconds (3600 for UTC+01:00).
    public var utcOffsetSeconds: Int
    /// The battery level over time, as a step series: each sample holds until the next one.
    public var battery: [TimelineBatterySample]
    /// The network the device is on, as spans labelled for example `"wifi"`, `"cellular (metered)"` or `"none"`.
    public var network: [TimelineSpan]
    /// Device events, for example `"reboot"`, `"plugged in"` or `"Low Power Mode on"`.
    public var deviceMarkers: [TimelineMarker]
    /// One timeline per app, drawn in this order.
    public var apps: [AppTimeline]

    /// Creates a document; every series defaults to empty.
    ///
    /// - Parameters:
    ///   - title: The heading of the page.
    ///   - subtitle: A second line under the title.
    ///   - duration: The length of the run in seconds.
    ///   - originUnixSeconds: The wall-clock time of `t = 0`, in seconds since 1970-01-01 UTC.
    ///   - utcOffsetSeconds: The offset from UTC of the labels' time zone, in seconds.
    ///   - battery: The battery level over time.
    ///   - network: The network the device is on over time.
    ///   - deviceMarkers: Device events.
    ///   - apps: One timeline per app.
    public init(
        title: String,
        subtitle: String = "",
        duration: Double,
        originUnixSeconds: Double = 0,
        utcOffsetSeconds: Int = 0,
        battery: [TimelineBatterySample] = [],
        network: [TimelineSpan] = [],
        deviceMarkers: [TimelineMarker] = [],
        apps: [AppTimeline] = []
    ) {
        self.title = title
        self.subtitle = subtitle
        self.duration = duration
        self.originUnixSeconds = originUnixSeconds
        self.utcOffsetSeconds = utcOffsetSeconds
        self.battery = battery
        self.network = network
        self.deviceMarkers = deviceMarkers
        self.apps = apps
    }
}

/// Everything the timeline shows about one app.
public struct AppTimeline: Sendable, Hashable, Codable {
    /// The app's identifier, for example its bundle identifier; it heads the app's lanes.
    public var id: String
    /// The app's lifecycle states over time, labelled `notRunning`, `active`, `inactive`, `background`, `suspended`
    /// or `terminated` (other labels are drawn in a neutral colour with their name).
    public var states: [TimelineSpan]
    /// Background task assertions (`beginBackgroundTask` … `endBackgroundTask`), outcomes `ended`, `expired`,
    /// `leaked` or `open`. Overlapping assertions are stacked in sub-rows.
    public var assertions: [TimelineBar]
    /// `BGTaskScheduler` task runs (and background fetches), outcomes `succeeded`, `failed`, `killed` or `running`.
    public var tasks: [TimelineBar]
    /// The background time remaining over time, as a step series.
    public var budget: [TimelineBudgetSample]
    /// App events, for example a termination `"0x8badf00d"` or `"force quit"`.
    public var markers: [TimelineMarker]
    /// The background modes that kept the app running, one span per held mode (`audio`,
    /// `location`, ...): the modes lane, drawn when the app held any.
    public var modes: [TimelineSpan] = []
    /// Background `URLSession` transfers, each waiting (with why) and running (with how far) until
    /// it completes or fails: the transfers lane, drawn when the app had any.
    public var transfers: [TimelineTransfer] = []

    /// Creates an app's timeline; every series defaults to empty.
    ///
    /// - Parameters:
    ///   - id: The app's identifier.
    ///   - states: The app's lifecycle states over time.
    ///   - assertions: Background task assertions.
    ///   - tasks: `BGTaskScheduler` task runs.
    ///   - budget: The background time remaining over time.
    ///   - markers: App events.
    public init(
        id: String,
        states: [TimelineSpan] = [],
        assertions: [TimelineBar] = [],
        tasks: [TimelineBar] = [],
        budget: [TimelineBudgetSample] = [],
        markers: [TimelineMarker] = []
    ) {
        self.id = id
        self.states = states
        self.assertions = assertions
        self.tasks = tasks
        self.budget = budget
        self.markers = markers
    }
}

/// An interval with a label: a lifecycle state, or the network the device is on.
public struct TimelineSpan: Sendable, Hashable, Codable {
    /// The start, in seconds from the start of the run.
    public var start: Double
    /// The end, in seconds from the start of the run.
    public var end: Double
    /// What the span is: it picks the colour, and is written in the span when it fits.
    public var label: String
    /// Shown on hover, under the label and the times.
    public var detail: String

    /// Creates a span.
    ///
    /// - Parameters:
    ///   - start: The start, in seconds from the start of the run.
    ///   - end: The end, in seconds from the start of the run.
    ///   - label: What the span is, for example `"background"` or `"wifi"`.
    ///   - detail: Shown on hover.
    public init(start: Double, end: Double, label: String, detail: String = "") {
        self.start = start
        self.end = end
        self.label = label
        self.detail = detail
    }
}

/// An interval with a name and an outcome: a background task assertion or a task run.
public struct TimelineBar: Sendable, Hashable, Codable {
    /// How a bar ended; it picks the bar's colour.
    public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
        /// An assertion the app ended in time.
        case ended
        /// An assertion whose expiration handler ran.
        case expired
        /// An assertion still held when the app was terminated.
        case leaked
        /// An assertion still held at the end of the run.
        case open
        /// A task that completed with success.
        case succeeded
        /// A task that completed without success.
        case failed
        /// A task that ended with its app's termination.
        case killed
        /// A task still running at the end of the run.
        case running
    }

    /// The assertion's or task's name (untrusted text: escaped, and truncated in the bar when it does not fit).
    public var name: String
    /// The start, in seconds from the start of the run.
    public var start: Double
    /// The end, in seconds from the start of the run (the end of the run for `open` and `running`).
    public var end: Double
    /// How the bar ended.
    public var outcome: Outcome
    /// Shown on hover, under the name, the outcome and the times.
    public var detail: String

    /// Creates a bar.
    ///
    /// - Parameters:
    ///   - name: The assertion's or task's name.
    ///   - start: The start, in seconds from the start of the run.
    ///   - end: The end, in seconds from the start of the run.
    ///   - outcome: How the bar ended.
    ///   - detail: Shown on hover.
    public init(name: String, start: Double, end: Double, outcome: Outcome, detail: String = "") {
        self.name = name
        self.start = start
        self.end = end
        self.outcome = outcome
        self.detail = detail
    }
}

/// An instant event: a reboot, a charger plugged in, an app's termination.
public struct TimelineMarker: Sendable, Hashable, Codable {
    /// How much a marker matters; it picks the marker's colour.
    public enum Severity: String, Sendable, Hashable, Codable, CaseIterable {
        /// A change of conditions, for example `"plugged in"`.
        case info
        /// Something that changes what may run, for example `"Low Power Mode on"` or `"force quit"`.
        case warning
        /// A termination or a crash, for example `"0x8badf00d"` or `"reboot"`. Device faults are also drawn as a line
        /// across every lane.
        case fault
    }

    /// When the event happened, in seconds from the start of the run.
    public var time: Double
    /// A short label written next to the marker when there is room.
    public var label: String
    /// How much the marker matters.
    public var severity: Severity
    /// Shown on hover, under the label and the time.
    public var detail: String

    /// Creates a marker.
    ///
    /// - Parameters:
    ///   - time: When the event happened, in seconds from the start of the run.
    ///   - label: A short label, for example `"reboot"`.
    ///   - severity: How much the marker matters; `.info` by default.
    ///   - detail: Shown on hover.
    public init(time: Double, label: String, severity: Severity = .info, detail: String = "") {
        self.time = time
        self.label = label
        self.severity = severity
        self.detail = detail
    }
}

/// The battery at one instant; it holds until the next sample.
public struct TimelineBatterySample: Sendable, Hashable, Codable {
    /// The time of the sample, in seconds from the start of the run.
    public var time: Double
    /// The charge, from 0 (empty) to 1 (full); values outside are clamped.
    public var level: Double
    /// Whether a charger is connected and charging.
    public var charging: Bool
    /// Whether Low Power Mode is on.
    public var lowPowerMode: Bool

    /// Creates a battery sample.
    ///
    /// - Parameters:
    ///   - time: The time of the sample, in seconds from the start of the run.
    ///   - level: The charge, from 0 to 1.
    ///   - charging: Whether the device is charging.
    ///   - lowPowerMode: Whether Low Power Mode is on.
    public init(time: Double, level: Double, charging: Bool = false, lowPowerMode: Bool = false) {
        self.time = time
        self.level = level
        self.charging = charging
        self.lowPowerMode = lowPowerMode
    }
}

/// An app's background-time budget at one instant; it holds until the next sample.
public struct TimelineBudgetSample: Sendable, Hashable, Codable {
    /// The time of the sample, in seconds from the start of the run.
    public var time: Double
    /// The background time remaining, in seconds (`backgroundTimeRemaining`). `Double.greatestFiniteMagnitude`, as
    /// in the foreground (or any value from 10¹² up, or infinity), is drawn across the chart as unlimited.
    public var remainingSeconds: Double
    /// The budget the remaining time counts down from, in seconds; the chart's scale is the largest finite limit.
    public var limitSeconds: Double
    /// Whether the remaining time goes down from this sample to the next (the app holds an
    /// assertion in the background): the chart draws a ramp to the next sample, not a step.
    public var depleting: Bool

    /// Creates a budget sample.
    ///
    /// - Parameters:
    ///   - time: The time of the sample, in seconds from the start of the run.
    ///   - remainingSeconds: The background time remaining, in seconds.
    ///   - limitSeconds: The budget, in seconds.
    ///   - depleting: Whether it goes down, linearly, until the next sample.
    public init(time: Double, remainingSeconds: Double, limitSeconds: Double, depleting: Bool = false) {
        self.time = time
        self.remainingSeconds = remainingSeconds
        self.limitSeconds = limitSeconds
        self.depleting = depleting
    }
}
