import BackgroundCore
import BackgroundStore
import BackgroundTestSupport
import Foundation
import Testing

@Suite("Random sequences of changes")
struct ReferenceModelTests {
    /// A random change among three apps and five identifiers, times on whole milliseconds.
    static func randomChange(using random: inout SplitMix64, now: Instant) -> StoreChange {
        let app: AppID = ["com.example.a", "com.example.b", "com.example.c"].randomElement(using: &random)!
        let identifier = "task.\(Int.random(in: 0..<5, using: &random))"
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4:
            var request = fullRequest(
                identifier,
                // Silent pushes are never stored (BackgroundSystem.recordRun), and a transfer is
                // never a task request (the core refuses one; transfers have their own table).
                kind: TaskKind.allCases.filter { $0 != .remoteNotification && $0 != .transfer }
                    .randomElement(using: &random)!,
                submittedAt: now
            )
            request.requiresGPU = Bool.random(using: &random)
            request.earliestBegin =
                Bool.random(using: &random) ? nil : now + .milliseconds(Int.random(in: 0..<100_000, using: &random))
            return .savePendingRequest(app, request)
        case 4..<6:
            return .deletePendingRequest(app, identifier: identifier)
        case 6:
            return .deleteAllPendingRequests(app)
        case 7..<9:
            return .recordLaunch(app, at: now)
        default:
            return .saveAppState(app, fullState(forceQuit: Bool.random(using: &random)))
        }
    }

    @Test("Any sequence of batches loads back as the reference model restores it (seeded; prints its seed)")
    func matchesReference() throws {
        let seed =
            ProcessInfo.processInfo.environment["BACKGROUND_STORE_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 0...UInt64.max)
        print("ReferenceModelTests seed: \(seed) (replay with BACKGROUND_STORE_SEED=\(seed))")
        var random = SplitMix64(seed: seed)
        let store = try BackgroundStore.inMemory(launchLimit: 7)
        var reference = ReferenceStore(launchLimit: 7)
        var now = Instant.zero
        for _ in 0..<200 {
            var batch: [StoreChange] = []
            for _ in 0..<Int.random(in: 1...5, using: &random) {
                // Some changes share an instant, so ties in submission and launch times occur.
                now += .milliseconds(Int.random(in: 0..<3, using: &random))
                batch.append(Self.randomChange(using: &random, now: now))
            }
            try store.apply(batch, clock: clock)
            reference.apply(batch)
            let loaded = try store.load(clock: clock)
            #expect(loaded == reference.restored, "seed \(seed), after the batch \(batch)")
            if loaded != reference.restored { return }
        }
    }
}
