import Testing

@testable import BackgroundProcessControl

@Suite("Process control values: what bgctl status and reports show")
struct ValueDescriptionTests {
    @Test("the freeze mechanism names itself and, for the fallback, why cgroups are not used")
    func freezeMechanism() {
        let cgroup = FreezeMechanism.cgroupFreezer(subtree: "/sys/fs/cgroup/unified/backgroundd")
        #expect(cgroup.name == "cgroup-freezer")
        #expect(cgroup.description == "cgroup v2 freezer in /sys/fs/cgroup/unified/backgroundd")
        let signals = FreezeMechanism.processGroupSignals(reason: "configured")
        #expect(signals.name == "process-group-signals")
        #expect(signals.description == "SIGSTOP/SIGCONT of each app's process group (cgroups not used: configured)")
    }

    @Test("exits read as an exit status or a named signal")
    func terminationStatus() {
        let app = AppProcess(label: "com.example.news", pid: 4242, serial: 1, cgroup: nil)
        #expect(
            ProcessExit(process: app, status: .exited(code: 3)).description
                == "com.example.news (pid 4242) exited with status 3"
        )
        #expect(
            TerminationStatus.signaled(signal: 9, coreDumped: false).description == "was killed by signal 9 (SIGKILL)"
        )
        #expect(
            TerminationStatus.signaled(signal: 11, coreDumped: true).description
                == "was killed by signal 11 (SIGSEGV), core dumped"
        )
        #expect(TerminationStatus.exited(code: 0).isSuccess)
        #expect(!TerminationStatus.signaled(signal: 15, coreDumped: false).isSuccess)
    }

    @Test("errors are one line with control characters escaped")
    func errorLine() {
        let error = ProcessControlError(.spawnFailed, operation: "spawn com.example\nevil", reason: "no such file")
        #expect(error.description == "spawn com.example\\nevil: no such file")
    }
}
