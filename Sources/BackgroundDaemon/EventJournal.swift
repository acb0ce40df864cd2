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
/// Recording and writing are apart. The engine records entries while it holds its lock, which
/// only appends them to a queue (``record(event:reply:at:)`` and the others); ``flush()``, called
/// once the engine's lock is released, renders what is queued (``JournalLine``) and writes it
/// with one `write` call, in the order it was recorded. So no journal I/O or JSON happens under
/// the engine's lock, and a burst of events costs one system call.
///
/// A daemon killed in the middle of a write leaves at most a torn last line, which readers
/// skip. When the file passes ``rotationBytes`` it is renamed to `journal.jsonl.1` (replacing
/// the previous one) and a new file is started, so the journal holds between one and two
/// rotations' worth of the most recent history.
public final class EventJournal: Sendable {
    /// One journal line.
    public typealias Entry = JournalEntry

    /// The size at which the journal is rotated: 16 MiB.
    public static let rotationBytes = 16 << 20

    /// The journal's path.
    public let path: String
    /// Entries recorded and not yet written, in order.
    private let queued = Mutex<[JournalLine.Record]>([])
    /// The file; held while a batch is rendered and written, so batches go out in order.
    private let descriptor = Mutex<(fd: Int32, size: Int)>((-1, 0))
    private let logger: Logger

    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
    }

    deinit {
        flush()
        descriptor.withLock { if $0.fd >= 0 { SystemCall.close($0.fd) } }
    }

    static func unixNow() -> Double { Date().timeIntervalSince1970 }

    func record(event: Event, reply: Reply?, at time: Double) {
        if case .tick = event { return }  // the effects that follow tell what a tick did
        enqueue(.event(event, reply, time: time))
    }

    func record(effect: Effect, at time: Double) {
        switch effect {
        case .persist, .scheduleWakeup, .cancelWakeup: return  // bookkeeping, not history
        default: enqueue(.effect(effect, time: time))
        }
    }

    func record(budget: JournalEntry.BudgetReading, at time: Double) {
        enqueue(.budget(budget, time: time))
    }

    func record(transfer: JournalEntry.TransferReading, at time: Double) {
        enqueue(.transfer(transfer, time: time))
    }

    private func enqueue(_ record: JournalLine.Record) {
        queued.withLock { $0.append(record) }
    }

    /// Writes every entry recorded so far, in order, with one `write`. Call it without holding
    /// the engine's lock: it renders JSON and does I/O.
    func flush() {
        descriptor.withLock { state in
            var records: [JournalLine.Record] = []
            queued.withLock { swap(&records, &$0) }  // taken whole: no copy of the records
            guard !records.isEmpty else { return }
            var lines: [UInt8] = []
            lines.reserveCapacity(records.count * 192)
            for record in records {
                do {
                    try JournalLine.append(record, to: &lines)
                } catch {
                    logger.notice("a journal entry could not be written: \(error)")
                }
            }
            if state.fd < 0 || state.size > Self.rotationBytes {
                reopen(&state, rotating: state.fd >= 0)
            }
            guard state.fd >= 0, !lines.isEmpty else { return }
            let written = lines.withUnsafeBytes { Glibc.write(state.fd, $0.baseAddress, $0.count) }
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
