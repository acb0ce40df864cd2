// Writes the seed corpus of the stored-rows fuzz target (FuzzStoredRows.swift): an app's rows with
// ordinary and boundary times, transfer rows with and without numbers past their types, and resume
// data, in the input's own encoding (FuzzInput's choices). Compiled with the same sources by
// scripts/fuzz-stored-rows.sh --corpus.

import Foundation

func real(_ value: Double) -> UInt8 { UInt8(interestingReals.firstIndex(of: value)!) }

@main
enum MakeCorpus {
    static func appRows(available: Double, updated: Double, earliest: Double) -> [UInt8] {
        // installed; manifest; state (budget, times, switches); one request; one launch; two ticks.
        [0, 1, 1, 0, 1, real(available), real(updated), real(1.7e9), real(86_400), real(1.7e9), 0, 1]
            + [1, 0, 1, real(earliest), real(1.7e9), 0, 0, 0, 0, 0] + [1, real(1.7e9)]
            + [2, 0, 0, 0x0e, 0x10, 0, 0, 0x03, 0x84]
    }

    static func main() throws {
        let directory = CommandLine.arguments[1]
        let origin = UInt8(origins.firstIndex(of: 1.7e9)!)
        let seeds: [[UInt8]] = [
            [origin] + appRows(available: 86_400, updated: 1.7e9, earliest: 1.8e9),
            [origin] + appRows(available: 9.2e18, updated: -1e300, earliest: 9.3e18),
            [0] + appRows(available: -1e300, updated: 1e19, earliest: 4.6e18),
            // A transfer row as written; one with its counts and begin date past their types.
            [origin, 1, 1, 0, 0, 0],
            [origin, 1, 1, 0, 0, 3, 1, 1, 6, 1, 2, 10, 1, 3, 16],
            // Resume data as written; one with a partial file outside Transfers/.
            [origin, 2, 0, 0],
            [origin, 2, 0, 1, 0, 4, 9],
        ]
        for (number, seed) in seeds.enumerated() {
            FileManager.default.createFile(atPath: "\(directory)/seed-\(number)", contents: Data(seed))
        }
    }
}
