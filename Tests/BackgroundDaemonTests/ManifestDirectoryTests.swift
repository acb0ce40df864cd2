import BackgroundCore
import BackgroundDaemon
import BackgroundExecution
import Foundation
import Testing

@Suite("Manifests directory")
struct ManifestDirectoryTests {
    @Test("a bad manifest is reported by name and the others load")
    func badOnesByName() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(
            "notes.json",
            manifestJSON(
                "com.example.notes",
                identifiers: ["com.example.notes.refresh"],
                modes: ["fetch"],
                executable: "/usr/bin/notes"
            )
        )
        try directory.write(
            "mail.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>com.example.mail</string>
            <key>BackgroundLaunch</key><dict>
              <key>Arguments</key><array><string>/opt/mail/mail</string><string>--headless</string></array>
              <key>WorkingDirectory</key><string>/var/lib/mail</string>
            </dict>
            </dict></plist>
            """
        )
        try directory.write("broken.json", "{ not json")
        try directory.write(
            "relative.json",
            #"{"CFBundleIdentifier": "com.example.rel", "BackgroundLaunch": {"Arguments": ["bin/rel"]}}"#
        )
        try directory.write(
            "unknown-key.json",
            #"{"CFBundleIdentifier": "com.example.k", "BackgroundLaunch": {"Arguments": ["/bin/k"], "Shell": true}}"#
        )
        try directory.write("open.json", manifestJSON("com.example.open"), mode: 0o666)
        try directory.write(".hidden.json", "ignored")
        symlink(directory.path + "/notes.json", directory.path + "/link.json")

        let loaded = try ManifestDirectory.load(from: directory.path)
        #expect(loaded.apps.map(\.id) == ["com.example.mail", "com.example.notes"])
        let mail = try #require(loaded.apps.first)
        #expect(
            mail.launch
                == LaunchCommand(
                    executable: "/opt/mail/mail",
                    arguments: ["--headless"],
                    workingDirectory: "/var/lib/mail"
                )
        )
        #expect(loaded.apps.last?.manifest.permittedTaskIdentifiers == ["com.example.notes.refresh"])
        let problems = Dictionary(uniqueKeysWithValues: loaded.problems.map { ($0.file, $0.reason) })
        #expect(
            problems.keys.sorted() == ["broken.json", "link.json", "open.json", "relative.json", "unknown-key.json"]
        )
        #expect(problems["relative.json"]?.contains("not an absolute path") == true)
        #expect(problems["unknown-key.json"]?.contains("unknown key Shell") == true)
        #expect(problems["link.json"]?.contains("link") == true)
        #expect(problems["open.json"]?.contains("written by other users") == true)
    }

    /// Issue 25, finding 5: a correctly owned manifest could name an executable that another
    /// user owns, or may replace through a directory it can write; the daemon then ran that
    /// user's code as the app's uid (as root with `--app-users off`).
    @Test("a manifest whose executable another user could replace is refused, naming the path")
    func untrustedExecutable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bin = directory.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: false)
        func executable(_ name: String, mode: Int, owner: UInt32? = nil) throws -> String {
            let path = bin + "/" + name
            try directory.write("bin/" + name, "#!/bin/sh\n", mode: mode)
            if let owner { #expect(chown(path, owner, owner) == 0) }
            return path
        }
        let good = try executable("good", mode: 0o755)
        let groupWritable = try executable("group-writable", mode: 0o775)
        // A directory others can write, without the sticky bit: anyone may rename a file in it.
        let open = directory.path + "/open"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
        chmod(open, 0o777)
        let inOpen = open + "/app"
        try directory.write("open/app", "#!/bin/sh\n", mode: 0o755)
        // A link to a file that is not safe is not safe either.
        try FileManager.default.createSymbolicLink(atPath: bin + "/link", withDestinationPath: groupWritable)
        var manifests = [
            ("good", good), ("group-writable", groupWritable), ("in-open", inOpen), ("link", bin + "/link"),
            ("not-yet", bin + "/installed-later"),
        ]
        if getuid() == 0 {  // only root can give a file away
            manifests.append(("other-user", try executable("other-user", mode: 0o755, owner: 4242)))
        }
        let manifestsDirectory = directory.path + "/apps"
        try FileManager.default.createDirectory(atPath: manifestsDirectory, withIntermediateDirectories: false)
        chmod(manifestsDirectory, 0o700)
        for (name, path) in manifests {
            try directory.write("apps/\(name).json", manifestJSON("com.example.\(name)", executable: path))
        }
        let loaded = try ManifestDirectory.load(from: manifestsDirectory)
        #expect(loaded.apps.map(\.id.bundleIdentifier) == ["com.example.good", "com.example.not-yet"])
        let reasons = Dictionary(uniqueKeysWithValues: loaded.problems.map { ($0.file, $0.reason) })
        let prefix = "names an executable that is not safe to run: "
        #expect(reasons["group-writable.json"] == prefix + groupWritable + " can be written by other users (mode 775)")
        #expect(reasons["in-open.json"] == prefix + open + " can be written by other users (mode 777)")
        #expect(reasons["link.json"] == prefix + groupWritable + " can be written by other users (mode 775)")
        if getuid() == 0 {
            #expect(
                reasons["other-user.json"]
                    == prefix + bin + "/other-user is owned by uid 4242, who could replace the executable"
            )
        }
    }

    @Test("two manifests for one app are both refused")
    func duplicates() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("a.json", manifestJSON("com.example.same"))
        try directory.write("b.json", manifestJSON("com.example.same"))
        let loaded = try ManifestDirectory.load(from: directory.path)
        #expect(loaded.apps.isEmpty)
        #expect(loaded.problems.map(\.file) == ["a.json", "b.json"])
    }
}

@Suite("Daemon paths")
struct DaemonPathsTests {
    @Test("XDG_STATE_HOME and XDG_RUNTIME_DIR when set")
    func xdg() throws {
        let paths = try #require(
            DaemonPaths(
                environment: ["HOME": "/home/me", "XDG_STATE_HOME": "/s", "XDG_RUNTIME_DIR": "/run/user/1000/"],
                effectiveUID: 1000
            )
        )
        #expect(paths.state == "/s/backgroundd")
        #expect(paths.store == "/s/backgroundd/store.sqlite")
        #expect(paths.manifests == "/s/backgroundd/apps")
        #expect(paths.socket == "/run/user/1000/backgroundd/backgroundd.sock")
    }

    @Test("without XDG_RUNTIME_DIR the socket is in the state directory; relative values are ignored")
    func fallback() throws {
        let paths = try #require(
            DaemonPaths(
                environment: ["HOME": "/home/me", "XDG_STATE_HOME": "relative", "XDG_RUNTIME_DIR": ""],
                effectiveUID: 1000
            )
        )
        #expect(paths.state == "/home/me/.local/state/backgroundd")
        #expect(paths.socket == "/home/me/.local/state/backgroundd/run/backgroundd.sock")
    }

    @Test(
        "root: /var/lib/backgroundd and /run/backgroundd, never root's home or /run/user/0; a state of its own keeps its socket"
    )
    func root() throws {
        let system = try #require(
            DaemonPaths(environment: ["HOME": "/root", "XDG_RUNTIME_DIR": "/run/user/0"], effectiveUID: 0)
        )
        #expect(system.state == "/var/lib/backgroundd")
        #expect(system.store == "/var/lib/backgroundd/store.sqlite")
        #expect(system.socket == "/run/backgroundd/backgroundd.sock")
        let own = try #require(DaemonPaths(environment: ["HOME": "/root"], state: "/srv/d", effectiveUID: 0))
        #expect(own.socket == "/srv/d/run/backgroundd.sock")
        let xdg = try #require(DaemonPaths(environment: ["XDG_STATE_HOME": "/s/"], effectiveUID: 0))
        #expect(xdg.state == "/s/backgroundd")
        #expect(xdg.socket == "/s/backgroundd/run/backgroundd.sock")
        let named = try #require(DaemonPaths(environment: ["BACKGROUNDD_SOCKET": "/r/b.sock"], effectiveUID: 0))
        #expect(named.socket == "/r/b.sock")
    }

    @Test("explicit values come first")
    func explicit() throws {
        let paths = try #require(
            DaemonPaths(environment: ["HOME": "/h"], state: "/x", socket: "/y/d.sock", manifests: "/z")
        )
        #expect(paths.state == "/x")
        #expect(paths.socketDirectory == "/y")
        #expect(paths.socketName == "d.sock")
        #expect(paths.manifests == "/z")
    }
}
