import BackgroundCore
import BackgroundStore
import Foundation
import Testing

/// T+0 is 2026-01-01 00:00 UTC.
let clock = WallClock(unixSecondsAtOrigin: 1_767_225_600)

let news: AppID = "com.example.news"
let notes: AppID = "com.example.notes"

/// A request with every field set away from its default.
func fullRequest(_ identifier: String, kind: TaskKind, submittedAt: Instant) -> TaskRequest {
    TaskRequest(
        identifier: identifier,
        kind: kind,
        earliestBegin: submittedAt + .seconds(900),
        requiresNetworkConnectivity: true,
        requiresExternalPower: true,
        title: "Exporting",
        subtitle: "3 of 7 files",
        strategy: .fail,
        requiresGPU: true,
        submittedAt: submittedAt
    )
}

/// An app state with every optional field set, times on whole milliseconds.
func fullState(forceQuit: Bool = true) -> PersistedAppState {
    PersistedAppState(
        forceQuit: forceQuit,
        refreshSwitch: false,
        runtimeBudget: RuntimeBudget(available: .milliseconds(12_345), updatedAt: .milliseconds(61_001)),
        lastBackgroundRunAt: .milliseconds(60_500),
        fetchInterval: .seconds(3_600),
        lastFetchAt: .milliseconds(59_999)
    )
}

/// A directory of its own under the system's temporary directory; `remove()` deletes it.
struct ScratchDirectory {
    let path: String

    init() throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("BackgroundStoreTests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    func file(_ name: String) -> String { path + "/" + name }

    /// The names of the files in the directory, sorted.
    func listing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with a fresh scratch directory and removes it afterwards.
func withScratchDirectory<T>(_ body: (ScratchDirectory) throws -> T) throws -> T {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    return try body(directory)
}

/// The `StoreError` that `body` throws, or `nil` (recorded as a test failure) if it throws
/// nothing or another error.
func storeError<T>(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) -> StoreError? {
    do {
        _ = try body()
        Issue.record("expected a StoreError, got none", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        return error
    } catch {
        Issue.record("expected a StoreError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
