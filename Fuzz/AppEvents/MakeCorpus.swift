// Writes the seed corpus of the app-events fuzz target (FuzzAppEvents.swift): one file per kind
// of event an app sends, each a record (two bytes of length, then the message's wire value), and
// a few files with several records. Compiled with the same sources by scripts/fuzz.sh --corpus.

import Foundation

@main
enum MakeCorpus {
    static func record(_ request: DaemonRequest) -> [UInt8] {
        let message = try! ProtocolCodec.encode(request)
        let value = Array(message.dropFirst(4))
        return [UInt8(value.count >> 8), UInt8(value.count & 0xff)] + value
    }

    static func main() throws {
        let directory = CommandLine.arguments[1]
        let app: AppID = "a"
        let origin = CallSite()
        let events: [Event] = [
            .beginAssertion(app, name: "Upload", origin: origin, hasExpirationHandler: true),
            .assertionBegun(app, AssertionID(rawValue: 7), name: "Sync", origin: origin, hasExpirationHandler: false),
            .endAssertion(app, AssertionID(rawValue: 1)),
            .expirationHandlerReturned(app, AssertionID(rawValue: 1)),
            .didEnterBackgroundReturned(app), .backgroundWakeReturned(app), .finishLaunching(app),
            .registerTaskHandler(app, identifier: "r"),
            .submitTaskRequest(app, TaskRequest(identifier: "r", kind: .appRefresh, earliestBegin: .seconds(900))),
            .submitTaskRequest(
                app,
                TaskRequest(identifier: "p", kind: .processing, requiresNetworkConnectivity: true)
            ),
            .cancelTaskRequest(app, identifier: "r"), .cancelAllTaskRequests(app),
            .completeTask(app, TaskRunID(rawValue: 1), success: true),
            .reportTaskProgress(app, TaskRunID(rawValue: 1), fraction: 0.5),
            .setMinimumBackgroundFetchInterval(app, .seconds(3600)),
            .setMinimumBackgroundFetchInterval(app, nil),
            .simulateLaunch(app, identifier: "r"), .simulateExpiration(app, identifier: "r"),
            .beginModeActivity(app, .audio), .endModeActivity(app, .audio),
        ]
        let records = events.map { record(.app(.event($0))) }
        for (number, bytes) in records.enumerated() {
            try Data(bytes).write(to: URL(fileURLWithPath: "\(directory)/event-\(number)"))
        }
        // Sequences: begin then end; register, submit, simulate, complete; a mode held and ended.
        let sequences: [[Int]] = [[0, 2], [7, 8, 16, 12], [18, 19, 0, 3], [14, 1, 17, 11]]
        for (number, sequence) in sequences.enumerated() {
            let bytes = sequence.flatMap { records[$0] }
            try Data(bytes).write(to: URL(fileURLWithPath: "\(directory)/sequence-\(number)"))
        }
    }
}
