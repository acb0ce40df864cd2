import BackgroundPosix
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Delivers Unix signals to Swift code without ever losing one.
///
/// `DispatchSource.makeSignalSource` registers with libdispatch's manager thread
/// asynchronously; a signal that arrives in between, while its disposition is `SIG_IGN`, is
/// discarded (seen in tests: SIGTERM sent right after start-up was lost, and the service never
/// shut down). Here the handler is installed synchronously with `sigaction` and does two
/// async-signal-safe things: it reads `CLOCK_BOOTTIME` and writes one 9-byte record (the
/// signal's number and its arrival time) to a pipe, atomically (less than `PIPE_BUF`). A
/// dispatch read source drains the pipe on a background queue, and records wait in the pipe
/// until it does. Listeners get the arrival time, so signals that arrived together can be told
/// apart from a deliberate second one however late the drain runs.
///
/// Listeners run on the drain's queue, one after another: they must return quickly (the
/// control channel has its own thread and never runs here).
enum SignalPipe {
    /// The pipe's write end, read by the C handler; set once, before any handler is installed.
    nonisolated(unsafe) private static var writeDescriptor: Int32 = -1

    /// The size of one record: the signal number, then the arrival time in nanoseconds.
    private static let recordSize = 9

    private struct Registry {
        var readSource: SignalSource?
        var listeners: [Int32: [@Sendable (_ arrivalNanoseconds: Int64) -> Void]] = [:]
    }

    private static let registry = Mutex(Registry())

    /// Calls `listener` (on a background queue) with the arrival time (`CLOCK_BOOTTIME`
    /// nanoseconds) each time `signal` arrives, from now on.
    ///
    /// - Throws: `SystemCallError` if the pipe cannot be made or the handler installed
    ///   (`sigaction` refuses SIGKILL and SIGSTOP, for example).
    static func listen(
        to signal: Int32,
        _ listener: @escaping @Sendable (_ arrivalNanoseconds: Int64) -> Void
    ) throws(SystemCallError) {
        try registry.withLock { (registry) throws(SystemCallError) in
            if registry.readSource == nil { registry.readSource = try openPipe() }
            registry.listeners[signal, default: []].append(listener)
        }
        try SystemCall.installHandler(for: signal) { number in
            let saved = errno
            var clock = timespec()
            clock_gettime(CLOCK_BOOTTIME, &clock)
            let time = UInt64(bitPattern: Int64(clock.tv_sec) * 1_000_000_000 + Int64(clock.tv_nsec))
            func byte(_ shift: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: time >> shift) }
            var record = (
                UInt8(truncatingIfNeeded: number), byte(0), byte(8), byte(16), byte(24), byte(32), byte(40), byte(48),
                byte(56)
            )
            _ = write(SignalPipe.writeDescriptor, &record, 9)
            errno = saved
        }
    }

    private static func openPipe() throws(SystemCallError) -> SignalSource {
        let (readDescriptor, write) = try SystemCall.nonBlockingPipe()
        writeDescriptor = write
        let source = DispatchSource.makeReadSource(fileDescriptor: readDescriptor, queue: .global())
        source.setEventHandler { drain(readDescriptor) }
        source.resume()
        return SignalSource(source: source)
    }

    private static func drain(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: recordSize * 64)
        while true {
            let result = buffer.withUnsafeMutableBytes { bytes in
                Result { () throws(SystemCallError) -> Int in try SystemCall.read(descriptor, into: bytes) }
            }
            guard let count = try? result.get() else { return }  // EAGAIN: drained
            guard count > 0 else { return }
            // Writes of one record are atomic and reads return whole records.
            for start in stride(from: 0, to: count - recordSize + 1, by: recordSize) {
                let number = Int32(buffer[start])
                let arrival = buffer[start + 1..<start + recordSize].reversed().reduce(UInt64(0)) {
                    $0 << 8 | UInt64($1)
                }
                let listeners = registry.withLock { $0.listeners[number] ?? [] }
                for listener in listeners { listener(Int64(bitPattern: arrival)) }
            }
        }
    }
}
