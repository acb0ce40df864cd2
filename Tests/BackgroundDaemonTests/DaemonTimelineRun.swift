import BackgroundTestSupport
import Foundation

/// Runs `bgctl daemon timeline --since 400d -o <html> --state-dir <state> --json` (with `HOME` at
/// `state`), awaited without holding a thread of the cooperative pool (`runBgctl`): the result
/// and the `--json` summary it printed (nil when that is not a JSON object).
func daemonTimeline(state: String, html: String) async throws -> (result: ChildProcessResult, summary: [String: Any]?) {
    let result = try await runBgctl(
        ["daemon", "timeline", "--since", "400d", "-o", html, "--state-dir", state, "--json"],
        environment: ["HOME": state]
    )
    let summary = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
    return (result, summary)
}
