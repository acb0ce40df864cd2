import BackgroundCore
import BackgroundProtocol

extension DaemonConnection {
    /// A transfer notice from the daemon (protocol version 3). The last part of an attach's
    /// answer answers the oldest round trip, as every answer does.
    ///
    /// Partial: background sessions do not use the daemon yet; notices other than an attach's
    /// answer are logged and dropped.
    func receiveTransfer(_ notice: TransferNotice, _ message: SystemMessage) {
        switch notice {
        case .attached(_, _, _, complete: true):
            let waiter = state.withLock { $0.waiters.isEmpty ? nil : $0.waiters.removeFirst() }
            waiter?.resolve(message)
        case .attached, .wroteData, .sentData, .completed, .resumeData, .handleEvents:
            logger.debug("\(app): a transfer notice with no session to take it")
        }
    }
}
