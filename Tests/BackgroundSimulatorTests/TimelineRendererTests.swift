import Foundation
import Testing

@testable import BackgroundSimulator

@Suite("Timeline renderer: the page's structure")
struct TimelineRendererTests {
    typealias Samples = TimelineSampleDocuments

    @Test("Hostile names are escaped in text, attributes and the page title; no markup of theirs survives")
    func hostileNamesAreEscaped() {
        var document = Samples.night
        document.title = Samples.hostileAssertion
        let html = TimelineRenderer.html(for: document)
        #expect(html.ranges(of: "<script>").count == 2, "only the page's own two scripts")
        for raw in ["<img", "<svg onload", "<b>", "alert(\"pwn\")", "'quoted'", "\u{0}", "\u{7}"] {
            #expect(!html.contains(raw), "\(raw.debugDescription) appears unescaped")
        }
        #expect(html.contains("<title>&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</title>"))
        #expect(html.contains("com.evil.&lt;script&gt;alert(&quot;pwn&quot;)&lt;/script&gt;&amp;&#39;quoted&#39;"))
        #expect(html.contains("&lt;b&gt;force quit&lt;/b&gt;"))
        #expect(html.contains("\u{FFFD}\u{FFFD}\u{FFFD}"), "control characters and noncharacters are replaced")
    }

