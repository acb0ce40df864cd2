import BackgroundCore
import BackgroundProtocol

/// Background transfers through the daemon: an app's `URLSession` calls (``TransferCall``) are
/// checked here, then handed to the transfer host (docs/transfers.md, "System mode").
extension DaemonEngine {
    /// A transfer call from `app`'s connection. A call that breaks a bound or names another app
    /// closes the connection, as any message the app may not send.
    func transferCall(_ call: TransferCall, from app: AppID, link: any ClientLink) {
        if let problem = call.problem(from: app) {
            logger.warning("\(app): a transfer call refused (\(problem)); connection closed")
            return refuse(link, DaemonRefusal(.notPermitted, "transfer call refused: \(problem)"))
        }
        refuse(link, DaemonRefusal(.notPermitted, "this daemon runs no background transfers"))
    }
}
