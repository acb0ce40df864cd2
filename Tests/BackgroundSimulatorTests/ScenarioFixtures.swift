/// Scenario documents shared by the scenario tests: valid ones, and invalid ones that both the
/// decoder and the JSON Schema must reject.
enum ScenarioFixtures {
    /// The full example of `docs/scenarios.md`: a news app refreshing over a day.
    static let newsDay = #"""
        {
          "$schema": "../schemas/scenario.schema.json",
          "formatVersion": 1,
          "name": "News refresh over a day",
          "description": "A news app read morning and evening refreshes in the background; an uploader leaks its task.",
          "seed": 7,
          "start": "2026-11-21T06:00:00Z",
          "duration": "1d",
          "policy": "iOS",
          "device": {"batteryLevel": 0.9, "network": "wifi", "locked": true},
          "apps": [
            {
              "id": "com.example.news",
              "manifest": {
                "BGTaskSchedulerPermittedIdentifiers": ["com.example.news.refresh", "com.example.news.db-cleanup"],
                "UIBackgroundModes": ["fetch", "processing"]
              },
              "onLaunch": [
                {"register": "com.example.news.refresh"},
                {"register": "com.example.news.db-cleanup"}
              ],
              "onEnterBackground": [
                {"submit": {"identifier": "com.example.news.refresh", "kind": "refresh", "earliestBegin": "15m"}},
                {"submit": {"identifier": "com.example.news.db-cleanup", "kind": "processing",
                            "requiresExternalPower": true}},
                {"beginBackgroundTask": {"name": "Save drafts", "work": "3s"}}
              ],
              "tasks": {
                "com.example.news.refresh": {
                  "work": "8s",
                  "then": [{"submit": {"identifier": "com.example.news.refresh", "kind": "refresh",
                                       "earliestBegin": "1h"}}]
                },
                "com.example.news.db-cleanup": {"work": "2m", "onExpiration": "complete"}
              }
            },
            {
              "id": "com.example.uploader",
              "onEnterBackground": [{"beginBackgroundTask": {"name": "Upload", "leak": true, "onExpiration": "ignore"}}]
            }
          ],
          "timeline": [
            {"at": "07:00", "user": "unlock"},
            {"at": "07:30", "jitter": "10m", "user": "open", "app": "com.example.news", "note": "morning read"},
            {"at": "07:50", "user": "open", "app": "com.example.uploader"},
            {"at": "07:52", "user": "home"},
            {"at": "07:53", "user": "lock"},
            {"at": "08:00", "repeat": "daily", "device": {"network": "cellular"}, "note": "commute"},
            {"at": "08:40", "repeat": "daily", "device": {"network": "wifi"}},
            {"at": "+6h", "device": {"batteryLevel": 0.6}},
            {"at": "18:00", "device": {"batteryLevel": 0.18, "lowPowerMode": true}, "note": "battery runs low"},
            {"at": "21:00", "user": "unlock"},
            {"at": "21:01", "user": "open", "app": "com.example.news", "note": "evening read"},
            {"at": "21:15", "user": "home"},
            {"at": "22:30", "device": "plugIn"},
            {"at": "22:31", "device": {"lowPowerMode": false}},
            {"at": "23:00", "user": "lock"},
            {"at": "day 2 01:00", "device": {"idle": true}}
          ],
          "expect": {
            "violations": 0,
            "terminations": [{"app": "com.example.uploader", "code": "0x8badf00d", "names": ["Upload"]}],
            "tasks": [
              {"app": "com.example.news", "identifier": "com.example.news.refresh", "outcome": "succeeded",
               "count": ">= 3"},
              {"app": "com.example.news", "identifier": "com.example.news.db-cleanup", "count": "<= 1"}
            ],
            "finalStates": {"com.example.news": "suspended", "com.example.uploader": "terminated"},
            "pending": [{"app": "com.example.news", "identifier": "com.example.news.refresh"}],
            "lowPowerModeTurnedOn": true,
            "minimumBatteryLevel": "<= 0.2"
          }
        }
        """#

    /// The smallest valid scenario.
    static let minimal = #"{"formatVersion": 1, "name": "Nothing happens", "duration": "1h"}"#

    /// Other valid documents, each exercising a form the full example does not.
    static let validVariants: [String] = [
        minimal,
        #"{"formatVersion": 1, "name": "Server", "duration": "90s", "policy": {"server": {"grace": "20s"}}}"#,
        #"""
        {"formatVersion": 1, "name": "Offsets", "duration": "2d", "start": "2026-03-01T23:30:00-05:00",
         "seed": 18446744073709551615, "policy": "iOS12",
         "apps": [{"id": "a", "backgroundAppRefresh": false,
                   "onBecomeActive": [{"cancelAll": true}, {"cancel": "a.x"},
                                      {"setMinimumBackgroundFetchInterval": "minimum"},
                                      {"beginBackgroundTask": {"onExpiration": "none"}}],
                   "tasks": {"a.x": {"neverComplete": true, "onExpiration": "ignore"}},
                   "fetch": {"work": "5s", "result": "noData"}}],
         "timeline": [{"at": "23:45:30", "repeat": "hourly", "jitter": "1h", "user": "open", "app": "a"},
                      {"at": "day 2 00:00", "device": {"backgroundAppRefresh": false}, "app": "a"},
                      {"at": "+1d1ms", "device": "reboot"},
                      {"at": "+1d2h", "user": "forceQuit", "app": "a"}],
         "expect": {"violations": "<= 2", "terminations": [], "tasks": [{"app": "a", "identifier": "a.x", "count": 0}],
                    "minimumBatteryLevel": "0.1...0.9", "finalStates": {"a": "notRunning"}}}
        """#,
        #"""
        {"formatVersion": 1, "name": "Transfers", "duration": "1h",
         "device": {"network": "cellular", "bandwidth": 50000, "latency": "200ms"},
         "apps": [{"id": "t",
                   "onLaunch": [{"download": {"url": "https://example.com/a", "bytes": 1000000,
                                              "failures": [{"dropAt": 10}, {"serverError": 503, "attempts": 2},
                                                           {"changesAt": 500}]}}],
                   "onEnterBackground": [{"upload": {"url": "http://example.com/b", "bytes": 0, "discretionary": true,
                                                     "cellular": false, "earliestBegin": "5m", "priority": 1}}]}],
         "timeline": [{"at": "+1m", "user": "open", "app": "t"},
                      {"at": "+2m", "device": {"bandwidth": 1, "latency": "0s"}},
                      {"at": "+3m", "device": {"network": "none"}}]}
        """#,
    ]

    /// An invalid document, the error the decoder must report, and whether the schema can tell.
    struct Invalid: Sendable, CustomStringConvertible {
        let name: String
        let json: String
        let code: String
        let path: String
        /// False for rules only the decoder checks (references, uniqueness, times, bounds).
        let schemaRejects: Bool

        var description: String { name }
    }

    private static func wrap(_ members: String) -> String {
        #"{"formatVersion": 1, "name": "x", "duration": "1d", "apps": [{"id": "a"}], "# + members + "}"
    }

    /// Invalid documents. The first group is rejected by both the decoder and the schema.
    static let invalid: [Invalid] = [
        Invalid(
            name: "unknown top-level key",
            json: wrap(#""timline": []"#),
            code: "unknownKey",
            path: "timline",
            schemaRejects: true
        ),
        Invalid(
            name: "misspelled app key",
            json: #"{"formatVersion": 1, "name": "x", "duration": "1d", "apps": [{"id": "a", "onlaunch": []}]}"#,
            code: "unknownKey",
            path: "apps[0].onlaunch",
            schemaRejects: true
        ),
        Invalid(
            name: "a download without its size",
            json:
                #"{"formatVersion": 1, "name": "x", "duration": "1d", "apps": [{"id": "a", "onLaunch": [{"download": {"url": "https://e.com/a"}}]}]}"#,
            code: "missingKey",
            path: "apps[0].onLaunch[0].download.bytes",
            schemaRejects: true
        ),
        Invalid(
            name: "a download from an ftp URL",
            json:
                #"{"formatVersion": 1, "name": "x", "duration": "1d", "apps": [{"id": "a", "onLaunch": [{"download": {"url": "ftp://e.com/a", "bytes": 1}}]}]}"#,
            code: "invalidValue",
            path: "apps[0].onLaunch[0].download.url",
            schemaRejects: true
        ),
        Invalid(
            name: "an upload of a negative size",
            json:
                #"{"formatVersion": 1, "name": "x", "duration": "1d", "apps": [{"id": "a", "onLaunch": [{"upload": {"url": "https://e.com/a", "bytes": -1}}]}]}"#,
            code: "outOfRange",
            path: "apps[0].onLaunch[0].upload.bytes",
            schemaRejects: true
        ),
        Invalid(
            name: "a server error that is not a 5xx",
            json:
                #"{"formatVersion": 1, "name": "x", "duration": "1d", "apps": [{"id": "a", "onLaunch": [{"download": {"url": "https://e.com/a", "bytes": 1, "failures": [{"serverError": 404}]}}]}]}"#,
            code: "outOfRange",
            path: "apps[0].onLaunch[0].download.failures[0].serverError",
            schemaRejects: true
        ),
        Invalid(
            name: "a network with no bandwidth",
            json: #"{"formatVersion": 1, "name": "x", "duration": "1d", "device": {"bandwidth": 0}}"#,
            code: "outOfRange",
            path: "device.bandwidth",
            schemaRejects: true
        ),
        Invalid(
            name: "missing duration",
            json: #"{"formatVersion": 1, "name": "x"}"#,
            code: "missingKey",
            path: "duration",
            schemaRejects: true
        ),
        Invalid(
            name: "format version 2",
            json: #"{"formatVersion": 2, "name": "x", "duration": "1d"}"#,
            code: "unsupportedVersion",
            path: "formatVersion",
            schemaRejects: true
        ),
        Invalid(
            name: "duration without unit",
            json: #"{"formatVersion": 1, "name": "x", "duration": "90"}"#,
            code: "invalidValue",
            path: "duration",
            schemaRejects: true
        ),
        Invalid(
            name: "units out of order",
            json: #"{"formatVersion": 1, "name": "x", "duration": "30m1h"}"#,
            code: "invalidValue",
            path: "duration",
            schemaRejects: true
        ),
        Invalid(
            name: "zero duration",
            json: #"{"formatVersion": 1, "name": "x", "duration": "0s"}"#,
            code: "outOfRange",
            path: "duration",
            schemaRejects: true
        ),
        Invalid(
            name: "action with two keys",
            json: #"""
                {"formatVersion": 1, "name": "x", "duration": "1d",
                 "apps": [{"id": "a", "onLaunch": [{"register": "a.r", "cancel": "a.r"}]}]}
                """#,
            code: "conflict",
            path: "apps[0].onLaunch[0]",
            schemaRejects: true
        ),
        Invalid(
            name: "empty action",
            json: #"{"formatVersion": 1, "name": "x", "duration": "1d", "apps": [{"id": "a", "onLaunch": [{}]}]}"#,
            code: "invalidValue",
            path: "apps[0].onLaunch[0]",
            schemaRejects: true
        ),
        Invalid(
            name: "refresh with requiresNetwork",
            json: #"""
                {"formatVersion": 1, "name": "x", "duration": "1d", "apps": [{"id": "a", "onLaunch": [
                  {"submit": {"identifier": "a.r", "kind": "refresh", "requiresNetwork": true}}]}]}
                """#,
            code: "conflict",
            path: "apps[0].onLaunch[0].submit.requiresNetwork",
            schemaRejects: true
        ),
        Invalid(
            name: "bad clock time",
            json: wrap(#""timeline": [{"at": "7:30", "user": "home"}]"#),
            code: "invalidValue",
            path: "timeline[0].at",
            schemaRejects: true
        ),
        Invalid(
            name: "open without app",
            json: wrap(#""timeline": [{"at": "+1m", "user": "open"}]"#),
            code: "missingKey",
            path: "timeline[0].app",
            schemaRejects: true
        ),
        Invalid(
            name: "user and device",
            json: wrap(#""timeline": [{"at": "+1m", "user": "home", "device": "plugIn"}]"#),
            code: "conflict",
            path: "timeline[0].device",
            schemaRejects: true
        ),
        Invalid(
            name: "battery above 1",
            json: #"{"formatVersion": 1, "name": "x", "duration": "1d", "device": {"batteryLevel": 1.5}}"#,
            code: "outOfRange",
            path: "device.batteryLevel",
            schemaRejects: true
        ),
        Invalid(
            name: "bad task outcome",
            json: wrap(#""expect": {"tasks": [{"app": "a", "identifier": "a.r", "outcome": "success"}]}"#),
            code: "invalidValue",
            path: "expect.tasks[0].outcome",
            schemaRejects: true
        ),
        Invalid(
            name: "bad count",
            json: wrap(#""expect": {"violations": "> 3"}"#),
            code: "invalidValue",
            path: "expect.violations",
            schemaRejects: true
        ),
        Invalid(
            name: "bad policy",
            json: #"{"formatVersion": 1, "name": "x", "duration": "1d", "policy": "ios"}"#,
            code: "invalidValue",
            path: "policy",
            schemaRejects: true
        ),
        Invalid(
            name: "seed negative",
            json: #"{"formatVersion": 1, "name": "x", "duration": "1d", "seed": -1}"#,
            code: "outOfRange",
            path: "seed",
            schemaRejects: true
        ),
        Invalid(
            name: "blank name",
            json: #"{"formatVersion": 1, "name": "  ", "duration": "1d"}"#,
            code: "invalidValue",
            path: "name",
            schemaRejects: true
        ),
        // Only the decoder can tell these.
        Invalid(
            name: "duplicate app ids",
            json: #"{"formatVersion": 1, "name": "x", "duration": "1d", "apps": [{"id": "a"}, {"id": "a"}]}"#,
            code: "duplicate",
            path: "apps[1].id",
            schemaRejects: false
        ),
        Invalid(
            name: "unknown app",
            json: wrap(#""timeline": [{"at": "+1m", "user": "open", "app": "b"}]"#),
            code: "unknownReference",
            path: "timeline[0].app",
            schemaRejects: false
        ),
        Invalid(
            name: "clock time before the start",
            json: wrap(#""start": "2026-01-01T08:00:00Z", "timeline": [{"at": "07:30", "user": "home"}]"#),
            code: "outOfRange",
            path: "timeline[0].at",
            schemaRejects: false
        ),
        Invalid(
            name: "duration over 400 days",
            json: #"{"formatVersion": 1, "name": "x", "duration": "401d"}"#,
            code: "outOfRange",
            path: "duration",
            schemaRejects: false
        ),
    ]
}
