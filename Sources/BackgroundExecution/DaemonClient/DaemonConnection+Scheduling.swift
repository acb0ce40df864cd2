import BackgroundCore
package import BackgroundProtocol
import Foundation

// MARK: The app runtime's transport: messages to backgroundd

extension DaemonConnection {
    /// Sends the event as a round trip and waits for the answer (``roundTrip(_:sentOnce:onAnswer:)``:
    /// sent again on the next connection when the current one breaks, for at most
    /// ``Configuration/reconnectionWait``). A registration is never sent twice: when the
    /// connection breaks after it was sent, it is ``ExchangeOutcome/lost``.
    package func exchange(
        _ event: Event,
        recording: @escaping @Sendable (Reply?, inout RuntimeTables) -> Void
    ) -> ExchangeOutcome {
        let sentOnce: Bool
        if case .registerTaskHandler = event { sentOnce = true } else { sentOnce = false }
        // Recorded before the answer's effects, and before the caller goes on.
        let result = roundTrip(.event(event), sentOnce: sentOnce) { [weak self] answer in
            guard case .answer(let reply, _) = answer else { return }
            self?.withTables { recording(reply, &$0) }
        }
        switch result {
        case .answered(.answer(let reply, _)): return .answered(reply)
        case .answered: return .failed("backgroundd answered with another kind of message")
        case .lost: return .lost
        case .noConnection: return .failed("backgroundd is not connected")
        }
    }

    /// Asks the daemon and waits for its answer (a round trip, as ``exchange(_:recording:)``).
    package func ask(_ query: AppQuery, reply: @escaping @Sendable (AppQueryAnswer?) -> Void) {
        guard case .answered(.queryAnswer(let answer)) = roundTrip(.query(query)) else { return reply(nil) }
        reply(answer)
    }
}
