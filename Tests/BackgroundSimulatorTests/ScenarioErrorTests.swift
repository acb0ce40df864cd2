import BackgroundSimulator
import Foundation
import Testing

@Suite("Scenario errors")
struct ScenarioErrorTests {
    /// Decodes `json` and returns the error it must throw.
    private func failure(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> ScenarioError? {
        failure(Data(json.utf8), sourceLocation: sourceLocation)
    }

    private func failure(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) -> ScenarioError? {
        do {
            let scenario = try Scenario.decode(from: data)
            Issue.record("decoded \(scenario.name) instead of failing", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    private func wrap(_ members: String) -> String {
        #"{"formatVersion": 1, "name": "x", "duration": "1d", "start": "2026-11-21T06:00:00Z", "#
            + #""apps": [{"id": "com.example.news"}], "# + members + "}"
    }

    /// A scenario whose one app, `a`, has `members` after its id.
    private func withApp(_ members: String) -> String {
        #"{"formatVersion": 1, "name": "x", "duration": "1d", "apps": [{"id": "a", "# + members + "}]}"
    }

    @Test("Each invalid fixture fails with its code and path", arguments: ScenarioFixtures.invalid)
    func invalidFixtures(fixture: ScenarioFixtures.Invalid) {
        let error = failure(fixture.json)
        #expect(error?.code.description == fixture.code)
        #expect(error?.path == fixture.path)
    }

    @Test("An unknown key suggests the key within edit distance 2")
    func didYouMean() {
        let error = failure(wrap(#""timeline": [], "expect": {"violatons": 0}"#))
        #expect(error?.description == #"expect.violatons: unknown key "violatons"; did you mean "violations"?"#)
        #expect(error?.suggestion == "violations")
        let caseOnly = failure(
            withApp(#""onlaunch": []"#)
        )
        #expect(caseOnly?.suggestion == "onLaunch")
        let farOff = failure(wrap(#""colour": "red""#))
        #expect(farOff?.suggestion == nil)
        #expect(farOff?.message.contains(#"a scenario has the keys "$schema", "formatVersion""#) == true)
    }

    @Test("Enumerations and app references suggest near misses")
    func valueSuggestions() {
        #expect(failure(wrap(#""policy": "IOS""#))?.suggestion == "iOS")
        #expect(
            failure(wrap(#""timeline": [{"at": "+1m", "user": "opne", "app": "com.example.news"}]"#))?.suggestion
                == "open"
        )
        let app = failure(wrap(#""timeline": [{"at": "+1m", "user": "open", "app": "com.example.nwes"}]"#))
        #expect(app?.code == .unknownReference)
        #expect(
            app?.description
                == #"timeline[0].app: no app has the id "com.example.nwes"; did you mean "com.example.news"?"#
        )
    }

    @Test("The version is checked first, with the documented message")
    func version() {
        let error = failure(#"{"formatVersion": 2, "someFutureKey": true}"#)
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.description == "formatVersion: unsupported formatVersion 2; this build reads 1")
    }

    @Test("Paths name dictionary entries with quoted keys")
    func entryPaths() {
        let json =
            withApp(#""tasks": {"com.x.refresh": {"work": "ten seconds"}}"#)
        #expect(failure(json)?.path == #"apps[0].tasks["com.x.refresh"].work"#)
        let state = failure(wrap(#""expect": {"finalStates": {"com.example.news": "sleeping"}}"#))
        #expect(state?.path == #"expect.finalStates["com.example.news"]"#)
    }

    @Test("Times outside the scenario are errors that say how to fix them")
    func timesOutsideTheScenario() {
        let early = failure(wrap(#""timeline": [{"at": "05:00", "user": "home"}]"#))
        #expect(early?.code == .outOfRange)
        #expect(early?.message.contains(#"write "day 2 05:00" for the next day"#) == true)
        let late = failure(wrap(#""timeline": [{"at": "day 2 07:00", "user": "home"}]"#))
        #expect(late?.message == #""day 2 07:00" falls at +1d1h, not before the end of the scenario (+1d)"#)
        let jitter = failure(wrap(#""timeline": [{"at": "+1m", "repeat": "hourly", "jitter": "2h", "user": "home"}]"#))
        #expect(jitter?.path == "timeline[0].jitter")
        #expect(failure(wrap(#""timeline": [{"at": "+1m", "repeat": "30s", "user": "home"}]"#))?.code == .outOfRange)
    }

    @Test("Contradictions are conflicts")
    func conflicts() {
        let leak =
            withApp(#""onLaunch": [{"beginBackgroundTask": {"leak": true, "work": "5s"}}]"#)
        #expect(failure(leak)?.path == "apps[0].onLaunch[0].beginBackgroundTask.work")
        let never =
            withApp(#""tasks": {"a.r": {"neverComplete": true, "success": false}}"#)
        #expect(failure(never)?.code == .conflict)
        #expect(
            failure(wrap(#""timeline": [{"at": "+1m", "user": "home", "app": "com.example.news"}]"#))?.code == .conflict
        )
        let mixed = wrap(
            #""timeline": [{"at": "+1m", "device": {"lowPowerMode": true, "backgroundAppRefresh": false}, "#
                + #""app": "com.example.news"}]"#
        )
        #expect(failure(mixed)?.path == "timeline[0].app")
        #expect(failure(wrap(#""timeline": [{"at": "+1m", "device": {}}]"#))?.code == .invalidValue)
        let cancelAll =
            withApp(#""onLaunch": [{"cancelAll": false}]"#)
        #expect(failure(cancelAll)?.code == .conflict)
    }

    @Test("Duplicates are errors: object keys, app ids, expectations")
    func duplicates() {
        let key = failure(#"{"formatVersion": 1, "name": "x", "name": "y", "duration": "1d"}"#)
        #expect(key?.code == .duplicate)
        #expect(key?.path == "name")
        let pending = wrap(
            #""expect": {"pending": [{"app": "com.example.news", "identifier": "r"}, "#
                + #"{"app": "com.example.news", "identifier": "r"}]}"#
        )
        #expect(failure(pending)?.path == "expect.pending[1]")
    }

    @Test("Malformed JSON reports the line and column")
    func malformedJSON() {
        let error = failure("{\n  \"formatVersion\": 1,\n  \"name\": \"x\" \"duration\": \"1d\"\n}")
        #expect(error?.code == .malformedJSON)
        #expect(error?.description == "line 3, column 15: expected ',' or '}', found '\"'")
        #expect(self.failure("")?.code == .malformedJSON)
        #expect(self.failure("{} {}")?.code == .malformedJSON)
        #expect(self.failure(Data([0x22, 0xFF, 0x22]))?.code == .malformedJSON)
        #expect(self.failure(#"["\ud800"]"#)?.code == .malformedJSON)
        #expect(self.failure("[1e999]")?.code == .outOfRange)
    }

    @Test("Limits: nesting depth, string length, file size, element counts")
    func limits() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(failure(deep)?.code == .limitExceeded)
        let long = String(repeating: "é", count: 4097)
        #expect(failure(#"{"formatVersion": 1, "name": ""# + long + #"", "duration": "1d"}"#)?.code == .limitExceeded)
        #expect(failure(Data(count: Scenario.maximumFileSize + 1))?.code == .limitExceeded)
        let apps = (0...Scenario.maximumApps).map { #"{"id": "a\#($0)"}"# }.joined(separator: ",")
        let tooManyApps = failure(#"{"formatVersion": 1, "name": "x", "duration": "1d", "apps": ["# + apps + "]}")
        #expect(tooManyApps?.code == .limitExceeded)
        #expect(tooManyApps?.path == "apps")
        let most = (0..<Scenario.maximumApps).map { #"{"id": "a\#($0)"}"# }.joined(separator: ",")
        let largest = try? Scenario.decode(
            from: Data((#"{"formatVersion": 1, "name": "x", "duration": "1d", "apps": ["# + most + "]}").utf8)
        )
        #expect(largest?.apps.count == 10_000)
        let longID = String(repeating: "a", count: 256)
        #expect(
            failure(#"{"formatVersion": 1, "name": "x", "duration": "1d", "apps": [{"id": ""# + longID + #""}]}"#)?.code
                == .limitExceeded
        )
    }

    @Test("load(contentsOf:) names the file in its errors")
    func loadNamesTheFile() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "scenario-tests-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "news.json")
        try Data(#"{"formatVersion": 1, "name": "x", "duration": "1x"}"#.utf8).write(to: file)
        do {
            _ = try Scenario.load(contentsOf: file)
            Issue.record("loaded an invalid file")
        } catch {
            #expect(error.file == "news.json")
            #expect(error.description.hasPrefix("news.json: duration: unknown unit \"x\""))
        }
        do {
            _ = try Scenario.load(contentsOf: directory.appending(path: "missing.json"))
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.code == .unreadable)
        }
        try Data(ScenarioFixtures.minimal.utf8).write(to: file)
        #expect(try Scenario.load(contentsOf: file).name == "Nothing happens")
    }
}
