/// A transfer service that runs a background session's delegate calls itself instead of on the
/// session's delegate queue: the simulator, which runs them as the app's main-actor code in
/// virtual time (as it runs launch handlers whatever queue they name), so that a run replays
/// event for event.
package protocol DelegateCallRunner: AnyObject, Sendable {
    /// Runs one delegate call (an event of the session, in order) as the app's code.
    func runDelegateCall(_ call: @escaping @Sendable () -> Void)

    /// Calls `release` when the process whose code attaches a session now ends (at once if it
    /// has ended): a simulated process ends without its code invalidating its sessions, and what
    /// they hold (their tasks, which hold them in turn) must go with it, as a device frees the
    /// memory of a process that ends. Every simulated process lives in one real one, which must
    /// not grow with each that ends.
    func releaseWhenProcessEnds(_ release: @escaping @Sendable () -> Void)
}
