import BackgroundSimulator
import Testing

@MainActor
@Suite("Fuzzing: random devices, users and apps with the invariants checked after every event")
struct FuzzerTests {
    @Test("200 generated scenarios break no invariant")
    func seedsHoldEveryInvariant() {
        let seeds: ClosedRange<UInt64> = 1000...1199
        print("fuzzing seeds \(seeds); reproduce one with: swift run bgctl fuzz --seed <seed>")
        let fuzzer = Fuzzer()
        for seed in seeds {
            let finding = fuzzer.check(seed: seed)
            #expect(finding == nil, "\(finding?.report ?? "")")
        }
    }

    @Test("The same seed generates the same scenario, and different seeds different ones")
    func generationIsSeeded() {
        let generator = ScenarioGenerator()
        #expect(generator.scenario(seed: 7) == generator.scenario(seed: 7))
        #expect(generator.scenario(seed: 7) != generator.scenario(seed: 8))
        #expect(Set((0..<50).map { generator.scenario(seed: $0).jsonData() }).count == 50)
    }

    @Test("Generated scenarios are valid scenario files: they encode and decode to themselves")
    func generatedScenariosRoundTrip() throws {
        for seed in UInt64(0)..<50 {
            let scenario = ScenarioGenerator().scenario(seed: seed)
            #expect(try Scenario.decode(from: scenario.jsonData()) == scenario, "seed \(seed)")
        }
    }

    @Test("A broken rule is found, and shrunk to a smaller scenario that still breaks it")
    func findsAndShrinksAPlantedRule() throws {
        // A rule the system does not promise: no background task assertion lives 20 s. Many
        // generated apps hold one longer, so the fuzzer must find it and cut the rest away.
        let fuzzer = Fuzzer(extraInvariants: [
            (
                "no assertion lives 20 s",
                { simulator in
                    for app in simulator.installedApps {
                        for assertion in simulator.assertions(of: app)
                        where simulator.now - assertion.beganAt > .seconds(20) {
                            return "\(app) has held \"\(assertion.name)\" since \(assertion.beganAt)"
                        }
                    }
                    return nil
                }
            )
        ])
        let finding = try #require((UInt64(0)..<50).lazy.compactMap { fuzzer.check(seed: $0) }.first)
        #expect(finding.violation.invariant == .custom)
        #expect(finding.minimal.timeline.count < finding.original.timeline.count)
        #expect(finding.minimal.apps.count == 1)
        #expect(finding.minimal.duration <= finding.original.duration)
        // The minimal scenario reproduces on its own, from its JSON.
        let reread = try Scenario.decode(from: finding.minimal.jsonData())
        #expect(fuzzer.firstViolation(of: reread)?.invariant == .custom)
        #expect(finding.report.contains("seed \(finding.seed)"))
        #expect(finding.trace.contains("no assertion lives 20 s"))
        // Nothing left can go: removing any remaining step loses the violation.
        for index in reread.timeline.indices {
            var smaller = reread
            smaller.timeline.remove(at: index)
            #expect(fuzzer.firstViolation(of: smaller)?.invariant != .custom, "step \(index) was not needed")
        }
    }
}
