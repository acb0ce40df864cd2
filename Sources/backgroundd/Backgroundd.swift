import ArgumentParser
import BackgroundCore
import BackgroundDaemon
import BackgroundDevice
import BackgroundPaths
import BackgroundProcessControl
import CommandOutput
import Foundation
import Logging
import ServiceLifecycle

/// `backgroundd`: the background execution system as a Linux daemon.
@main
struct Backgroundd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backgroundd",
        abstract: "The background execution system as a daemon: apps connect over a Unix-domain socket.",
        discussion: """
            With no options: state in $XDG_STATE_HOME/backgroundd (else ~/.local/state/backgroundd; \
            as root /var/lib/backgroundd), the socket in $XDG_RUNTIME_DIR/backgroundd/backgroundd.sock \
            (else <state>/run/backgroundd.sock; as root /run/backgroundd/backgroundd.sock, or \
            <state>/run/backgroundd.sock with another state directory), manifests in <state>/apps; as \
            root every app under a uid of its own. SIGTERM or SIGINT shuts it down gracefully. Under \
            systemd it serves the socket passed to it (LISTEN_FDS), tells readiness, stopping and \
            watchdog pings to $NOTIFY_SOCKET, and logs with syslog priorities when its standard \
            error is the journal (docs/systemd.md). Exit status: docs/exit-codes.md.
            """,
        version: ProjectVersion.current
    )

    @Option(help: "The state directory (store, journal, reports, manifests).")
    var stateDir: String?

    @Option(help: "The socket's path.")
    var socket: String?

    @Option(help: "The manifests directory.")
    var apps: String?

    @Option(help: "The policy: ios (Apple's numbers) or server.")
    var policy: String = "ios"

    @Option(help: "The background time budget in seconds (default: the policy's; iOS gives 30).")
    var backgroundTime: Double?

    @Option(
        help: """
            Process control: auto (cgroup v2 freezer, else SIGSTOP/SIGCONT), signals (SIGSTOP/SIGCONT \
            of process groups, without trying cgroups) or none (track states only).
            """
    )
    var processControl: String = "auto"

    @Option(
        help: """
            The cgroup subtree's name in the daemon's cgroup (one name). Apps a previous run started \
            are found there after a restart; two daemons with different state directories need \
            different subtrees.
            """
    )
    var cgroupSubtree: String = "backgroundd"

    @Option(
        help: """
            Per-app uids: auto, the default (each app under a uid of its own from 200000-265535 when \
            the daemon runs as root, else every app under the daemon's uid), off (every app under the \
            daemon's uid: weaker, apps can then signal and ptrace each other and read each other's \
            files), or <first>-<last> (that range; needs root). SECURITY.md says what each mode \
            guarantees.
            """
    )
    var appUsers: String = "auto"

    @Option(help: "With per-app uids: the directory of the apps' containers (default <state>/containers).")
    var containers: String?

    @Option(
        help:
            "Device conditions: machine (read the probes: sysfs, netlink, input, PSI, D-Bus) or none (a server's defaults)."
    )
    var deviceProbes: String = "machine"

    @Flag(help: "Accept bgctl device set/clear: overrides of the probed conditions, for development.")
    var developerMode = false

    @OptionGroup var logging: LoggingOptions

    static func main() async {
        await CommandEntry.main(Backgroundd.self)
    }

    func run() async throws {
        let systemPolicy = try chosenPolicy()
        let environment = ProcessInfo.processInfo.environment
        for (flag, value) in [("--state-dir", stateDir), ("--socket", socket), ("--apps", apps)] {
            if let value, !value.hasPrefix("/") { throw ValidationError("\(flag): \(value) is not an absolute path") }
        }
        let activated: ActivatedSocket?
        do {
            activated = try SocketActivation.take(environment: environment)
        } catch {
            throw CommandFailure(error.exitStatus, error.subject, error.message)
        }
        // A socket the service manager passed is the daemon's socket unless one is named: then
        // the two must be the same (DaemonServer.start says so otherwise).
        var namedSocket = socket
        if namedSocket == nil, environment["BACKGROUNDD_SOCKET"] == nil { namedSocket = activated?.path }
        guard
            let paths = DaemonPaths(environment: environment, state: stateDir, socket: namedSocket, manifests: apps)
        else {
            throw CommandFailure(
                .usage,
                "state directory",
                "neither $XDG_STATE_HOME nor $HOME is usable: pass --state-dir"
            )
        }
        if let activated, activated.path != paths.socket {
            throw CommandFailure(
                .usage,
                "socket activation",
                "the service manager passed \(activated.path), but the socket is \(paths.socket) (--socket, $BACKGROUNDD_SOCKET)"
            )
        }
        guard !cgroupSubtree.isEmpty, !cgroupSubtree.contains("/"), ![".", ".."].contains(cgroupSubtree),
            !cgroupSubtree.hasPrefix("cgroup.")
        else {
            throw ValidationError("--cgroup-subtree: \(cgroupSubtree) is not one cgroup name")
        }
        let isolation = try appIsolation(state: paths.state)
        let logger = logging.logger(label: "backgroundd")
        let (processes, freezer) = try appProcesses(paths: paths, isolation: isolation, logger: logger)
        var service = DaemonService(
            paths: paths,
            policy: systemPolicy,
            processes: processes,
            isolation: isolation,
            logger: logger
        )
        service.deviceSettings = try deviceSettings(freezer: freezer)
        service.activatedSocket = activated
        do {
            service.notifySocket = try NotifySocket(environment: environment)
        } catch {
            logger.warning("the service manager is not told how the daemon is: \(error)")
        }
        service.watchdogInterval = ServiceWatchdog.interval(environment: environment, processID: getpid())
        let group = ServiceGroup(
            configuration: .init(services: [service], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        do {
            try await group.run()
        } catch let error as DaemonError {
            throw CommandFailure(error.exitStatus, error.subject, error.message)
        }
    }
}

extension Backgroundd {
    /// `--policy` with `--background-time` applied.
    func chosenPolicy() throws -> SystemPolicy {
        var systemPolicy: SystemPolicy
        switch policy {
        case "ios": systemPolicy = .iOS
        case "server": systemPolicy = .server(grace: .seconds(30))
        default: throw ValidationError("--policy: \(policy) is not ios or server")
        }
        if let backgroundTime {
            guard backgroundTime.isFinite, backgroundTime > 0, backgroundTime <= 1e6 else {
                throw ValidationError(
                    "--background-time: \(backgroundTime) is not a number of seconds above 0 and at most 1000000"
                )
            }
            systemPolicy.backgroundTimeBudget = .milliseconds(Int64(backgroundTime * 1000))
        }
        return systemPolicy
    }

    /// `--process-control`: the apps' processes spawned, frozen and killed by a
    /// `LinuxProcessController` (and the freezer it chose), or only tracked (`none`, or when
    /// process control is not available here).
    func appProcesses(
        paths: DaemonPaths,
        isolation: AppIsolation,
        logger: Logger
    ) throws -> (any AppProcesses, FreezeMechanism?) {
        let processes: any AppProcesses
        var freezer: FreezeMechanism?
        switch processControl {
        case "none":
            processes = UnmanagedProcesses()
        case "auto", "signals":
            do {
                // On SIGSTOP/SIGCONT the apps' pids are recorded, so a restart finds them again.
                let configuration = ProcessControlConfiguration(
                    freezer: processControl == "signals" ? .processGroupSignals : .automatic,
                    subtreeName: cgroupSubtree,
                    pidRecordDirectory: paths.state + "/processes"
                )
                let controller = try LinuxProcessController(configuration: configuration)
                freezer = controller.freezeMechanism
                processes = SpawnedAppProcesses(
                    controller: controller,
                    socketPath: paths.socket,
                    isolation: isolation,
                    logger: logger
                )
            } catch {
                logger.error("process control is not available, apps are tracked only: \(error)")
                processes = UnmanagedProcesses()
            }
        default:
            throw ValidationError("--process-control: \(processControl) is not auto, signals or none")
        }
        return (processes, freezer)
    }

    /// `--app-users` and `--containers`: per-app uids, or every app under the daemon's uid.
    func appIsolation(state: String) throws -> AppIsolation {
        if let containers, !containers.hasPrefix("/") || containers.split(separator: "/").contains("..") {
            throw ValidationError("--containers: \(containers) is not an absolute path without '..'")
        }
        let requested: AppUserRange?
        switch appUsers {
        case "off": requested = nil
        case "auto": requested = .standard
        default:
            do {
                requested = try AppUserRange(parsing: appUsers)
            } catch {
                throw ValidationError("--app-users: \(error.message)")
            }
        }
        do {
            return try AppIsolation.choose(
                requested: requested,
                explicit: !["auto", "off"].contains(appUsers),
                containers: containers ?? AppIsolation.defaultContainers(state: state),
                effectiveUID: UInt32(geteuid())
            )
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// The probes `--device-probes` names: the machine's read PSI from the apps' cgroup subtree
    /// when the cgroup freezer is in use, else the system's file.
    func deviceSettings(freezer: FreezeMechanism?) throws -> DaemonDevice.Settings {
        switch deviceProbes {
        case "none":
            return DaemonDevice.Settings(developerMode: developerMode)
        case "machine":
            var cgroup: String?
            if case .cgroupFreezer(let subtree)? = freezer {
                cgroup = String(subtree.drop(while: { $0 == "/" }))
            }
            return DaemonDevice.Settings(sources: .machine(cgroup: cgroup), developerMode: developerMode)
        default:
            throw ValidationError("--device-probes: \(deviceProbes) is not machine or none")
        }
    }
}

extension DaemonError {
    var exitStatus: ExitStatus {
        switch code {
        case .unsafeDirectory: return .permissionDenied
        case .badManifest, .store: return .badInput
        case .socket: return .cannotCreateOutput
        case .alreadyRunning: return .unavailable
        case .badConfiguration: return .usage
        }
    }

    var subject: String { "" }
}
