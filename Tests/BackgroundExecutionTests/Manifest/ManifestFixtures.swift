import BackgroundCore
import BackgroundExecution
import Foundation
import Testing

/// Manifests written out as their files would be, and helpers to load them.
enum ManifestFixtures {
    /// A typical `Info.plist`, with a key the loader ignores (`CFBundleName`).
    static let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>CFBundleIdentifier</key>
            <string>com.foo.app</string>
            <key>CFBundleName</key>
            <string>Foo</string>
            <key>BGTaskSchedulerPermittedIdentifiers</key>
            <array>
                <string>com.foo.app.refresh</string>
                <string>com.foo.app.cleanup</string>
                <string>com.foo.app.continued.*</string>
            </array>
            <key>UIBackgroundModes</key>
            <array>
                <string>fetch</string>
                <string>processing</string>
                <string>audio</string>
            </array>
        </dict>
        </plist>
        """

    /// The same manifest as JSON.
    static let json = """
        {
          "CFBundleIdentifier": "com.foo.app",
          "CFBundleName": "Foo",
          "BGTaskSchedulerPermittedIdentifiers": ["com.foo.app.refresh", "com.foo.app.cleanup", "com.foo.app.continued.*"],
          "UIBackgroundModes": ["fetch", "processing", "audio"]
        }
        """

    /// What both files contain.
    static let expected = AppManifest(
        bundleIdentifier: "com.foo.app",
        permittedTaskIdentifiers: ["com.foo.app.refresh", "com.foo.app.cleanup", "com.foo.app.continued.*"],
        backgroundModes: [.fetch, .processing, .audio]
    )

    /// An XML property list whose top-level dictionary holds `body` and nothing else.
    static func rawPlist(_ body: String) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
            \(body)
            </dict>
            </plist>
            """.utf8
        )
    }

    /// A plist with `CFBundleIdentifier` set to `app` and `body` after it.
    static func plist(app: String = "com.example.app", _ body: String) -> Data {
        rawPlist("<key>CFBundleIdentifier</key><string>\(app)</string>\n\(body)")
    }

    /// `<key>key</key><array>…</array>` with one `<string>` per entry.
    static func stringArray(_ key: String, _ entries: [String]) -> String {
        "<key>\(key)</key><array>" + entries.map { "<string>\($0)</string>" }.joined() + "</array>"
    }

    /// The error that loading `data` throws; fails the test if it loads.
    static func error(
        loading data: Data,
        format: ManifestFormat? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ManifestError {
        try #require(throws: ManifestError.self, sourceLocation: sourceLocation) {
            try AppManifest(data: data, format: format)
        }
    }
}

/// A fresh directory under the system's temporary directory, removed by ``remove()``.
struct TemporaryManifestDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("manifest-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `data` to `name` in the directory and returns its URL.
    func write(_ data: Data, to name: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try data.write(to: file)
        return file
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
