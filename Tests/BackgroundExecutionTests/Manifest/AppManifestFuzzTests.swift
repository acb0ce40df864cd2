import BackgroundCore
import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Testing

@Suite("App manifest: fuzzing")
struct AppManifestFuzzTests {
    private static let seed: UInt64 = 0x5EED_2024
    private static let rounds = 2_000

    /// Bytes that change the structure of a property list when they appear in the wrong place.
    private static let interesting: [UInt8] = Array("<>/*.\"&;![] \n\0".utf8) + [0xFF, 0xC3, 0x80]

    /// `data` with one to four random byte flips, replacements, insertions, deletions or a truncation.
    private static func mutate(_ data: Data, using rng: inout SplitMix64) -> Data {
        var bytes = [UInt8](data)
        for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
            let index = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: bytes[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
            case 1: bytes[index] = interesting.randomElement(using: &rng)!
            case 2: bytes.insert(interesting.randomElement(using: &rng)!, at: index)
            case 3: bytes.remove(at: index)
            default: bytes.removeSubrange(index...)
            }
        }
        return Data(bytes)
    }

    /// Loads `rounds` mutations of `original`; returns how many loaded and how many threw.
    private static func run(_ original: Data) -> (loaded: Int, rejected: Int, problems: [String]) {
        var rng = SplitMix64(seed: seed)
        var loaded = 0
        var rejected = 0
        var problems: [String] = []
        for round in 0..<rounds {
            let data = mutate(original, using: &rng)
            do {
                let manifest = try AppManifest(data: data)
                loaded += 1
                // Whatever loads obeys the rules the loader enforces.
                if manifest.bundleIdentifier.bundleIdentifier.isEmpty
                    || manifest.permittedTaskIdentifiers.count != Set(manifest.permittedTaskIdentifiers).count
                {
                    problems.append("round \(round): loaded an invalid manifest \(manifest)")
                }
            } catch {
                // The signature (`throws(ManifestError)`) guarantees the type; the message must say something.
                rejected += 1
                if error.problem.isEmpty { problems.append("round \(round): \(error.code) with no problem") }
            }
        }
        return (loaded, rejected, problems)
    }

    @Test("2,000 mutations (seed 0x5EED2024) of a valid XML plist never crash: each loads or throws ManifestError")
    func xmlMutations() {
        let result = Self.run(Data(ManifestFixtures.xml.utf8))
        #expect(result.problems == [])
        #expect(result.loaded + result.rejected == Self.rounds)
        #expect(result.loaded > 0)
        #expect(result.rejected > 0)
    }

    @Test("2,000 mutations (seed 0x5EED2024) of a valid binary plist never crash: each loads or throws ManifestError")
    func binaryMutations() throws {
        let root = try PropertyListSerialization.propertyList(from: Data(ManifestFixtures.xml.utf8), format: nil)
        let binary = try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)
        let result = Self.run(binary)
        #expect(result.problems == [])
        #expect(result.loaded + result.rejected == Self.rounds)
        #expect(result.rejected > 0)
    }
}
