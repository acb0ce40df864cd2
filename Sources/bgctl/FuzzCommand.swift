import ArgumentParser
import BackgroundSimulator
import Foundation

/// `bgctl fuzz --seeds N`: random device, user and app behaviour with the invariants checked.
struct FuzzCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Run random scenarios with the invariants checked after every event.",
        discussion: """
            Each seed generates one scenario: up to 4 apps with random behaviour (correct and \
            careless), up to 60 device and user steps, up to 2 days. A violation prints the \
            seed, the invariant, a minimal scenario that still breaks it (apps, steps and \
            actions removed while it keeps failing) and that scenario's event trace. Exit \
            status 1 when anything was found.
            """
    )

    @Option(help: "How many seeds to run.")
    var seeds: UInt64 = 100

    @Option(help: "The first seed.")
    var first: UInt64 = 0

    @Option(help: "Run this one seed only (overrides --seeds and --first).")
    var seed: UInt64?

    @Option(help: "Write each minimal scenario to this directory as fuzz-<seed>.json.")
    var output: String?

    @Flag(help: "Print each seed's generated scenario instead of running it.")
    var print = false

    @MainActor
    func run() async throws {
        let range = seed.map { $0...$0 } ?? first...(first + max(seeds, 1) - 1)
        let fuzzer = Fuzzer()
        if print {
            for seed in range {
                Swift.print(String(decoding: fuzzer.generator.scenario(seed: seed).jsonData(), as: UTF8.self))
            }
            return
        }
        let started = ContinuousClock.now
        var findings = 0
        for seed in range {
            guard let finding = fuzzer.check(seed: seed) else { continue }
            findings += 1
            Swift.print(finding.report)
            if let output {
                let path = URL(fileURLWithPath: output).appendingPathComponent("fuzz-\(seed).json")
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
                try finding.minimal.jsonData().write(to: path)
                Swift.print("written: \(path.path)")
            }
        }
        let elapsed = (ContinuousClock.now - started).seconds
        let count = range.count
        let rate = elapsed > 0 ? Double(count) / elapsed : 0
        Swift.print(
            "fuzzed \(count) seed(s) \(range.lowerBound)...\(range.upperBound) in \(String(format: "%.2f", elapsed)) s "
                + "(\(Int(rate)) seeds/s): \(findings == 0 ? "no invariant violated" : "\(findings) seed(s) violated an invariant")"
        )
        if findings > 0 { throw ExitCode(1) }
    }
}
