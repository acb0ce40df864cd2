// daemon-test-app: an app process that speaks the daemon's protocol, for the daemon's tests.
//
// It says hello on the connection it inherited (descriptor BACKGROUND_CONNECTION_FD, as the
// daemon starts apps) or on the socket in BACKGROUNDD_SOCKET, as the app BACKGROUND_APP, then
// runs its arguments in order and answers what the daemon pushes, until the daemon closes the
// connection:
//
//   register <identifier>   register a launch handler (before launch finishes)
//   finish                  finish launching
//   submit <identifier>     submit a processing request with no earliest date
//   later <s> <identifier>  submit a processing request due in <s> seconds (boot clock)
//   leak <name>             begin a background task and never end it
//   lock <path>             open <path> (created if missing) and hold an exclusive flock on it
//   hold <mode> <path>      begin the activity of the background mode <mode> (audio, location, …),
//                           answer what the daemon pushes meanwhile, and end it once <path> exists
//   reconnect               from now on, when the daemon goes away, connect again to the socket in
//                           BACKGROUNDD_SOCKET and say hello again, as the app's runtime does after a
//                           restart of the daemon (else the app exits 0 when the daemon goes away)
//   exit                    exit 0 once the arguments before it are answered
//   user:<step>             <step> only when launched by the user (BACKGROUND_LAUNCH_REASON=user)
//
// Pushed and answered effects are answered as an app's runtime would: tasks are completed with
// success, expiration handlers return (without ending the task: a leak stays a leak), lifecycle
// callbacks return. One line per effect goes to standard error.

import BackgroundCore
import BackgroundProtocol

#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    let line = "daemon-test-app: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(64)
}

func note(_ message: String) {
    let line = "daemon-test-app[\(getpid())]: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

func connection() -> Int32 {
    if let inherited = getenv("BACKGROUND_CONNECTION_FD").flatMap({ Int32(String(cString: $0)) }) { return inherited }
    guard let fd = connectToSocket() else { fail("cannot connect to the daemon's socket: errno \(errno)") }
    return fd
}

/// A new connection to the socket in BACKGROUNDD_SOCKET, or nil.
func connectToSocket() -> Int32? {
    guard let path = getenv("BACKGROUNDD_SOCKET").map({ String(cString: $0) }) else {
        fail("neither BACKGROUND_CONNECTION_FD nor BACKGROUNDD_SOCKET is set")
    }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard result == 0 else {
        close(fd)
        return nil
    }
    return fd
}

guard let bundle = getenv("BACKGROUND_APP").map({ String(cString: $0) }) else { fail("BACKGROUND_APP is not set") }
let app = AppID(bundle)
// One thread, the program's: the globals are never shared.
nonisolated(unsafe) var fd = connection()
nonisolated(unsafe) var decoder = FrameDecoder()
nonisolated(unsafe) var reconnects = false
/// How many times the app connected again; answers waited for across one are lost.
nonisolated(unsafe) var reconnections = 0

/// The daemon went away: connect again (for up to 120 s) and say hello; exits without `reconnect`.
func connectAgain() {
    guard reconnects else { exit(0) }
    close(fd)
    decoder = FrameDecoder()
    for _ in 0..<2400 {
        if let fresh = connectToSocket() {
            fd = fresh
            reconnections += 1
            note("connected again")
            send(.hello(ClientHello(role: .app(app))))
            return
        }
        usleep(50_000)  // the daemon is starting again
    }
    fail("the daemon did not come back within 120 s")
}

func send(_ request: DaemonRequest) {
    guard let bytes = try? Frame.encode(ProtocolCodec.encode(request)) else { fail("cannot encode \(request)") }
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return connectAgain() }  // the daemon went away: this message is lost
        written += count
    }
}

func send(_ event: Event) { send(.app(.event(event))) }

func receive() -> DaemonResponse? {
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        do {
            if let payload = try decoder.nextFrame() {
                return try ProtocolCodec.decode(DaemonResponse.self, from: payload)
            }
        } catch {
            fail("a malformed message from the daemon: \(error)")
        }
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else {
            guard reconnects else { return nil }
            connectAgain()
            continue
        }
        decoder.append(chunk[0..<count])
    }
}

/// Answers an effect as the runtime would.
func carryOut(_ effect: Effect) {
    note("\(effect)")
    switch effect {
    case .runTasks(_, let runs):
        for run in runs { send(.completeTask(app, run.id, success: true)) }
    case .expireTask(_, let run):
        send(.completeTask(app, run, success: false))
    case .runExpirationHandler(_, let id):
        send(.expirationHandlerReturned(app, id))
    case .deliverDidEnterBackground:
        send(.didEnterBackgroundReturned(app))
    case .deliverBackgroundWake:
        send(.backgroundWakeReturned(app))
    default:
        break
    }
}

