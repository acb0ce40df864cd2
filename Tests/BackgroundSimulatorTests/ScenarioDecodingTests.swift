import BackgroundSimulator
import Foundation
import Testing

@Suite("Scenario decoding")
struct ScenarioDecodingTests {
    private typealias Action = Scenario.Action
    private let news = "com.example.news"

    private func decode(_ json: String) throws -> Scenario {
        try Scenario.decode(from: Data(json.utf8))
    }

    @Test("The full example decodes to the values it spells out")
    func fullExample() throws {
        let scenario = try decode(ScenarioFixtures.newsDay)
        #expect(scenario.name == "News refresh over a day")
        #expect(scenario.seed == 7)
        #expect(scenario.start.description == "2026-11-21T06:00:00Z")
        #expect(scenario.duration == .seconds(86_400))
        #expect(scenario.policy == .iOS)
        #expect(scenario.device == Scenario.Device(batteryLevel: 0.9))
        #expect(scenario.apps.map(\.id) == [news, "com.example.uploader"])

        let app = try #require(scenario.app(withID: news))
        #expect(app.manifest?["UIBackgroundModes"] == ["fetch", "processing"])
        #expect(app.onLaunch == [.register("com.example.news.refresh"), .register("com.example.news.db-cleanup")])
        #expect(
            app.onEnterBackground == [
                .submit(.init(identifier: "com.example.news.refresh", kind: .refresh, earliestBegin: .seconds(900))),
                .submit(
                    .init(identifier: "com.example.news.db-cleanup", kind: .processing(requiresExternalPower: true))
                ),
                .beginBackgroundTask(.init(name: "Save drafts", end: .after(.seconds(3)))),
            ]
        )
        // Tasks are sorted by identifier.
        #expect(app.tasks.map(\.identifier) == ["com.example.news.db-cleanup", "com.example.news.refresh"])
        let refresh = app.behaviour(forTask: "com.example.news.refresh")
        #expect(refresh.work == .seconds(8))
        let resubmit = Action.submit(
            .init(identifier: "com.example.news.refresh", kind: .refresh, earliestBegin: .seconds(3600))
        )
        #expect(refresh.completion == .complete(success: true, then: [resubmit]))
        #expect(app.behaviour(forTask: "com.example.news.unlisted") == Scenario.TaskBehaviour())

