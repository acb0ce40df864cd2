// What the store's rows hold, as FuzzStoredRows reads them from its input (shared with
// MakeCorpus.swift): the REAL, INTEGER and TEXT values a damaged or hand-edited store can hold,
// with the numbers that matter at the boundaries, and JSON documents with numbers put in as text.

import Foundation

let app: AppID = "a"
let manifest = AppManifest(
    bundleIdentifier: app,
    permittedTaskIdentifiers: ["r", "p"],
    backgroundModes: [.fetch, .processing]
)

/// Finite `REAL`s near every limit the store's readers have (StoredTime's, Instant's, Duration's).
let interestingReals: [Double] = [
    0, -0.0, 1, -1, 0.5, 1e-9, 86_400, 1.7e9, 1.8e9, -1.7e9, 1e15, 1e18, 4.6e18, 9.2e18, 9.223372036854775e18,
    9.3e18, 1e19, 2.305843009213694e18, 4.611686018427388e18, 1e300, -1e300, Double.greatestFiniteMagnitude,
    -Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude, 9.2e9, 9.3e9, 1e12, -9.3e18,
]

/// Numbers as JSON text, among them ones no Int or Int64 holds.
let numberTexts = [
    "0", "-1", "1", "2147483647", "2147483648", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "-9223372036854775809", "1e400", "-1e400", "1.5", "1e18", "999999999999999999", "1e-400", "-0", "4e18",
]

let kindNames = ["appRefresh", "processing", "continuedProcessing", "fetch", "remoteNotification", "", "APPREFRESH"]
let strategyNames = ["fail", "queue", "", "Queue"]
let origins: [Double] = [0, 1.7e9, 1.8e9, 1e18]

extension FuzzInput {
    /// A column a reader takes as a finite `REAL` (StoredRow.optionalReal: an INTEGER is read
    /// as a Double, a non-finite REAL refused before it reaches here).
    mutating func real() -> Double? {
        let choice = Int(byte())
        if choice < interestingReals.count { return interestingReals[choice] }
        if choice < 128 { return Double(Int64(bitPattern: uint64())) }
        let value = Double(bitPattern: uint64())
        return value.isFinite ? value : nil
    }

    mutating func numberText() -> String {
        let choice = Int(byte())
        if choice < numberTexts.count { return numberTexts[choice] }
        return String(number())
    }
}

/// `json` with the value of `"key":` replaced by `literal` (the encoder's output: sorted keys, no
/// spaces, so the value ends at the next `,` or `}` for a number or a string without those).
func replacing(_ key: String, in json: String, with literal: String) -> String {
    guard let found = json.range(of: "\"\(key)\":") else { return json }
    var end = found.upperBound
    if json[end] == "\"" {
        end = json.index(after: end)
        while end < json.endIndex, json[end] != "\"" { end = json.index(after: end) }
        if end < json.endIndex { end = json.index(after: end) }
    } else {
        while end < json.endIndex, json[end] != ",", json[end] != "}" { end = json.index(after: end) }
    }
    return String(json[..<found.upperBound]) + literal + String(json[end...])
}

func encodedJSON<Value: Encodable>(_ value: Value) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
}

/// A checkpoint a store may hold for app `a`, session `s`.
func sampleCheckpoint(task: Int) -> TransferCheckpoint {
    var checkpoint = TransferCheckpoint(
        app: app,
        session: "s",
        task: task,
        kind: .download,
        state: .running,
        method: "GET",
        url: "https://example.com/a",
        headers: [TransferHeader(name: "X-A", value: "1")],
        partialFile: "Transfers/s/\(task).partial",
        bytesDone: 10,
        expectedLength: 1000,
        entityTag: "\"v1\"",
        earliestBeginUnixSeconds: 1.7e9,
        requirements: TransferRequirements()
    )
    checkpoint.sessionOptions = TransferSessionOptions(app: app, session: "s")
    return checkpoint
}

/// The fields of a checkpoint's JSON a fuzz input may set to any number.
let checkpointNumberFields = [
    "task", "bytesDone", "expectedLength", "earliestBeginUnixSeconds", "maximumConnectionsPerHost",
    "requestTimeoutSeconds", "resourceTimeoutSeconds", "statusCode", "errorCode", "cancellationReason",
]
let checkpointTextFields = [
    "app", "session", "kind", "state", "method", "url", "partialFile", "entityTag", "lastModified", "expectedSHA256",
]
let resumeNumberFields = ["version", "task", "bytes", "expectedLength"]
let resumeTextFields = ["format", "app", "session", "url", "partialFile", "entityTag", "lastModified"]
let texts = [
    "a", "s", "download", "upload", "running", "completed", "waiting", "GET", "Transfers/s/1.partial",
    "Transfers/../x", "Transfers//x", "/etc/passwd", "Transfers/s/\u{0}x", "ftp://x/", "http://x", "https://x/a", "",
    "background-execution.resume-data", "W/\"v\"",
]
