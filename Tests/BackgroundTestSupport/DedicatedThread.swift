import Foundation

/// Runs `body` on a thread of its own and awaits its result: the way a test makes a call that
/// must block (a synchronous socket read, `Process.waitUntilExit()`, a semaphore) without
/// holding one of the cooperative pool's threads, which are as many as the machine's cores
/// and are not made up for while blocked (two tests blocking at once stall every other test).
public func onDedicatedThread<Value: Sendable>(
    _ body: @escaping @Sendable () throws -> Value
) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// Runs `body`, which does not throw, on a thread of its own and awaits its result.
public func onDedicatedThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
