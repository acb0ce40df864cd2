/// A transfer service that runs a background session's delegate calls itself instead of on the
/// session's delegate queue: the simulator, which runs them as the app's main-actor code in
/// virtual time (as it runs launch handlers whatever queue they name), so that a run replays
/// event for event.
package protocol DelegateCallRunner: AnyObject, Sendable {
    /// Runs one delegate call (an event of the session, in order) as the app's code.
    func runDelegateCall(_ call: @escaping @Sendable () -> Void)
}
