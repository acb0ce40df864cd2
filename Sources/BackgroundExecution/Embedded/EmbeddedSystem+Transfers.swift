import BackgroundControl
public import BackgroundCore
import Foundation

extension EmbeddedSystem {
    /// Lets `bgctl why` (this process's control socket) list the app's background transfers
    /// with their eligibility, beside its task requests.
    ///
    /// Without it, `why` lists the transfers of the service ``URLSession/bootstrap(_:)``
    /// installed, if that service is this app's.
    ///
    /// ```swift
    /// let transfers = EmbeddedTransfers(configuration: .init(app: app, container: container, store: store))
    /// URLSession.bootstrap(transfers)
    /// system.explainsTransfers(of: transfers)   // optional: bootstrap is enough
    /// ```
    public func explainsTransfers(of service: any TransferService) {
        state.withLock { $0.transfers = service }
    }

    /// The app's transfers that have not completed, from the service that runs them.
    func transferStatus() -> TransferStatus? {
        let chosen = state.withLock { $0.transfers } ?? URLSession.transferService
        guard let service = chosen, service.app == app else { return nil }
        return service.transferStatus()
    }

    /// One transfer as text: running, or its eligibility (instants on the service's clock).
    func transferText(_ transfer: TransferStatus.Transfer, of status: TransferStatus) -> String {
        let identifier = ControlCharacters.escaped(transfer.key.identifier)
        guard !transfer.isRunning else { return "\(identifier) (transfer): running\n" }
        let format = { (instant: Instant) in
            ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: status.originUnixSeconds + instant.seconds))
        }
        return ControlCharacters.escapedLines(transfer.eligibility.renderText(formatInstant: format))
    }

    /// The transfers `why` lists for an identifier (all of them without one).
    func transfers(matching identifier: String?, in status: TransferStatus?) -> [TransferStatus.Transfer] {
        (status?.transfers ?? []).filter { identifier == nil || $0.key.identifier == identifier }
    }

    /// The transfers of a `why --json` answer.
    func transferDocuments(matching identifier: String?, in status: TransferStatus?) -> [TransferExplanation] {
        transfers(matching: identifier, in: status).map {
            TransferExplanation(
                identifier: $0.key.identifier,
                session: $0.key.session,
                task: $0.key.task,
                state: $0.isRunning ? "running" : "waiting",
                eligibility: $0.eligibility
            )
        }
    }
}
