import BackgroundSimulator
import BackgroundTestSupport
import Foundation
import Testing

@Suite("Scenario decoding under fuzzing")
struct ScenarioFuzzTests {
    private static let seed: UInt64 =
        ProcessInfo.processInfo.environment["SCENARIO_FUZZ_SEED"].flatMap { UInt64($0) }
        ?? 0x5CE7_A210

    private static let corpus =
        [ScenarioFixtures.newsDay] + ScenarioFixtures.validVariants
        + ScenarioFixtures.invalid.map(\.json)

    private static let tokens = [
        "{", "}", "[", "]", "\"", ",", ":", "null", "true", "-1", "0", "1e999", "18446744073709551616", "0.5",
        "\"\\u0000\"", "\"\\ud800\"", "\"+1d\"", "\"07:30\"", "\"day 2 07:30\"", "\"1h30m\"", "\"daily\"", "\"\"",
        "\"open\"", "\"app\"", "\"repeat\"", "\"work\"", "\"leak\"", "\"kind\"", "\"processing\"", "\">= 3\"",
        "\"1...0\"", "\"400d\"", "\"0x8badf00d\"", "\u{FEFF}", "\u{0}", "é",
    ]

    /// Decodes `data`: it must succeed or throw a `ScenarioError` (the signature guarantees the
    /// type; the test guarantees no trap), and a success must round-trip.
    private static func check(_ data: Data) -> Bool {
        do {
            let scenario = try Scenario.decode(from: data)
            let again = try? Scenario.decode(from: scenario.jsonData())
            #expect(again == scenario, "round trip of \(String(decoding: data, as: UTF8.self))")
            return true
        } catch {
            #expect(!error.description.isEmpty)
            return false
        }
    }

    @Test("Mutated bytes give a scenario or a typed error, never a crash")
    func byteMutations() {
        print("ScenarioFuzzTests.byteMutations seed: \(Self.seed)")
        var random = SplitMix64(seed: Self.seed)
        var decoded = 0
        for _ in 0..<3000 {
            var bytes = Array(Self.corpus.randomElement(using: &random)!.utf8)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                Self.mutate(&bytes, using: &random)
            }
            if Self.check(Data(bytes)) { decoded += 1 }
        }
        #expect(decoded > 0, "some mutants should still decode")
    }

    @Test("Mutated JSON trees give a scenario or a typed error, never a crash")
    func treeMutations() throws {
        print("ScenarioFuzzTests.treeMutations seed: \(Self.seed)")
        var random = SplitMix64(seed: Self.seed ^ 0xA5A5)
        let trees = try Self.corpus.prefix(4).map { try JSONValue(parsing: Data($0.utf8)) }
        var decoded = 0
        for _ in 0..<3000 {
            var tree = trees.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                tree = Self.mutate(tree, depth: 0, using: &random)
            }
            if Self.check(tree.serializedData()) { decoded += 1 }
        }
        #expect(decoded > 0, "some mutants should still decode")
    }

    @Test("Random bytes give a typed error, never a crash")
    func garbage() {
        var random = SplitMix64(seed: Self.seed ^ 0x6A6A)
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            _ = Self.check(Data(bytes))
        }
    }

    private static func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) {
        guard !bytes.isEmpty else {
            bytes = Array(tokens.randomElement(using: &random)!.utf8)
            return
        }
        let index = Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<5, using: &random) {
        case 0: bytes[index] = UInt8.random(in: 0...255, using: &random)
        case 1: bytes.removeSubrange(index..<min(bytes.count, index + Int.random(in: 1...16, using: &random)))
        case 2:
            bytes.insert(
                contentsOf: bytes[index..<min(bytes.count, index + Int.random(in: 1...64, using: &random))],
                at: index
            )
        case 3: bytes.insert(contentsOf: Array(tokens.randomElement(using: &random)!.utf8), at: index)
        default: bytes.removeSubrange(index...)
        }
    }

    private static func mutate(_ value: JSONValue, depth: Int, using random: inout SplitMix64) -> JSONValue {
        switch value {
        case .object(var members) where !members.isEmpty && Int.random(in: 0..<4, using: &random) != 0:
            let key = members.keys.sorted().randomElement(using: &random)!
            switch Int.random(in: 0..<6, using: &random) {
            case 0: members[key] = nil
            case 1: members[key + "x"] = members[key]
            default: members[key] = mutate(members[key]!, depth: depth + 1, using: &random)
            }
            return .object(members)
        case .array(var elements) where !elements.isEmpty && Int.random(in: 0..<4, using: &random) != 0:
            let index = Int.random(in: 0..<elements.count, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0: elements.remove(at: index)
            case 1: elements.append(elements[index])
            default: elements[index] = mutate(elements[index], depth: depth + 1, using: &random)
            }
            return .array(elements)
        default:
            return randomValue(depth: depth, using: &random)
        }
    }

    private static func randomValue(depth: Int, using random: inout SplitMix64) -> JSONValue {
        let strings = [
            "", " ", "+1d", "+0s", "07:30", "23:59:59", "day 2 07:30", "day 0 07:30", "1h30m", "30m1h", "0s", "401d",
            "daily", "hourly", "open", "home", "plugIn", "refresh", "processing", "none", "a", "com.example.news",
            "com.example.news.refresh", ">= 3", "<= 0.5", "1...5", "5...1", "0x8badf00d", "forceQuit", "iOS",
            "2026-11-21T06:00:00Z", "2026-02-30T06:00:00Z", String(repeating: "x", count: 300),
        ]
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2:
            return .integer(
                [0, 1, -1, 2, 100, Int128(Int64.max), Int128(UInt64.max), Int128(UInt64.max) + 1].randomElement(
                    using: &random
                )!
            )
        case 3: return .double([0.5, -0.0, 1.5, 1e300, 0.1].randomElement(using: &random)!)
        case 4, 5: return .string(strings.randomElement(using: &random)!)
        case 6 where depth < 8: return .array([randomValue(depth: depth + 1, using: &random)])
        case 7 where depth < 8: return .object(["register": randomValue(depth: depth + 1, using: &random)])
        default: return .object([:])
        }
    }
}
