import Testing

@testable import bgctl

@Suite("bgctl demo")
@MainActor
struct DemoTests {
    @Test("The demo tells both stories: expiration then suspension, and a leak ended by 0x8badf00d")
    func demoTimeline() {
        let output = UploadOnSaveDemo.run()
        let expected = [
            "T+3.000s    system: inactive → background",
            "T+3.000s    app: in the background, backgroundTimeRemaining = 30.000 s",
            "T+28.000s   system: calling the expiration handler of #1",
            "T+28.000s   app: endBackgroundTask(1)",
            "T+28.000s   system: background → suspended",
            "T+33.000s   system: background → terminated (watchdog 0x8badf00d)",
            "Termination Reason:  Namespace FRONTBOARD, Code 0x8badf00d",
            "#1 (0x1) \"UploadPendingData\" begun at T+1.000s",
            "bgctl/UploadOnSaveDemo.swift:",
        ]
        for line in expected {
            #expect(output.contains(line), "missing: \(line)")
        }
    }

    @Test("The demo is deterministic: two runs print the same timeline")
    func demoIsDeterministic() {
        #expect(UploadOnSaveDemo.run() == UploadOnSaveDemo.run())
    }
}
