import Foundation
import Synchronization

/// Delivers Unix signals to Swift code without ever losing one.
///
/// `DispatchSource.makeSignalSource` registers with libdispatch's manager thread
/// asynchronously; a signal that arrives in between, while its disposition is `SIG_IGN`, is
/// discarded (seen in tests: SIGTERM sent right after start-up was lost, and the service never
/// shut down). Here the handler is installed synchronously with `sigaction` and does the one
/// async-signal-safe thing: it writes the signal's number to a pipe. A dispatch read source
/// drains the pipe on a background queue, and bytes wait in the pipe until it does.
enum SignalPipe {
    /// The pipe's write end, read by the C handler; set once, before any handler is installed.
    nonisolated(unsafe) private static var writeDescriptor: Int32 = -1

    private struct Registry {
        var readSource: SignalSource?
        var listeners: [Int32: [@Sendable () -> Void]] = [:]
    }

    private static let registry = Mutex(Registry())

    /// Calls `listener` (on a background queue) each time `signal` arrives, from now on.
    static func listen(to signal: Int32, _ listener: @escaping @Sendable () -> Void) {
        registry.withLock { registry in
            if registry.readSource == nil { registry.readSource = openPipe() }
            registry.listeners[signal, default: []].append(listener)
        }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            var byte = UInt8(truncatingIfNeeded: number)
            _ = write(SignalPipe.writeDescriptor, &byte, 1)
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        sigaction(signal, &action, nil)
    }

    private static func openPipe() -> SignalSource {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            preconditionFailure("pipe() failed: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(descriptors[0], F_SETFL, fcntl(descriptors[0], F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptors[1], F_SETFL, fcntl(descriptors[1], F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptors[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptors[1], F_SETFD, FD_CLOEXEC)
        writeDescriptor = descriptors[1]
        let readDescriptor = descriptors[0]
        let source = DispatchSource.makeReadSource(fileDescriptor: readDescriptor, queue: .global())
        source.setEventHandler { drain(readDescriptor) }
        source.resume()
        return SignalSource(source: source)
    }

    private static func drain(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return }
            for byte in buffer.prefix(count) {
                let listeners = registry.withLock { $0.listeners[Int32(byte)] ?? [] }
                for listener in listeners { listener() }
            }
        }
    }
}
