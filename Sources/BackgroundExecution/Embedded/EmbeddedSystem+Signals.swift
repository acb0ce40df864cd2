import BackgroundControl
import BackgroundCore
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension EmbeddedSystem {
    /// Signals that arrive within this window of the first one are one request: 100 ms.
    ///
    /// GNU `timeout` and many supervisors send SIGTERM to the child and then to its process
    /// group, so one request arrives as two signals microseconds apart; a user's second Ctrl-C
    /// comes hundreds of milliseconds later.
    public static let shutdownSignalWindow: Duration = .milliseconds(100)

    /// Treats these signals as "the app moved to the background": the graceful shutdown of a
    /// Linux service with Apple's model.
    ///
    /// On the first signal the app moves to the background and its budget starts: work under
    /// assertions goes on, expiration handlers run on the main actor shortly before the end, and
    /// the process exits when the last assertion ends (status 0 under ``SystemPolicy/server(grace:)``),
    /// or with a termination report naming what leaked.
    ///
    /// Signals that arrive within ``shutdownSignalWindow`` (100 ms) of the first are the same
    /// request and are ignored (SIGTERM to the child and to its process group, as `timeout`
    /// sends it). A signal after the window while the app is in the background ends the process
    /// at once, as a user's second Ctrl-C expects, with a report of what was still held.
    ///
    /// ```swift
    /// system.moveToBackground(onSignals: [SIGTERM, SIGINT])
    /// ```
    ///
    /// - Parameter signals: Signal numbers, for example `SIGTERM` and `SIGINT`. A signal whose
    ///   handler cannot be installed (SIGKILL) is logged as an error and skipped.
    public func moveToBackground(onSignals signals: [Int32]) {
        let window = ShutdownSignalWindow(length: Self.shutdownSignalWindow)
        for number in signals {
            do {
                try SignalPipe.listen(to: number) { [weak self] arrival in
                    guard let self else { return }
                    guard window.startsRequest(at: arrival) else {
                        self.configuration.logger.info("signal \(number): part of the same request, ignored")
                        return
                    }
                    self.receivedShutdownSignal(number)
                }
            } catch {
                configuration.logger.error("cannot handle signal \(number): \(error)")
            }
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

/// Groups shutdown signals that arrive together: the first signal opens a window, and signals
/// that arrive before it closes belong to the same request.
package final class ShutdownSignalWindow: Sendable {
    private let length: Int64
    private let opened = Mutex<Int64?>(nil)

    package init(length: Duration) {
        let (seconds, attoseconds) = length.components
        self.length = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Whether a signal that arrived at `arrival` (nanoseconds) is a new request.
    package func startsRequest(at arrival: Int64) -> Bool {
        opened.withLock { opened in
            if let start = opened, arrival >= start, arrival - start < length { return false }
            opened = arrival
            return true
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
        ControlServer.current.withLock { $0 }?.removeSocket()
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
