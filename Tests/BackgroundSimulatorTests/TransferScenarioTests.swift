import BackgroundSimulator
import Foundation
import Testing

/// Transfers in scenarios, the fuzzer and the timeline: `examples/background-downloads.json`
/// runs as its story says, generated scenarios carry transfers and network changes with the
/// transfer invariants checked, and the timeline draws a transfers lane.
@MainActor
@Suite("Transfers in scenarios, the fuzzer and the timeline")
struct TransferScenarioTests {
    static let example = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "examples/background-downloads.json")

    static func activities(_ simulator: Simulator) -> [(at: Instant, activity: TransferActivity)] {
        simulator.events.compactMap { event in
            if case .transfer(let activity) = event.kind { return (event.at, activity) }
            return nil
        }
    }

    static func instant(_ at: String, in run: ScenarioRun) throws -> Instant {
        Instant(offset: try Scenario.Step.At(parsing: at).offset(from: run.scenario.start))
    }

    @Test("examples/background-downloads.json: a drop resumed, a resume for events, a discretionary wait, force quit")
    func example() throws {
        let run = try ScenarioRun(Scenario.load(contentsOf: Self.example))
        #expect(run.passed, "failures \(run.failures), violations \(run.simulator.violations)")
        let simulator = run.simulator
        let all = Self.activities(simulator)
        let lines = all.map(\.activity.description)
        let episode = "com.example.podcasts.transfers#1"
        let catalogue = "com.example.podcasts.transfers.discretionary#1"
        #expect(
            lines.contains("transfer \(episode) interrupted: connection dropped at byte 20000000; retry in 1.000 s")
        )
        #expect(lines.contains("transfer \(episode) resumes at byte 20000000"))
        // 60 MB at 250 kB/s (240 s), 1 s of backoff and two latencies of 120 ms.
        let done = try #require(all.first { $0.activity.description.hasPrefix("transfer \(episode) completed") })
        #expect(done.at == (try Self.instant("07:30", in: run)) + .milliseconds(241_240))
        let relaunches = all.filter { if case .relaunched = $0.activity { true } else { false } }
        #expect(relaunches.count == 2, "one resume for the episode, one launch for the catalogue")
        #expect(relaunches.first?.at == done.at, "resumed as soon as it completed: no delay set yet")
        let handled = all.filter { if case .eventsHandled = $0.activity { true } else { false } }
        #expect(handled.map(\.at) == relaunches.map(\.at), "each completion handler called at once")

        let waits = lines.first { $0.hasPrefix("transfer \(catalogue) waits") }
        #expect(waits?.contains("needs external power") == true, "\(waits ?? "no wait")")
        let started = try #require(all.first { $0.activity.description == "transfer \(catalogue) starts" })
        #expect(started.at == (try Self.instant("22:00", in: run)))
        let finished = try #require(all.first { $0.activity.description.hasPrefix("transfer \(catalogue) completed") })
        #expect(finished.at == started.at + .milliseconds(40_020), "200 MB at 5 MB/s after 20 ms")
        #expect(relaunches.last?.at == finished.at)

        #expect(
            lines.contains(
                "transfer com.example.photos.transfers#1 failed: -999 (cancelled: the user force-quit the app)"
            )
        )
        #expect(lines.filter { $0.contains("com.example.photos.transfers#1 interrupted: HTTP 503") }.count == 2)
        #expect(!relaunches.contains { $0.activity.app == "com.example.photos" }, "a force-quit app is not relaunched")

        let timeline = TimelineDocument(simulator: simulator, title: "downloads")
        let podcasts = try #require(timeline.apps.first { $0.id == "com.example.podcasts" })
        #expect(podcasts.transfers.map(\.name) == [episode, catalogue])
        #expect(podcasts.transfers.map(\.outcome) == [.completed, .completed])
        #expect(podcasts.transfers.last?.segments.map(\.phase) == [.waiting, .running])
        #expect(podcasts.transfers.last?.segments.first?.detail.contains("needs external power") == true)
        #expect(timeline.apps.first { $0.id == "com.example.photos" }?.transfers.first?.outcome == .failed)
        #expect(timeline.apps.first { $0.id == "com.example.camera" }?.transfers.isEmpty == true)
        let html = TimelineRenderer.html(for: timeline)
        #expect(html.contains("data-lane=\"app-0-transfers\""))
        #expect(html.contains("data-lane=\"app-1-transfers\""))
        #expect(!html.contains("data-lane=\"app-2-transfers\""), "no lane for an app without transfers")
        #expect(html.contains("class=\"xfer xfer-waiting\""))
        #expect(html.contains("class=\"xfer xfer-failed\""))
    }

    @Test(
        "The fuzzer's scenarios start transfers and change the network; the transfer invariants hold; same seed, same run"
    )
    func fuzzedTransfers() throws {
        let generator = ScenarioGenerator()
        var withTransfers = 0
        var bandwidthChanges = 0
        for seed in UInt64(1)...40 {
            let scenario = generator.scenario(seed: seed)
            let transfers = scenario.apps.flatMap { $0.onLaunch + $0.onEnterBackground + $0.onBecomeActive }
                .filter { if case .download = $0 { true } else if case .upload = $0 { true } else { false } }
            if !transfers.isEmpty { withTransfers += 1 }
            bandwidthChanges += scenario.timeline.count {
                if case .device(.change(let change)) = $0.event { change.bandwidth != nil } else { false }
            }
            let run = try ScenarioRun(scenario)
            #expect(run.simulator.violations.isEmpty, "seed \(seed): \(run.simulator.violations)")
        }
        #expect(withTransfers >= 10, "transfers in \(withTransfers) of 40 seeds")
        #expect(bandwidthChanges >= 10)
        let seed: UInt64 = 3
        let first = try ScenarioRun(generator.scenario(seed: seed)).simulator.logText(verbose: true)
        #expect(try ScenarioRun(generator.scenario(seed: seed)).simulator.logText(verbose: true) == first)
    }

    @Test(
        "Offline mid-download: it pauses, nothing completes offline, it resumes where it was when the network is back"
    )
    func offlineAndBack() throws {
        let scenario = try Scenario.decode(
            from: Data(
                #"""
                {"formatVersion": 1, "name": "offline", "duration": "1h",
                 "device": {"bandwidth": 100000},
                 "apps": [{"id": "t", "onLaunch": [{"download": {"url": "https://e.com/a", "bytes": 1000000}}]}],
                 "timeline": [{"at": "+1m", "user": "open", "app": "t"},
                              {"at": "+1m5s", "device": {"network": "none"}},
                              {"at": "+30m", "device": {"network": "wifi"}}]}
                """#.utf8
            )
        )
        var offlineCompletions = 0
        let run = try ScenarioRun(scenario) { simulator in
            simulator.addInvariant("no completion offline") { simulator in
                let completedNow =
                    simulator.events.last.map { event in
                        if case .transfer(.completed) = event.kind {
                            return event.at == simulator.now
                        } else {
                            return false
                        }
                    } ?? false
                if completedNow && simulator.deviceNow.network == .none { offlineCompletions += 1 }
                return nil
            }
        }
        #expect(offlineCompletions == 0)
        #expect(run.simulator.violations.isEmpty)
        let completed = Self.activities(run.simulator).first {
            if case .completed = $0.activity { true } else { false }
        }
        // 4.95 s at 100 kB/s before the network went (after 50 ms of latency): 495 000 bytes;
        // the other 505 000 after it came back at 30m, after the latency again.
        let expected = Instant(offset: .seconds(30 * 60)) + .milliseconds(5_100)
        #expect(completed?.at == expected)
    }

    @Test(
        "The battery runs out mid-transfer: nothing moves while the device is off; plugged in, it goes on (fuzz seed 200056)"
    )
    func deviceOff() throws {
        let scenario = try Scenario.decode(
            from: Data(
                #"""
                {"formatVersion": 1, "name": "battery empty", "duration": "2d",
                 "device": {"batteryLevel": 0.05, "bandwidth": 1000},
                 "apps": [{"id": "t", "onLaunch": [{"upload": {"url": "https://e.com/a", "bytes": 40000000}}]}],
                 "timeline": [{"at": "+1m", "user": "open", "app": "t"},
                              {"at": "+20h", "device": {"network": "none"}},
                              {"at": "+30h", "device": "plugIn"},
                              {"at": "+31h", "device": {"network": "wifi", "bandwidth": 10000000}}]}
                """#.utf8
            )
        )
        let run = try ScenarioRun(scenario)
        #expect(run.simulator.violations.isEmpty, "\(run.simulator.violations)")
        let events = run.simulator.events
        let off = try #require(events.first { if case .device(.shutdown, _) = $0.kind { true } else { false } })
        let on = try #require(events.first { if case .device(.powerOn, _) = $0.kind { true } else { false } })
        let completed = try #require(
            Self.activities(run.simulator).first { if case .completed = $0.activity { true } else { false } }
        )
        #expect(completed.at > on.at, "completed after the device came back, not while it was off (\(off.at))")
        #expect(completed.at >= Instant(offset: .seconds(31 * 3600)), "on Wi-Fi, after the network came back")
    }
}
