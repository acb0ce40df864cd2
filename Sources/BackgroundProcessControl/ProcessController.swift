/// What the daemon needs from the operating system to govern app processes: start them, freeze
/// and thaw them, kill them, learn how they ended, and find the file locks they hold.
///
/// ``LinuxProcessController`` is the real one (cgroup v2 freezer in a delegated subtree, or
/// SIGSTOP/SIGCONT of each app's process group). Tests of the daemon's logic can use a fake:
/// every requirement takes and returns plain values.
///
/// ```swift
/// let control = try LinuxProcessController(configuration: .init())
/// print(control.freezeMechanism)            // cgroup v2 freezer in /sys/fs/cgroup/unified/backgroundd
/// let app = try control.spawn(SpawnRequest(label: "com.example.news", executable: "/opt/news/news",
///                                          workingDirectory: "/var/lib/apps/news", connection: socket))
/// let took = try await control.freeze(app)  // returns once the kernel reports it frozen
/// try control.thaw(app)
/// try control.kill(app)
/// let exit = await control.exit(of: app)    // .signaled(SIGKILL)
/// ```
public protocol ProcessController: Sendable {
    /// How this controller freezes apps, chosen once at start-up; `bgctl status` shows its
    /// description.
    var freezeMechanism: FreezeMechanism { get }

    /// Starts an app: its executable, arguments, environment and working directory, with the
    /// request's connection as an inherited descriptor and, when cgroups are in use, already in
    /// its own cgroup when its first instruction runs.
    ///
    /// - Throws: ``ProcessControlError`` when the process could not be started (the executable
    ///   is missing or not executable, the working directory is missing, the cgroup cannot be
    ///   created); nothing is left behind.
    func spawn(_ request: SpawnRequest) throws(ProcessControlError) -> AppProcess

    /// Freezes every process of the app and returns once the kernel reports them frozen.
    ///
    /// - Returns: the time from the call to the confirmation.
    /// - Throws: ``ProcessControlError`` if the app has exited, or it was not frozen within the
    ///   configured timeout (it is then thawed again, never left half-frozen).
    @discardableResult
    func freeze(_ process: AppProcess) async throws(ProcessControlError) -> Duration

    /// Lets every process of a frozen app run again. Thawing a running app does nothing.
    func thaw(_ process: AppProcess) throws(ProcessControlError)

    /// Kills every process of the app with `SIGKILL`, frozen or not. Killing an app that has
    /// already exited does nothing. Its end is reported by ``exit(of:)`` and ``exits()``.
    /// A handle the controller does not know (not its own, or forgotten long after its exit)
    /// throws ``ProcessControlError/Code/unknownProcess``.
    func kill(_ process: AppProcess) throws(ProcessControlError)

    /// How the app's main process ended; returns at once if it already has. The most recent
    /// exits are kept (4096 in ``LinuxProcessController``); an older one, or a handle this
    /// controller did not make, is answered `.exited(code: -1)`, the status unknown.
    func exit(of process: AppProcess) async -> ProcessExit

    /// Every exit of a process this controller started, from now on, in the order they were
    /// reaped. Each call returns a new stream; the stream ends when the controller does.
    func exits() -> AsyncStream<ProcessExit>

    /// The file locks the app's processes hold on files under `sharedDirectories`: what iOS
    /// ends an app with `0xdead10cc` for if it is suspended holding one.
    ///
    /// Locks are matched by device and inode against the files the app's processes have open,
    /// so open-file-description locks (which `/proc/locks` shows with pid -1) count too.
    /// Sorted by path, then kind.
    func locksHeld(
        by process: AppProcess,
        under sharedDirectories: [String]
    ) throws(ProcessControlError) -> [HeldLock]

    /// Takes over the apps a previous run of the daemon started that still run (after a crash
    /// or `kill -9` of the daemon), so they can be frozen, thawed, killed and watched again.
    /// Their state is left as it was: a frozen app stays frozen. Leftovers of dead runs with
    /// no process in them are removed. A fake need not implement it: the default finds none.
    func adoptSurvivors() throws(ProcessControlError) -> [SurvivingApp]

    /// Takes a running process this controller did not start (an app the user started, which
    /// connected to the daemon itself) under its control, so that it can be frozen, thawed and
    /// killed like a started one: moved into a cgroup of its own in the subtree where cgroups
    /// are in use, else frozen with signals if it leads its own process group. Its exit is
    /// reported like an adopted survivor's, the status unknown. A fake need not implement it:
    /// the default refuses, and the daemon then says the app is not frozen, and why.
    ///
    /// - Throws: ``ProcessControlError`` naming why the process cannot be controlled.
    func admit(pid: Int32, label: String) throws(ProcessControlError) -> AppProcess
}

extension ProcessController {
    /// No survivors: for fakes and controllers without cgroups.
    public func adoptSurvivors() throws(ProcessControlError) -> [SurvivingApp] { [] }

    /// Refuses: this controller controls only the processes it starts.
    public func admit(pid: Int32, label: String) throws(ProcessControlError) -> AppProcess {
        throw ProcessControlError(
            .unknownProcess,
            operation: "admit \(label) (pid \(pid))",
            reason: "this process control freezes only the processes it starts"
        )
    }
}
