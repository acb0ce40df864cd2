import BackgroundSimulator
import BackgroundTestSupport
import Foundation
import Testing

/// The transfers lane: drawn for an app that had transfers (never for one that had none), one
/// sub-row per overlapping transfer, waits hatched, runs solid, a cap for the outcome, every
/// segment's detail kept; in the legend; in headless Chromium without script or layout errors.
@Suite("Timeline renderer: the transfers lane")
struct TimelineTransferLaneTests {
    static let document = TimelineDocument(
        title: "transfers",
        duration: 3600,
        apps: [
            {
                var app = AppTimeline(
                    id: "com.example.podcasts",
                    states: [.init(start: 0, end: 3600, label: "suspended")]
                )
                app.transfers = [
                    TimelineTransfer(
                        name: "downloads#1",
                        segments: [
                            .init(start: 0, end: 600, phase: .waiting, detail: "needs external power"),
                            .init(start: 600, end: 900, phase: .running, detail: "5000000 of 5000000 bytes"),
                        ],
                        outcome: .completed,
                        detail: "download of 5000000 bytes: HTTP 200"
                    ),
                    TimelineTransfer(
                        name: "downloads#2 <b onmouseover=\"x\">",
                        segments: [.init(start: 300, end: 1200, phase: .running, detail: "from the start")],
                        outcome: .failed,
                        detail: "error -999 (cancelled)"
                    ),
                    TimelineTransfer(
                        name: "downloads#3",
                        segments: [.init(start: 2000, end: 3600, phase: .running)]
                    ),
                ]
                return app
            }(),
            AppTimeline(id: "com.example.quiet"),
        ]
    )

    @Test("A lane for the app with transfers only; overlapping ones stack; waits, runs and outcomes have their classes")
    func lane() async {
        let html = TimelineRenderer.html(for: Self.document)
        #expect(
            html.contains(
                "data-lane=\"app-0-transfers\" role=\"img\" aria-label=\"com.example.podcasts: background transfers, 3 transfers, 2 rows\""
            )
        )
        #expect(!html.contains("data-lane=\"app-1-transfers\""))
        #expect(html.contains("data-expected-lanes=\"\(4 + 5 * 2 + 1)\""))
        // Each count includes the legend's swatch.
        #expect(html.ranges(of: "class=\"xfer xfer-waiting\"").count == 1 + 1)
        #expect(html.ranges(of: "class=\"xfer xfer-running\"").count == 3 + 1)
        #expect(html.ranges(of: "class=\"xfer xfer-completed\"").count == 1 + 1)
        #expect(html.ranges(of: "class=\"xfer xfer-failed\"").count == 1 + 1)
        #expect(html.contains("needs external power"))
        #expect(html.contains("error -999 (cancelled)"))
        #expect(!html.contains("<b onmouseover"), "names are escaped")
        for key in ["waiting", "running", "completed", "failed"] {
            #expect(html.contains(".xfer-\(key){fill:"), "no colour for \(key)")
        }
        let legend = String(html[html.range(of: "<section class=\"tl-legend\"")!.lowerBound...]).prefix { $0 != "\n" }
        #expect(legend.contains("Transfers"))
        #expect(legend.contains("</svg>waiting</span>") && legend.contains("</svg>failed</span>"))
    }

    @Test("The document round-trips through JSON with its transfers")
    func roundTrip() throws {
        let decoded = try JSONDecoder().decode(TimelineDocument.self, from: JSONEncoder().encode(Self.document))
        #expect(decoded == Self.document)
        #expect(TimelineRenderer.html(for: decoded) == TimelineRenderer.html(for: Self.document))
    }

    @Test(
        "The transfers example's timeline lays out in Chromium: every lane sized, every detail kept, no script errors",
        .enabled(
            if: Chromium.binary != nil || OptionalTools.required,
            "skipped: no Chromium binary found; apt-get install chromium-headless-shell (or set CHROMIUM_PATH)"
        ),
        .timeLimit(.minutes(10))  // a hang guard: Chromium at load 10–20 took over 2 minutes
    )
    @MainActor
    func exampleInChromium() async throws {
        let chromium = try #require(Chromium.binary)
        let run = try ScenarioRun(Scenario.load(contentsOf: TransferScenarioTests.example))
        let document = TimelineDocument(simulator: run.simulator, title: run.scenario.name)
        let directory = try Chromium.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("transfers.html")
        try TimelineRenderer.html(for: document).write(to: page, atomically: true, encoding: .utf8)
        let dom = try await Chromium.run(
            chromium,
            ["--virtual-time-budget=2000", "--dump-dom", page.absoluteString],
            in: directory
        )
        #expect(dom.status == 0, "chromium --dump-dom failed: \(dom.errors)")
        let root = try #require(Chromium.rootAttributes(in: dom.output), "no <main id=\"timeline\"> in the DOM")
        #expect(root["data-js-errors"] == "0", "script errors: \(root["data-js-error-messages"] ?? "none recorded")")
        #expect(root["data-layout-ok"] == "true", "layout problems: \(root["data-layout-problems"] ?? "none recorded")")
        let transferLanes = document.apps.count { !$0.transfers.isEmpty }
        #expect(transferLanes == 2)
        #expect(root["data-lane-count"] == String(4 + 5 * document.apps.count + transferLanes))
        #expect(root["data-detail-count"] != nil && root["data-detail-count"] == root["data-expected-details"])
    }
}
