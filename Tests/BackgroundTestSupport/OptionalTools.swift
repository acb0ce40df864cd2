import Foundation

/// Tests that need a tool outside Swift (headless Chromium, Python's `jsonschema`) are skipped
/// on a machine without it, with a message saying how to install it; `swift test` lists them
/// as skipped. With `BACKGROUND_REQUIRE_ALL_TESTS=1` (CI sets it) they run anyway, so a
/// missing tool fails the run instead of silently shrinking it.
public enum OptionalTools {
    /// Whether every optional tool is required (`BACKGROUND_REQUIRE_ALL_TESTS=1`).
    public static let required = ProcessInfo.processInfo.environment["BACKGROUND_REQUIRE_ALL_TESTS"] == "1"
}
