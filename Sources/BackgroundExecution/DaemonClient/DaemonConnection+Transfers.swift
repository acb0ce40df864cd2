import BackgroundCore
import BackgroundProtocol
import Foundation

extension DaemonConnection {
    /// The transfer service of this process's background sessions under the daemon, made on
    /// first use.
    var transferClient: DaemonTransferClient {
        transferClientSlot.withLock { slot in
            if let client = slot { return client }
            let client = DaemonTransferClient(connection: self)
            slot = client
            return client
        }
    }

    /// The service background sessions use when nothing was bootstrapped and the environment
    /// selects the daemon (``SystemSelection``): the daemon connection's.
    static var processTransferService: (any TransferService)? {
        guard case .success(_?) = Configuration.fromEnvironment(ProcessInfo.processInfo.environment) else {
            return nil
        }
        return (UIApplication.shared.connection as? DaemonConnection)?.transferClient
    }

    /// Sends a transfer call one way; false without a connection.
    @discardableResult
    func sendTransfer(_ call: TransferCall) -> Bool {
        state.withLock { send(.app(.transfer(call)), in: &$0) }
    }

    /// A transfer notice from the daemon (protocol version 3), on the reader thread. The last
    /// part of an attach's answer answers the oldest round trip, as every answer does.
    func receiveTransfer(_ notice: TransferNotice, _ message: SystemMessage) {
        switch notice {
        case .attached(_, _, _, complete: true):
            let waiter = state.withLock { $0.waiters.isEmpty ? nil : $0.waiters.removeFirst() }
            waiter?.resolve(message)
        default:
            transferClient.receive(notice)
        }
    }

    /// After a (re)connection: background sessions attach again to the daemon that welcomed
    /// this process.
    func transfersReconnected() {
        transferClientSlot.withLock { $0 }?.reattach()
    }
}
