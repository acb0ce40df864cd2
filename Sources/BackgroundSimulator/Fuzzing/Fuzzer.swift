import BackgroundCore

/// Runs generated scenarios with the invariants checked after every event, and shrinks any
/// scenario that breaks one to a minimal one that still does.
///
/// ```swift
/// let fuzzer = Fuzzer()
/// for seed in UInt64(0)..<1000 {
///     if let finding = fuzzer.check(seed: seed) {
///         print(finding.report)     // the seed, the violation, a minimal scenario and its log
///     }
/// }
/// ```
@MainActor
public struct Fuzzer {
    /// What a fuzzed run found.
    public struct Finding: Sendable {
        /// The seed that generated the scenario.
        public let seed: UInt64
        /// The first violation of the original scenario.
        public let violation: InvariantViolation
        /// The generated scenario.
        public let original: Scenario
        /// The smallest scenario found that still breaks the same invariant.
        public let minimal: Scenario
        /// The minimal scenario's event log, up to and including the violation.
        public let trace: String
        /// How many runs the shrinking took.
        public let shrinkRuns: Int

        /// The finding in words: seed, violation, the minimal scenario as JSON, and its trace.
        public var report: String {
            """
            seed \(seed): \(violation)
            reproduce: save the scenario below and run `bgctl simulate <file>`, or `bgctl fuzz --seed \(seed)`
            minimal scenario (\(minimal.timeline.count) of \(original.timeline.count) steps, \
            \(minimal.apps.count) of \(original.apps.count) apps, found in \(shrinkRuns) runs):
            \(String(decoding: minimal.jsonData(), as: UTF8.self))
            event trace of the minimal scenario:
            \(trace)
            """
        }
    }

    /// Generates the scenarios.
    public var generator: ScenarioGenerator
    /// Extra rules checked with the built-in invariants (``Simulator/addInvariant(_:_:)``).
    public var extraInvariants: [(name: String, check: @MainActor (Simulator) -> String?)]
    /// Whether every run's events and answers cross the encoding boundary, as bytes of the
    /// protocol a process boundary carries (``Simulator/Configuration/encodesMessages``); `nil`
    /// leaves it to the environment (`BACKGROUND_ENCODE_MESSAGES=1`).
    public var encodesMessages: Bool?

    /// Creates a fuzzer.
    public init(
        generator: ScenarioGenerator = ScenarioGenerator(),
        extraInvariants: [(name: String, check: @MainActor (Simulator) -> String?)] = []
    ) {
        self.generator = generator
        self.extraInvariants = extraInvariants
    }

    /// Runs the scenario of `seed`; a violation is shrunk and reported.
    public func check(seed: UInt64) -> Finding? {
        let scenario = generator.scenario(seed: seed)
        guard let violation = firstViolation(of: scenario) else { return nil }
        var shrinking = Shrinker(invariant: violation.invariant) { firstViolation(of: $0) }
        let minimal = shrinking.shrink(scenario)
        return Finding(
            seed: seed,
            violation: violation,
            original: scenario,
            minimal: minimal,
            trace: trace(of: minimal),
            shrinkRuns: shrinking.runs
        )
    }

    /// Runs the scenario of `seed` once, without shrinking: its simulator has the whole event
    /// log (`bgctl fuzz --log verbose` prints it; the cross-process determinism test compares it).
    ///
    /// - Returns: The run, or `nil` when the generated scenario cannot be run.
    public func run(seed: UInt64) -> ScenarioRun? {
        try? run(generator.scenario(seed: seed))
    }

    /// The first violation of a scenario, or `nil` if every invariant held.
    public func firstViolation(of scenario: Scenario) -> InvariantViolation? {
        guard let run = try? run(scenario) else { return nil }
        return run.simulator.violations.first
    }

    private func run(_ scenario: Scenario) throws(ScenarioError) -> ScenarioRun {
        try ScenarioRun(scenario, encodesMessages: encodesMessages) { simulator in
            for invariant in extraInvariants { simulator.addInvariant(invariant.name, invariant.check) }
        }
    }

    /// The event log of a scenario up to its first violation.
    private func trace(of scenario: Scenario) -> String {
        guard let run = try? run(scenario) else { return "" }
        let clock = run.simulator.clockLabel
        var lines: [String] = []
        for event in run.simulator.events {
            if let line = event.line(clock: clock) { lines.append(line) }
            if case .violation = event.kind { break }
        }
        return lines.joined(separator: "\n")
    }
}