        let uploader = scenario.apps[1]
        #expect(
            uploader.onEnterBackground == [
                .beginBackgroundTask(.init(name: "Upload", end: .never, onExpiration: .ignore))
            ]
        )

        let open = scenario.timeline[1]
        #expect(open.event == .user(.open(app: news)))
        #expect(open.jitter == .seconds(600))
        #expect(open.note == "morning read")
        #expect(scenario.occurrences(of: open) == [.seconds(5400)])
        #expect(scenario.timeline.last?.event == .device(.change(.init(idle: true))))
        #expect(scenario.occurrences(of: scenario.timeline.last!) == [.seconds(68_400)])

        let expect = try #require(scenario.expectations)
        #expect(expect.violations == .equal(0))
        #expect(
            expect.terminations == [
                .init(app: "com.example.uploader", code: .exception(0x8bad_f00d), names: ["Upload"])
            ]
        )
        #expect(expect.tasks[0].count == .atLeast(3))
        #expect(expect.tasks[1].outcome == .any)
        #expect(expect.finalStates == [news: .suspended, "com.example.uploader": .terminated])
        #expect(expect.lowPowerModeTurnedOn == true)
        #expect(expect.minimumBatteryLevel == .atMost(0.2))
    }

    @Test("A minimal scenario gets the documented defaults")
    func defaults() throws {
        let scenario = try decode(ScenarioFixtures.minimal)
        #expect(scenario == Scenario(name: "Nothing happens", duration: .seconds(3600)))
        #expect(scenario.seed == 0)
        #expect(scenario.start.description == "2026-01-01T00:00:00Z")
        #expect(scenario.policy == .iOS)
        let device = scenario.device
        #expect(device.batteryLevel == 0.8 && device.power == .battery && device.network == .wifi)
        #expect(
            !device.isMetered && !device.lowPowerMode && device.locked && !device.idle && device.backgroundAppRefresh
        )
        #expect(scenario.expectations == nil)
    }

    @Test("Cellular is metered unless marked otherwise")
    func metered() throws {
        let cellular = try decode(
            #"{"formatVersion": 1, "name": "x", "duration": "1h", "device": {"network": "cellular"}}"#
        )
        #expect(cellular.device.isMetered)
        let unmetered = try decode(
            #"{"formatVersion": 1, "name": "x", "duration": "1h", "device": {"network": "cellular", "metered": false}}"#
        )
        #expect(!unmetered.device.isMetered)
    }

    @Test(
        "Every valid fixture round-trips through jsonData()",
        arguments: [ScenarioFixtures.newsDay] + ScenarioFixtures.validVariants
    )
    func roundTrip(json: String) throws {
        let scenario = try decode(json)
        let encoded = scenario.jsonData()
        #expect(try Scenario.decode(from: encoded) == scenario)
        #expect(scenario.jsonData() == encoded, "encoding is deterministic")
        #expect(try scenario.validated() == scenario)
        // JSONEncoder and JSONDecoder go through the same canonical form.
        let viaCodable = try JSONDecoder().decode(Scenario.self, from: JSONEncoder().encode(scenario))
        #expect(viaCodable == scenario)
    }

    @Test("Encoding writes canonical forms: durations as strings, sorted keys, defaults left out")
    func canonicalEncoding() throws {
        let scenario = Scenario(
            name: "Canonical",
            duration: .seconds(5400),
            policy: .server(grace: .milliseconds(30_500)),
            timeline: [
                Scenario.Step(
                    at: .clock(day: 1, time: .init(hour: 7, minute: 30)),
                    repeat: .daily,
                    event: .user(.home)
                ),
                Scenario.Step(at: .offset(.seconds(90)), event: .device(.plugIn)),
            ]
        )
        let text = String(decoding: scenario.jsonData(), as: UTF8.self)
        #expect(
            text == """
                {
                  "duration": "1h30m",
                  "formatVersion": 1,
                  "name": "Canonical",
                  "policy": {
                    "server": {
                      "grace": "30s500ms"
                    }
                  },
                  "timeline": [
                    {
                      "at": "07:30",
                      "repeat": "daily",
                      "user": "home"
                    },
                    {
                      "at": "+1m30s",
                      "device": "plugIn"
                    }
                  ]
                }

                """
        )
    }

    @Test("Durations: units largest first, each once, up to 400 days")
    func durations() throws {
        let valid: [(String, Duration)] = [
            ("250ms", .milliseconds(250)), ("90s", .seconds(90)), ("1h30m", .seconds(5400)), ("2d", .seconds(172_800)),
            ("1d2h3m4s5ms", .milliseconds(93_784_005)), ("0s", .zero), ("400d", .seconds(34_560_000)),
            ("90m", .seconds(5400)),
        ]
        for (text, duration) in valid {
            #expect(try ScenarioTime.parseDuration(text) == duration, "\(text)")
        }
        #expect(ScenarioTime.format(.seconds(5400)) == "1h30m")
        #expect(ScenarioTime.format(.milliseconds(93_784_005)) == "1d2h3m4s5ms")
        #expect(ScenarioTime.format(.zero) == "0s")
        for text in [
            "", "-5s", "90", "1.5h", "5min", "30m1h", "1h1h", "1 h", "h", "400d1ms", "99999999999999999999d", "1y",
        ] {
            #expect(throws: ScenarioError.self, "\(text)") { try ScenarioTime.parseDuration(text) }
        }
    }

    @Test("An `at` resolves in the start's UTC offset: HH:MM is day 1, day N counts from the start's date")
    func atResolution() throws {
        let start = try Scenario.Start(parsing: "2026-11-21T07:00:00+01:00")
        #expect(start.secondsSince1970 == 1_795_240_800)
        #expect(start.description == "2026-11-21T07:00:00+01:00")
        func offset(_ text: String) throws -> Duration { try Scenario.Step.At(parsing: text).offset(from: start) }
        #expect(try offset("07:30") == .seconds(1800))
        #expect(try offset("07:00") == .zero)
        #expect(try offset("06:59") == .seconds(-60))
        #expect(try offset("day 2 07:30:15") == .seconds(86_400 + 1815))
        #expect(try offset("day 1 23:59:59") == .seconds(61_199))
        #expect(try offset("+1d2h") == .seconds(93_600))
        #expect(try Scenario.Step.At(parsing: "day 1 07:30").description == "07:30")
        for text in [
            "7:30", "24:00", "07:60", "day 0 07:00", "day 02 07:00", "day 402 07:00", "day 1 7:00", "day  2 07:00", "+",
            "+-1s", "noon",
        ] {
            #expect(throws: ScenarioError.self, "\(text)") { try Scenario.Step.At(parsing: text) }
        }
    }

    @Test("Start: offsets, leap days, and the range of years")
    func start() throws {
        #expect(try Scenario.Start(parsing: "2026-01-01T00:00:00Z") == .default)
        #expect(try Scenario.Start(parsing: "2028-02-29T12:00:00-05:30").description == "2028-02-29T12:00:00-05:30")
        #expect(try Scenario.Start(parsing: "1970-01-01T00:30:00+01:00").secondsSince1970 == -1800)
        for text in [
            "2026-02-29T00:00:00Z", "2026-11-21 06:00:00Z", "2026-11-21T06:00:00", "2026-11-21T06:00:00.5Z",
            "1969-12-31T23:59:59Z", "2026-13-01T00:00:00Z", "2026-11-21T24:00:00Z", "2026-11-21T06:00:00+24:00",
            "2026-11-21t06:00:00z",
        ] {
            #expect(throws: ScenarioError.self, "\(text)") { try Scenario.Start(parsing: text) }
        }
    }

    @Test("Repeats run until the end; the expansion is bounded")
    func repeats() throws {
        let json = #"""
            {"formatVersion": 1, "name": "x", "duration": "1d", "start": "2026-11-21T06:00:00Z",
             "timeline": [{"at": "07:30", "repeat": "6h", "device": "plugIn"},
                          {"at": "+0s", "repeat": "hourly", "device": "unplug"}]}
            """#
        let scenario = try decode(json)
        #expect(scenario.occurrences(of: scenario.timeline[0]) == [5400, 27_000, 48_600, 70_200].map { .seconds($0) })
        #expect(scenario.occurrences(of: scenario.timeline[1]).count == 24)
        let tooMany = #"""
            {"formatVersion": 1, "name": "x", "duration": "400d",
             "timeline": [{"at": "+0s", "repeat": "1m", "device": "plugIn"},
                          {"at": "+0s", "repeat": "1m", "device": "plugIn"}]}
            """#
        #expect(throws: ScenarioError.self) { try decode(tooMany) }
    }

    @Test("Comparisons match counts and battery levels")
    func comparisons() {
        #expect(ScenarioComparison<Int>.equal(3).matches(3))
        #expect(!ScenarioComparison<Int>.atLeast(3).matches(2))
        #expect(ScenarioComparison<Int>.atMost(2).matches(2))
        #expect(ScenarioComparison<Int>.between(1...5).matches(5) && !ScenarioComparison<Int>.between(1...5).matches(6))
        #expect(ScenarioComparison<Double>.atLeast(0.1).matches(0.15))
        #expect(ScenarioComparison<Int>.between(1...5).description == "1...5")
    }

    @Test("Comparison strings accept spaces or none")
    func comparisonSyntax() throws {
        let forms: [(String, ScenarioComparison<Int>)] = [
            (#"">=3""#, .atLeast(3)), (#""<= 2""#, .atMost(2)), (#""== 4""#, .equal(4)), (#""7""#, .equal(7)),
            (#""1 ... 5""#, .between(1...5)), ("0", .equal(0)),
        ]
        for (json, expected) in forms {
            let scenario = try decode(
                #"{"formatVersion": 1, "name": "x", "duration": "1h", "expect": {"violations": "# + json + "}}"
            )
            #expect(scenario.expectations?.violations == expected, "\(json)")
        }
    }
}
