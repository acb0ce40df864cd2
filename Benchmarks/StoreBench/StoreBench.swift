// StoreBench: persisted submit throughput of BackgroundStore against the floor, raw GRDB.
//
// A plain executable (not an ordo-one benchmark) of the Benchmarks package, target `StoreBench`
// with `path: "StoreBench"`. From Benchmarks/:
//
//     swift run -c release StoreBench [operations per round, default 20000]
//
// It measures, side by side, on file databases in WAL mode (GRDB sets synchronous = NORMAL):
//   (a) `store.apply([.savePendingRequest(app, request)], clock:)`, one call per operation;
//   (b) the floor: one raw GRDB `INSERT OR REPLACE` of the same row with the same column values,
//       one transaction per operation, on a file with the same schema.
// Rounds alternate (a, b, a, b, …) so both see the same machine state; it prints each round,
// then the best and the median round of each.
// Target: (a) ≥ 0.5 × (b).

import BackgroundCore
import BackgroundStore
import Foundation
import GRDB

@main
struct StoreBench {
    static let clock = WallClock(unixSecondsAtOrigin: 1_767_225_600)
    static let app: AppID = "com.example.bench"
    static let rounds = 5

    /// The request of operation `n`: 100 identifiers in turn, so tables keep a steady size and
    /// most operations replace a row, as resubmissions do.
    static func request(_ n: Int) -> TaskRequest {
        TaskRequest(
            identifier: "com.example.bench.task.\(n % 100)",
            kind: .processing,
            earliestBegin: .seconds(n + 900),
            requiresNetworkConnectivity: true,
            submittedAt: .milliseconds(n)
        )
    }

    static func main() throws {
        let operations = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 20_000
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("StoreBench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let store = try BackgroundStore(path: directory.appendingPathComponent("store.sqlite").path)
        let floorPath = directory.appendingPathComponent("floor.sqlite").path
        _ = try BackgroundStore(path: floorPath)  // the same schema
        let floor = try DatabasePool(path: floorPath)
        try floor.write { db in
            try db.execute(sql: "INSERT INTO apps (bundle_id) VALUES (?)", arguments: [app.bundleIdentifier])
        }
        // synchronous is a setting of each connection: ask the writer, which GRDB sets to NORMAL.
        let settings = try floor.writeWithoutTransaction { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?",
                try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            )
        }
        print("StoreBench: \(operations) operations per round, \(rounds) rounds")
        print("journal_mode=\(settings.0), synchronous=\(settings.1) (1 = NORMAL) on the writer")

        var oursRounds: [Double] = []
        var floorRounds: [Double] = []
        for round in 1...rounds {
            let ours = try measure(operations) { n in
                try store.apply([.savePendingRequest(app, request(n))], clock: clock)
            }
            let raw = try measure(operations) { n in try insertRaw(request(n), into: floor) }
            report("round \(round)", ours: ours, floor: raw)
            oursRounds.append(ours)
            floorRounds.append(raw)
        }
        report("best", ours: oursRounds.max()!, floor: floorRounds.max()!)
        report("median", ours: median(oursRounds), floor: median(floorRounds))
    }

    static func report(_ label: String, ours: Double, floor: Double) {
        let ratio = String(format: "%.2f", ours / floor)
        print("\(label): ours \(format(ours)) ops/s, floor \(format(floor)) ops/s, ratio \(ratio) (target ≥ 0.5)")
    }

    static func median(_ values: [Double]) -> Double {
        values.sorted()[values.count / 2]
    }

    /// Operations per second of `operation` run `count` times.
    static func measure(_ count: Int, _ operation: (Int) throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        for n in 0..<count { try operation(n) }
        let elapsed = ContinuousClock.now - start
        return Double(count) / elapsed.seconds
    }

    /// The floor: the row BackgroundStore writes for `request`, in one statement and one transaction.
    static func insertRaw(_ request: TaskRequest, into pool: DatabasePool) throws {
        try pool.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO pending_requests (
                        bundle_id, identifier, kind, earliest_begin_unix_s, requires_network,
                        requires_power, title, subtitle, strategy, requires_gpu, submitted_unix_s)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            )
            .execute(arguments: [
                app.bundleIdentifier, request.identifier, request.kind.rawValue,
                request.earliestBegin.map { clock.unixSeconds(of: $0) }, request.requiresNetworkConnectivity,
                request.requiresExternalPower, request.title, request.subtitle, "queue", request.requiresGPU,
                clock.unixSeconds(of: request.submittedAt),
            ])
        }
    }

    static func format(_ value: Double) -> String {
        String(format: "%.0f", value)
    }
}