    @Test("State labels are never cut mid-word: the word, its short form, or nothing")
    @MainActor
    func stateLabelsStayWhole() throws {
        #expect(TimelineMarkup.wholeLabel("suspended", toFit: 60) == "suspended")
        #expect(TimelineMarkup.wholeLabel("suspended", toFit: 30) == "susp")
        #expect(TimelineMarkup.wholeLabel("suspended", toFit: 18) == nil)
        #expect(TimelineMarkup.wholeLabel("background", toFit: 20) == "bg")
        let html = TimelineRenderer.html(for: Samples.large(apps: 3, days: 2))
        let cutState = try Regex(#">(suspe|backg|inacti|termi)[a-z]*\u{2026}</text>"#)
        #expect(html.firstMatch(of: cutState) == nil)
        #expect(!html.contains("suspe\u{2026}"))
        // A real day: sixteen short suspended spans, each labelled "susp" (they were "suspe…").
        let scenario = try Scenario.load(
            contentsOf: CommandLineTests.root.appending(path: "examples/news-refresh-day.json")
        )
        let run = try ScenarioRun(scenario)
        let day = TimelineRenderer.html(for: TimelineDocument(simulator: run.simulator, title: "day", subtitle: ""))
        #expect(day.firstMatch(of: cutState) == nil)
        #expect(day.contains(">susp</text>"))
    }

    @Test("Long names are cut with an ellipsis in labels and kept whole in details")
    func longNamesAreTruncatedInLabelsOnly() {
        let html = TimelineRenderer.html(for: Samples.night)
        #expect(html.contains("data-detail=\"\(Samples.longName) \u{2014} ended"))
        #expect(html.contains(">Very long background task name Very long background task name Very l\u{2026}</text>"))
        #expect(!html.contains(">\(Samples.longName)</text>"))
    }

    @Test("Every app has its five lanes, the device its three, and the axis one; each lane is an accessible image")
    func lanesArePresent() {
        let html = TimelineRenderer.html(for: Samples.night)
        let apps = Samples.night.apps.count
        for index in 0..<apps {
            for lane in ["state", "assertions", "tasks", "budget", "events"] {
                #expect(html.contains("data-lane=\"app-\(index)-\(lane)\" role=\"img\" aria-label=\""))
            }
        }
        for lane in ["axis", "device-battery", "device-network", "device-events"] {
            #expect(html.contains("data-lane=\"\(lane)\""))
        }
        #expect(html.ranges(of: "data-lane=\"").count == 4 + 5 * apps)
        #expect(html.contains("data-expected-lanes=\"\(4 + 5 * apps)\""))
        #expect(html.contains("aria-label=\"com.example.mail: background task assertions, 2 bars\""))
    }

    @Test("The legend explains every state, outcome, network, series and marker colour")
    func legendIsComplete() {
        let html = TimelineRenderer.html(for: Samples.night)
        let legend = String(html[html.range(of: "<section class=\"tl-legend\"")!.lowerBound...])
            .prefix { $0 != "\n" }
        let keys =
            TimelineCanvas.knownStates + TimelineBar.Outcome.allCases.map(\.rawValue)
            + [
                "Wi-Fi", "cellular", "charging", "Low Power Mode", "time remaining", "limit", "info", "warning",
                "fault",
            ]
        for key in keys {
            #expect(legend.contains("</svg>\(key)</span>"), "legend lacks \(key)")
        }
        for outcome in TimelineBar.Outcome.allCases {
            #expect(html.contains(".o-\(outcome.rawValue){fill:"), "no colour for \(outcome)")
        }
    }

    @Test("The same document gives the same bytes, also after a round trip through JSON")
    func outputIsDeterministic() throws {
        let document = Samples.night
        let first = TimelineRenderer.html(for: document)
        #expect(TimelineRenderer.html(for: document) == first)
        let decoded = try JSONDecoder().decode(TimelineDocument.self, from: JSONEncoder().encode(document))
        #expect(decoded == document)
        #expect(TimelineRenderer.html(for: decoded) == first)
    }

    @Test("An empty document renders a complete page: axis, device lanes, 60 s of time")
    func emptyDocumentRenders() {
        let html = TimelineRenderer.html(for: TimelineDocument(title: "", duration: 0))
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(html.hasSuffix("</body>\n</html>\n"))
        #expect(html.contains("data-expected-lanes=\"4\""))
        #expect(html.contains("data-duration=\"60\""))
        #expect(html.contains("class=\"tick\""))
    }

    @Test("Bars shorter than a pixel are drawn at the minimum width, inside the plot")
    func shortBarsHaveMinimumWidth() throws {
        let month = 30 * 86_400.0
        let document = TimelineDocument(
            title: "short bars",
            duration: month,
            apps: [
                AppTimeline(
                    id: "app",
                    assertions: [
                        TimelineBar(name: "one second", start: 3600, end: 3601, outcome: .ended),
                        TimelineBar(name: "zero", start: month, end: month, outcome: .leaked),
                    ]
                )
            ]
        )
        let html = TimelineRenderer.html(for: document)
        let width = try #require(attribute("width", ofRectWithDetail: "one second", in: html))
        #expect(width == "1")
        let x = try #require(attribute("x", ofRectWithDetail: "zero", in: html).flatMap(Double.init))
        let plotWidth = (month * 24 / 3600).rounded(.up)
        #expect(x == plotWidth - 1, "a bar at the very end is drawn inside the plot")
    }

    @Test("Overlapping bars stack in sub-rows with first fit; touching bars share a row; rows are capped")
    func barsStack() {
        let scale = TimelineScale(duration: 100, fitWidth: 1000, options: .init())
        let bars = [
            TimelineBar(name: "a", start: 0, end: 50, outcome: .ended),
            TimelineBar(name: "b", start: 10, end: 20, outcome: .ended),
            TimelineBar(name: "c", start: 20, end: 30, outcome: .ended),
            TimelineBar(name: "d", start: 50, end: 60, outcome: .ended),
            TimelineBar(name: "outside", start: 200, end: 300, outcome: .ended),
        ]
        let (rows, placed) = TimelineCanvas.stack(bars, scale: scale, maximumRows: 6)
        #expect(rows == 2)
        #expect(placed.map(\.index) == [0, 1, 2, 3])
        #expect(placed.map(\.row) == [0, 1, 1, 0])
        let capped = TimelineCanvas.stack(Array(repeating: bars[0], count: 10), scale: scale, maximumRows: 3)
        #expect(capped.rows == 3)
    }

    @Test("Ticks adapt to the run's length; labels are wall-clock times in the document's time zone, days at midnight")
    func axisAdapts() {
        // 2024-03-11 05:00 UTC is 06:00 in UTC+01:00.
        let hour = TimelineDocument(title: "", duration: 3600, originUnixSeconds: 1_710_133_200, utcOffsetSeconds: 3600)
        let html = TimelineRenderer.html(for: hour)
        #expect(html.contains(">06:00</text>") && html.contains(">06:05</text>"))
        #expect(html.contains("<span class=\"tl-corner-day\">day 1 \u{B7} Mon 11 Mar</span>"))
        #expect(html.contains("from Mon 11 Mar 2024 06:00:00 UTC+01:00"))
        var days = hour
        days.duration = 3 * 86_400
        let long = TimelineRenderer.html(for: days)
        #expect(long.contains(">day 2 \u{B7} Tue 12 Mar</text>") && long.contains(">day 3 \u{B7} Wed 13 Mar</text>"))
        #expect(long.contains(">09:00</text>") && !long.contains(">06:05</text>"))
        #expect(TimelineAxis(scale: .init(duration: 60, fitWidth: 1140, options: .init()), clock: clock()).step == 5)
        let month = TimelineScale(duration: 30 * 86_400, fitWidth: 1140, options: .init())
        #expect(TimelineAxis(scale: month, clock: clock()).step == 3 * 3600)
    }

    @Test("Spans, bars and markers outside the run are left out and counted; touching equal spans merge")
    func outsideElementsAreLeftOut() {
        let document = TimelineDocument(
            title: "",
            duration: 100,
            deviceMarkers: [TimelineMarker(time: 150, label: "later"), TimelineMarker(time: .nan, label: "never")],
            apps: [
                AppTimeline(
                    id: "app",
                    states: [
                        TimelineSpan(start: 0, end: 40, label: "suspended", detail: "first"),
                        TimelineSpan(start: 40, end: 90, label: "suspended", detail: "second"),
                        TimelineSpan(start: 120, end: 130, label: "active"),
                    ]
                )
            ]
        )
        let html = TimelineRenderer.html(for: document)
        #expect(!html.contains("later") && !html.contains("never"))
        #expect(html.contains("3 elements outside the run are left out."))
        #expect(html.ranges(of: "data-detail=\"suspended&#10;").count == 1)
        #expect(html.contains("suspended&#10;00:00:00 \u{2192} 00:01:30 (1 min 30 s) \u{B7} t+0s&#10;first&#10;second"))
    }

    @Test("Numbers have a fixed precision and never depend on the locale")
    func numbersAreFixed() {
        #expect(TimelineMarkup.number(12.34) == "12.3")
        #expect(TimelineMarkup.number(12.96) == "13")
        #expect(TimelineMarkup.number(-0.04) == "0")
        #expect(TimelineMarkup.number(.nan) == "0")
        #expect(TimelineMarkup.fixed(0.006_666_666_7, places: 9) == "0.006666667")
        #expect(TimelineMarkup.fixed(1_710_194_400.5, places: 3) == "1710194400.5")
        #expect(TimelineClock.duration(4 * 60 + 5) == "4 min 05 s" && TimelineClock.duration(900) == "15 min")
        #expect(TimelineClock.elapsed(6 * 3600 + 12) == "t+6h 00m 12s")
    }

    @Test("A month of 20 apps (50 400 bars) renders, in one pass")
    func largeDocumentRenders() {
        let document = Samples.large()
        #expect(document.apps.reduce(0) { $0 + $1.assertions.count + $1.tasks.count } == 50_400)
        let start = ContinuousClock.now
        let html = TimelineRenderer.html(for: document)
        let elapsed = ContinuousClock.now - start
        print("large timeline: \(html.utf8.count) bytes in \(elapsed)")
        #expect(html.hasSuffix("</html>\n"))
        #expect(html.contains("data-expected-lanes=\"104\""))
    }

    private func clock() -> TimelineClock {
        TimelineClock(originUnixSeconds: 0, utcOffsetSeconds: 0, duration: 1)
    }

    /// The value of `name` on the first `<rect>` whose detail starts with `detail`.
    private func attribute(_ name: String, ofRectWithDetail detail: String, in html: String) -> String? {
        guard let end = html.range(of: "data-detail=\"\(detail)") else { return nil }
        guard let start = html[..<end.lowerBound].range(of: "<rect ", options: .backwards) else { return nil }
        let tag = html[start.lowerBound..<end.lowerBound]
        guard let value = tag.range(of: " \(name)=\"") else { return nil }
        return String(tag[value.upperBound...].prefix { $0 != "\"" })
    }
}
