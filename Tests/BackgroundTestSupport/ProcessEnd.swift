public import Foundation

extension Process {
    /// Returns when this process, started with `run()`, has ended and been reaped: the async
    /// form of `waitUntilExit()`, which would hold its thread (in a test, one of the cooperative
    /// pool's few, never made up for) for the whole wait. It checks `isRunning` every 10 ms,
    /// resumed by Dispatch's timer rather than a task's sleep, so a cancelled test cannot turn
    /// the wait into a busy loop.
    public func ended() async {
        while isRunning {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) { continuation.resume() }
            }
        }
    }

    /// Sends SIGKILL and has the process reaped on a thread of its own, without waiting: the
    /// clean-up for a `defer` in an async test, which can neither await ``ended()`` nor block.
    public func killWithoutWaiting() {
        guard isRunning else { return }
        kill(processIdentifier, SIGKILL)
        Thread.detachNewThread { [self] in waitUntilExit() }
    }
}
