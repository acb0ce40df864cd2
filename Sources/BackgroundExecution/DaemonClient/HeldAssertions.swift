import BackgroundCore
import BackgroundProtocol
import Dispatch

/// The assertions an app's process holds, by identifier, for its declaration to a daemon that
/// restarted (``AppDeclaration``).
///
/// Identifiers increase, so it is an array sorted by identifier: beginning appends, and ending
/// the newest (the common case) removes the last entry, as ``ExpirationHandlerTable`` does.
struct HeldAssertions: Sendable {
    private(set) var all: [DeclaredAssertion] = []

    mutating func insert(_ assertion: DeclaredAssertion) {
        if let last = all.last, last.id > assertion.id {
            let index = all.firstIndex { $0.id > assertion.id } ?? all.endIndex
            all.insert(assertion, at: index)
        } else {
            all.append(assertion)
        }
    }

    /// Removes an assertion; whether it was held.
    mutating func remove(_ id: AssertionID) -> Bool {
        if all.last?.id == id {
            all.removeLast()
            return true
        }
        guard let index = all.firstIndex(where: { $0.id == id }) else { return false }
        all.remove(at: index)
        return true
    }
}

/// A round trip waiting for its answer: the caller blocks on it, the reader thread resolves it.
final class RoundTrip: @unchecked Sendable {
    // `answer` is written once, before `done` is signalled, and read after the wait returns.
    private let done = DispatchSemaphore(value: 0)
    private var answer: SystemMessage?
    /// Runs on the reader thread with the answer, before its effects are carried out (the
    /// launch handler a registration records must be in place before anything can use it).
    let onAnswer: (@Sendable (SystemMessage) -> Void)?

    init(onAnswer: (@Sendable (SystemMessage) -> Void)? = nil) {
        self.onAnswer = onAnswer
    }

    func resolve(_ answer: SystemMessage?) {
        self.answer = answer
        done.signal()
    }

    /// Waits for the answer; nil when the connection broke first.
    func wait() -> SystemMessage? {
        done.wait()
        return answer
    }
}
