// background-test-app: the app process the process-control and daemon tests start.
//
// It runs its arguments as steps, in order, then exits 0:
//
//   sleep <seconds>|forever     sleep (a frozen app sleeps longer)
//   lock flock|posix|ofd <path> open <path> (created if missing) and hold an exclusive lock on it
//   open <path>                 open <path> (created if missing) and keep it open, unlocked
//   fork                        start a child in the same process group that sleeps for ever
//   escape                      start a process outside it, as a daemonizer does: a child that
//                               calls setsid and forks, the grandchild sleeping for ever
//                               ("child <grandchild>"), the child exiting
//   ready                       write "ready\n" to the connection (or standard output)
//   cgroup                      write "cgroup <path>": its own cgroup v2 path, from /proc/self/cgroup
//   report                      write one line: "pid=<p> pgid=<g> cwd=<dir> connection=<fd|none> fds=<0,1,2,...>"
//   echo                        copy lines from the connection back to it until it closes
//   exit <code>                 exit with <code> now
//   crash <signal>              die by <signal> (its default action: SIGSEGV, SIGABRT...)
//
// The connection is the descriptor named by BACKGROUND_CONNECTION_FD (the daemon passes an
// already-connected socket as descriptor 3); without it, "ready", "report" and "fork" write to
// standard output. A bad argument exits 64 with one line on standard error.
//
//   background-test-app lock posix /srv/group/db ready sleep forever
//   background-test-app report echo

#if canImport(Glibc)
import Glibc
#endif

/// The descriptor lines are written to and "echo" reads from.
let connection: Int32? = getenv("BACKGROUND_CONNECTION_FD").flatMap { Int32(String(cString: $0)) }
let output = connection ?? 1
/// Locks stay held while the program runs: their descriptors are never closed.
nonisolated(unsafe) var heldDescriptors: [Int32] = []

func fail(_ message: String) -> Never {
    let line = "background-test-app: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(64)
}

func writeLine(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    var written = 0
    while written < bytes.count {
        let result = bytes[written...].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
        if result < 0 && errno == EINTR { continue }
        if result <= 0 { fail("cannot write to descriptor \(output): errno \(errno)") }
        written += result
    }
}

func sleepFor(_ argument: String) {
    if argument == "forever" {
        while true { pause() }
    }
    guard let seconds = Double(argument), seconds >= 0 else { fail("sleep: '\(argument)' is not a number of seconds") }
    var time = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
    var left = timespec()
    while nanosleep(&time, &left) != 0 && errno == EINTR { time = left }
}

func lock(_ kind: String, _ path: String) {
    let descriptor = open(path, O_RDWR | O_CREAT, 0o600)
    guard descriptor >= 0 else { fail("lock: cannot open \(path): errno \(errno)") }
    var region = flock()
    region.l_type = Int16(F_WRLCK)
    region.l_whence = Int16(SEEK_SET)
    let result: Int32
    switch kind {
    case "flock": result = flock(descriptor, LOCK_EX)
    case "posix": result = fcntl(descriptor, F_SETLKW, &region)
    case "ofd": result = fcntl(descriptor, 38, &region)  // F_OFD_SETLKW
    default: fail("lock: '\(kind)' is not flock, posix or ofd")
    }
    guard result == 0 else { fail("lock \(kind) \(path): errno \(errno)") }
    heldDescriptors.append(descriptor)
}

func report() {
    var directory = [CChar](repeating: 0, count: Int(PATH_MAX))
    let cwd =
        getcwd(&directory, directory.count) != nil
        ? String(decoding: directory.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
    var descriptors: [Int32] = []
    if let stream = opendir("/proc/self/fd") {
        let own = dirfd(stream)
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let number = Int32(name), number != own { descriptors.append(number) }
        }
        closedir(stream)
    }
    let fds = descriptors.sorted().map(String.init).joined(separator: ",")
    writeLine(
        "pid=\(getpid()) pgid=\(getpgrp()) cwd=\(cwd) connection=\(connection.map(String.init) ?? "none") fds=\(fds)"
    )
}

/// The path on the `0::` line of `/proc/self/cgroup`.
func ownCgroup() -> String {
    let file = open("/proc/self/cgroup", O_RDONLY)
    guard file >= 0 else { fail("cgroup: cannot open /proc/self/cgroup: errno \(errno)") }
    defer { close(file) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
    guard count > 0 else { fail("cgroup: cannot read /proc/self/cgroup") }
    let text = String(decoding: buffer[..<count], as: UTF8.self)
    let line = text.split(separator: "\n").first { $0.hasPrefix("0::") }
    return line.map { String($0.dropFirst(3)) } ?? "none"
}

func echo() {
    guard let connection else { fail("echo: no BACKGROUND_CONNECTION_FD") }
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { return }
        _ = buffer.withUnsafeBytes { write(connection, $0.baseAddress, count) }
    }
}

func crash(_ argument: String) -> Never {
    guard let number = Int32(argument), number > 0, number < 32 else {
        fail("crash: '\(argument)' is not a signal number")
    }
    signal(number, SIG_DFL)
    raise(number)
    fail("crash: signal \(number) did not end the process")
}

nonisolated(unsafe) var steps = CommandLine.arguments.dropFirst()
func next(_ step: String) -> String {
    guard let value = steps.popFirst() else { fail("\(step): missing argument") }
    return value
}
while let step = steps.popFirst() {
    switch step {
    case "sleep": sleepFor(next(step))
    case "lock":
        let kind = next(step)
        lock(kind, next(step))
    case "open":
        let path = next(step)
        let descriptor = open(path, O_RDWR | O_CREAT, 0o600)
        guard descriptor >= 0 else { fail("open: cannot open \(path): errno \(errno)") }
        heldDescriptors.append(descriptor)
    case "fork":
        let child = fork()
        if child == 0 { while true { pause() } }
        guard child > 0 else { fail("fork: errno \(errno)") }
        writeLine("child \(child)")
    case "escape":
        let child = fork()
        if child == 0 {
            _ = setsid()
            let grandchild = fork()
            if grandchild == 0 { while true { pause() } }
            writeLine("child \(grandchild)")
            _exit(0)
        }
        guard child > 0 else { fail("escape: errno \(errno)") }
        var status: Int32 = 0
        _ = waitpid(child, &status, 0)
    case "ready": writeLine("ready")
    case "report": report()
    case "cgroup": writeLine("cgroup " + ownCgroup())
    case "echo": echo()
    case "exit":
        guard let code = Int32(next(step)) else { fail("exit: not a number") }
        exit(code)
    case "crash": crash(next(step))
    default: fail("unknown step '\(step)' (sleep, lock, open, fork, escape, ready, cgroup, report, echo, exit, crash)")
    }
}
exit(0)
