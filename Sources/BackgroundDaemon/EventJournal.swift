import BackgroundCore
import BackgroundExecution
import BackgroundPosix
public import BackgroundProtocol
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the daemon did, one JSON line per event and effect, for `bgctl timeline` and
/// `bgctl log`: `<state>/journal.jsonl`, mode 0600, appended with `O_APPEND`.
///
/// A line is written with one `write` call; a daemon killed in the middle of one leaves at
/// most a torn last line, which readers skip. When the file passes ``rotationBytes`` it is
/// renamed to `journal.jsonl.1` (replacing the previous one) and a new file is started, so the
/// journal holds between one and two rotations' worth of the most recent history.
public final class EventJournal: Sendable {
    /// One journal line.
    public typealias Entry = JournalEntry

    /// The size at which the journal is rotated: 16 MiB.
    public static let rotationBytes = 16 << 20

    /// The journal's path.
    public let path: String
    private let descriptor = Mutex<(fd: Int32, size: Int)>((-1, 0))
    private let logger: Logger

    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
    }

    deinit {
        descriptor.withLock { if $0.fd >= 0 { SystemCall.close($0.fd) } }
    }

    static func unixNow() -> Double { Date().timeIntervalSince1970 }

    func record(event: Event, reply: Reply?, at time: Double) {
        if case .tick = event { return }  // the effects that follow tell what a tick did
        append(Entry(time: time, event: event, reply: reply))
    }

    func record(effect: Effect, at time: Double) {
        switch effect {
        case .persist, .scheduleWakeup, .cancelWakeup: return  // bookkeeping, not history
        default: append(Entry(time: time, effect: effect))
        }
    }

    func record(budget: JournalEntry.BudgetReading, at time: Double) {
        append(Entry(time: time, budget: budget))
    }

    func record(transfer: JournalEntry.TransferReading, at time: Double) {
        append(Entry(time: time, transfer: transfer))
    }

    private func append(_ entry: Entry) {
        guard var line = try? JSONEncoder().encode(entry) else { return }
        line.append(0x0A)
        descriptor.withLock { state in
            if state.fd < 0 || state.size > Self.rotationBytes {
                reopen(&state, rotating: state.fd >= 0)
            }
            guard state.fd >= 0 else { return }
            let written = line.withUnsafeBytes { Glibc.write(state.fd, $0.baseAddress, $0.count) }
            if written > 0 { state.size += written }
        }
    }

    private func reopen(_ state: inout (fd: Int32, size: Int), rotating: Bool) {
        if state.fd >= 0 { SystemCall.close(state.fd) }
        state = (-1, 0)
        if rotating { _ = rename(path, path + ".1") }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            logger.error("the journal \(path) cannot be opened: \(String(cString: strerror(errno)))")
            return
        }
        _ = fchmod(fd, 0o600)
        var status = stat()
        state = (fd, fstat(fd, &status) == 0 ? Int(status.st_size) : 0)
    }
}
