import BackgroundCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension EmbeddedSystem {
    /// Treats these signals as "the app moved to the background": the graceful shutdown of a
    /// Linux service with Apple's model.
    ///
    /// On the first signal the app moves to the background and its budget starts: work under
    /// assertions goes on, expiration handlers run on the main actor shortly before the end, and
    /// the process exits when the last assertion ends (status 0 under ``SystemPolicy/server(grace:)``),
    /// or with a termination report naming what leaked. A second signal while already in the
    /// background ends the process at once, as a user's second Ctrl-C expects, with a report of
    /// what was still held.
    ///
    /// ```swift
    /// system.moveToBackground(onSignals: [SIGTERM, SIGINT])
    /// ```
    ///
    /// - Parameter signals: Signal numbers, for example `SIGTERM` and `SIGINT`.
    public func moveToBackground(onSignals signals: [Int32]) {
        for number in signals {
            SignalPipe.listen(to: number) { [weak self] in self?.receivedShutdownSignal(number) }
        }
    }

    private func receivedShutdownSignal(_ number: Int32) {
        let current = lifecycleState
        if current.isForeground {
            configuration.logger.notice("signal \(number): moving \(app) to the background")
            moveToBackground()
        } else if current.hasProcess {
            configuration.logger.warning("signal \(number) again while in the background: ending now")
            deliver(.terminate(app, .userForceQuit))
        }
    }
}

/// A dispatch source kept alive for the process. Dispatch sources are thread-safe; the type
/// only lacks the annotation.
struct SignalSource: @unchecked Sendable {
    let source: any DispatchSourceProtocol
}

/// The process-level system calls of the embedded system, in one place.
enum ProcessControl {
    /// Flushes standard output and error, then ends the process with `status` at once.
    ///
    /// `_exit`, not `exit`: this runs on whichever thread carried out the effect, while other
    /// threads may hold locks that `exit`'s atexit handlers and destructors would wait for.
    static func exit(_ status: Int32) -> Never {
        fflush(nil)  // every open output stream
        Glibc._exit(status)
    }

    /// The monotonic clock that also counts time asleep (`CLOCK_BOOTTIME`, what
    /// `ContinuousClock` reads on Linux), in nanoseconds: one vDSO call, no allocation.
    static func bootTimeNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Writes text to standard error, unbuffered.
    static func writeToStandardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
