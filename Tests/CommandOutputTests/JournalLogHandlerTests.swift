import CommandOutput
import Foundation
import Logging
import Testing

/// Issue 26: logs that read well in the journal. The decision (is standard error the journal?)
/// and the lines; `ServiceManagerTests.journalLines` runs the real daemon both ways.
@Suite("Journal lines: the <N> priority prefix, no timestamp, chosen only when stderr is the journal")
struct JournalLogHandlerTests {
    @Test("JOURNAL_STREAM names the stream only with the very device and inode of it")
    func streamDecision() throws {
        #expect(JournalStream.names("2049:1234", device: 2049, inode: 1234))
        for other in [nil, "", "2049:1235", "2050:1234", "2049", "2049:1234:1", "x:y", " 2049:1234"] {
            #expect(!JournalStream.names(other, device: 2049, inode: 1234), "\(other ?? "nil")")
        }
        // This process's standard error, with and without a JOURNAL_STREAM naming it.
        var status = stat()
        try #require(fstat(STDERR_FILENO, &status) == 0)
        let own = "\(status.st_dev):\(status.st_ino)"
        #expect(JournalStream.standardErrorIsJournal(environment: ["JOURNAL_STREAM": own]))
        #expect(!JournalStream.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "\(status.st_dev):0"]))
        #expect(!JournalStream.standardErrorIsJournal(environment: [:]))
    }

    @Test("levels map to syslog priorities: debug 7 (and trace), info 6, notice 5, warning 4, error 3, critical 2")
    func priorities() {
        let expected: [(Logger.Level, Int)] = [
            (.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
        ]
        for (level, priority) in expected {
            #expect(JournalLogHandler.priority(of: level) == priority, "\(level)")
        }
    }

    @Test("a record is <N>message key=value…, every line of it prefixed, no timestamp and no label")
    func lines() {
        #expect(
            JournalLogHandler.lines(level: .notice, message: "listening on /run/b.sock", metadata: [:])
                == "<5>listening on /run/b.sock\n"
        )
        #expect(
            JournalLogHandler.lines(level: .warning, message: "slow", metadata: ["b": "2", "a": "1"])
                == "<4>slow a=1 b=2\n"
        )
        #expect(
            JournalLogHandler.lines(level: .error, message: "first\nsecond", metadata: [:]) == "<3>first\n<3>second\n"
        )
    }
}