/// Handles one response as the runtime would; whether it was an answer.
func handle(_ response: DaemonResponse) -> Bool {
    switch response {
    case .system(.answer(let reply, let effects)):
        if let reply { note("answer: \(reply)") }
        effects.forEach(carryOut)
        return true
    case .system(.pushed(let effects)):
        effects.forEach(carryOut)
    case .refused(let refusal):
        fail("refused: \(refusal)")
    case .welcome(let welcome):
        note("welcome again: \(welcome.incarnation?.description ?? "?"), \(welcome.state?.description ?? "?")")
    default:
        break
    }
    return false
}

/// Handles responses until `answers` answers have arrived (or, with nil, until the end).
func pump(answers: Int?) {
    var left = answers
    let connection = reconnections
    while left.map({ $0 > 0 }) ?? true {
        guard let response = receive() else { exit(0) }
        if reconnections != connection { left = left.map { _ in 0 } }  // the answer was lost with the daemon
        if handle(response) { left = left.map { $0 - 1 } }
    }
}

/// Holds `mode`'s activity until `release` exists (checked every 50 ms), answering what the daemon
/// pushes meanwhile, then ends it (a one-way message: no answer).
func hold(_ mode: BackgroundMode, until release: String) {
    send(.beginModeActivity(app, mode))
    pump(answers: 1)
    while access(release, F_OK) != 0 {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 50) > 0 else { continue }
        guard let response = receive() else { exit(0) }
        _ = handle(response)
        // Frames that arrived with it are already read: handle them before polling again.
        while let payload = try? decoder.nextFrame() {
            guard let buffered = try? ProtocolCodec.decode(DaemonResponse.self, from: payload) else {
                fail("a malformed message from the daemon")
            }
            _ = handle(buffered)
        }
    }
    note("ending '\(mode)'")
    send(.endModeActivity(app, mode))
}

send(.hello(ClientHello(role: .app(app))))
let first = receive()
if case .refused(let refusal)? = first { fail("refused: \(refusal)") }
guard case .welcome(let welcome)? = first else { fail("no welcome") }
note("welcome: \(welcome.incarnation?.description ?? "?"), \(welcome.state?.description ?? "?")")
let launchedByUser = getenv("BACKGROUND_LAUNCH_REASON").map { String(cString: $0) } == "user"
var steps = Array(CommandLine.arguments.dropFirst())
while !steps.isEmpty {
    var step = steps.removeFirst()
    if step.hasPrefix("user:") {
        step.removeFirst(5)
        if !launchedByUser {
            if ["register", "submit", "leak"].contains(step), !steps.isEmpty { steps.removeFirst() }
            if step == "later", steps.count >= 2 { steps.removeFirst(2) }
            continue
        }
    }
    func argument() -> String {
        guard !steps.isEmpty else { fail("\(step) needs an argument") }
        return steps.removeFirst()
    }
    switch step {
    case "register": send(.registerTaskHandler(app, identifier: argument()))
    case "finish": send(.finishLaunching(app))
    case "submit": send(.submitTaskRequest(app, TaskRequest(identifier: argument(), kind: .processing)))
    case "later":
        guard let seconds = Int64(argument()) else { fail("later: not a number of seconds") }
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        let due = Instant(offset: .seconds(Int64(now.tv_sec) + seconds))
        send(.submitTaskRequest(app, TaskRequest(identifier: argument(), kind: .processing, earliestBegin: due)))
    case "leak": send(.beginAssertion(app, name: argument(), origin: CallSite(), hasExpirationHandler: true))
    case "lock":
        let path = argument()
        let descriptor = open(path, O_RDWR | O_CREAT, 0o600)  // kept open: the lock stays held
        guard descriptor >= 0, flock(descriptor, LOCK_EX) == 0 else { fail("lock \(path): errno \(errno)") }
        note("locked \(path)")
        continue  // nothing was sent: no answer to wait for
    case "hold":
        let mode = BackgroundMode(rawValue: argument())
        guard mode.isActivity else { fail("hold: '\(mode)' is not a mode an activity holds") }
        hold(mode, until: argument())
        continue  // answered inside
    case "exit":
        exit(0)
    case "reconnect":
        reconnects = true
        continue
    default: fail("unknown step \(step)")
    }
    pump(answers: 1)
}
pump(answers: nil)
