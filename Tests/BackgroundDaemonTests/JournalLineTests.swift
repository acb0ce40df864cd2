import BackgroundCore
import BackgroundProtocol
import BackgroundTestSupport
import Foundation
import Testing

@testable import BackgroundDaemon

/// The journal's lines: a begin+end pair's entries written by hand, the rest by `JSONEncoder`,
/// all read back equal by the journal's readers; and recording apart from writing.
struct JournalLineTests {
    static let app: AppID = "com.example.journal"
    static let awkward = [
        "Upload", "", "quote \" backslash \\ slash / tab \t newline \n nul \u{0} bell \u{7}", "é ✓ 🚀",
    ]

    static var handWritten: [JournalEntry] {
        var entries: [JournalEntry] = []
        let times = [
            1_764_352_206.123_456, 0, -1.5, 1e-7, 1e300, 30, -0.0, 999_999_999_999_999, 1e15, 9_007_199_254_740_992,
            1e16, 1.5e16, 0.1 + 0.2,
        ]
        for (index, text) in awkward.enumerated() {
            let origin = CallSite(fileIDText: "M/\(text).swift", line: UInt(index * 1000), functionText: text)
            let time = times[index % times.count]
            entries.append(
                JournalEntry(
                    time: time,
                    event: .beginAssertion(AppID(text), name: text, origin: origin, hasExpirationHandler: true),
                    reply: .granted(AssertionID(rawValue: index + 1))
                )
            )
            entries.append(
                JournalEntry(
                    time: time,
                    event: .assertionBegun(
                        Self.app,
                        AssertionID(rawValue: Int.max - index),
                        name: text,
                        origin: origin,
                        hasExpirationHandler: false
                    )
                )
            )
            entries.append(JournalEntry(time: time, event: .endAssertion(AppID(text), AssertionID(rawValue: -index))))
            entries.append(
                JournalEntry(time: time, event: .expirationHandlerReturned(Self.app, AssertionID(rawValue: 1)))
            )
            entries.append(
                JournalEntry(
                    time: times[(index + 3) % times.count],
                    budget: .init(
                        app: AppID(text),
                        remainingSeconds: 29.999,
                        limitSeconds: 30,
                        depleting: index % 2 == 0
                    )
                )
            )
        }
        for time in times {
            entries.append(JournalEntry(time: time, event: .endAssertion(Self.app, AssertionID(rawValue: 2))))
            entries.append(
                JournalEntry(
                    time: 1,
                    budget: .init(app: Self.app, remainingSeconds: time, limitSeconds: time, depleting: false)
                )
            )
        }
        return entries
    }

    static var encoderWritten: [JournalEntry] {
        [
            JournalEntry(time: 1, event: .activate(Self.app)),
            JournalEntry(
                time: 2,
                event: .beginAssertion(Self.app, name: "x", origin: .unknown, hasExpirationHandler: true),
                reply: .denied(reason: "no")
            ),
            JournalEntry(time: 3, effect: .suspend(Self.app)),
            JournalEntry(
                time: 4,
                transfer: .init(app: Self.app, session: "s", task: 1, phase: .running, detail: "running")
            ),
        ]
    }

    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    private static func line(_ entry: JournalEntry) throws -> Data {
        var bytes: [UInt8] = []
        try JournalLine.append(entry, to: &bytes)
        #expect(bytes.last == 0x0A)
        #expect(bytes.dropLast().contains(0x0A) == false, "one line")
        return Data(bytes.dropLast())
    }

    @Test("A begin+end pair's entries are written by hand: JSONEncoder's line with sorted keys, read back equal")
    func handWrittenLines() throws {
        #expect(Self.handWritten.count == 46)
        for entry in Self.handWritten {
            #expect(JournalLineWriter.line(entry) != nil, "\(entry) is written by hand")
            let line = try Self.line(entry)
            #expect(try JSONDecoder().decode(JournalEntry.self, from: line) == entry)
            // JSONEncoder's line with sorted keys, but for its escaped slashes.
            let theirs = String(decoding: try Self.sorted.encode(entry), as: UTF8.self)
            #expect(String(decoding: line, as: UTF8.self) == theirs.replacingOccurrences(of: "\\/", with: "/"))
        }
    }

    @Test(
        "Every other entry is JSONEncoder's line with sorted keys, the same from one line to the next; a time that is not finite is refused, not written"
    )
    func otherLines() throws {
        for entry in Self.encoderWritten {
            #expect(JournalLineWriter.line(entry) == nil)
            let line = try Self.line(entry)
            let encoded = try Self.sorted.encode(entry)
            #expect(try Self.line(entry) == line, "the same line every time")
            #expect(
                line == encoded,
                "\(String(decoding: line, as: UTF8.self)) against \(String(decoding: encoded, as: UTF8.self))"
            )
        }
        var bytes: [UInt8] = []
        #expect(throws: EncodingError.self) {
            try JournalLine.append(
                JournalEntry(time: .infinity, event: .endAssertion(Self.app, AssertionID(rawValue: 1))),
                to: &bytes
            )
        }
        #expect(bytes.isEmpty)
    }

    @Test("What the engine queues (a record of an entry's parts) renders as the entry's own line")
    func recordsRenderAsTheirEntries() throws {
        for entry in Self.handWritten + Self.encoderWritten {
            let record: JournalLine.Record
            if let effect = entry.effect {
                record = .effect(effect, time: entry.time)
            } else if let transfer = entry.transfer {
                record = .transfer(transfer, time: entry.time)
            } else if let budget = entry.budget {
                record = .budget(budget, time: entry.time)
            } else {
                record = .event(try #require(entry.event), entry.reply, time: entry.time)
            }
            #expect(record.entry == entry)
            var fromRecord: [UInt8] = []
            try JournalLine.append(record, to: &fromRecord)
            #expect(fromRecord == Array(try Self.line(entry)) + [0x0A])
        }
    }

    @Test("Recorded entries reach the file at the flush, in the order they were recorded, each one line")
    func recordThenFlush() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/journal.jsonl"
        let journal = EventJournal(path: path, logger: .init(label: "test"))
        journal.record(event: .activate(Self.app), reply: nil, at: 1)
        journal.record(event: .tick, reply: nil, at: 2)  // not history
        journal.record(effect: .scheduleWakeup(at: .zero), at: 2)  // not history
        journal.record(event: .endAssertion(Self.app, AssertionID(rawValue: 1)), reply: nil, at: 3)
        journal.record(budget: .init(app: Self.app, remainingSeconds: 1, limitSeconds: 30, depleting: true), at: 4)
        #expect(!FileManager.default.fileExists(atPath: path), "nothing is written before the flush")
        journal.flush()
        journal.record(effect: .suspend(Self.app), at: 5)
        journal.flush()
        journal.flush()  // nothing queued: nothing written
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let entries = try lines.map { try JSONDecoder().decode(JournalEntry.self, from: Data($0.utf8)) }
        #expect(entries.map(\.time) == [1, 3, 4, 5])
        #expect(entries.last?.effect == .suspend(Self.app))
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
    }
}
