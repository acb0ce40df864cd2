import BackgroundSimulator
import BackgroundTestSupport
import Foundation
import Testing

/// Opens rendered timelines in headless Chromium: the page must parse, run its script without errors, give every lane
/// a non-zero size, keep every detail, and screenshot at the window's size.
///
/// Runs when a Chromium binary is found (`CHROMIUM_PATH`, then `chromium-headless-shell`, `chromium`,
/// `chromium-browser` on `PATH`, then `/usr/lib/chromium/…`); CI installs Debian's `chromium-headless-shell`.
@Suite("Timeline renderer: the page in headless Chromium")
struct TimelineBrowserTests {
    static let window = (width: 1600, height: 1400)

    @Test(
        "The sample night lays out every lane, runs its script without errors, keeps hostile names inert, screenshots",
        .enabled(
            if: Chromium.binary != nil || OptionalTools.required,
            "skipped: no Chromium binary found; apt-get install chromium-headless-shell (or set CHROMIUM_PATH)"
        ),
        .timeLimit(.minutes(10))  // a hang guard: Chromium at load 10–20 took over 2 minutes
    )
    func sampleNightInChromium() async throws {
        let chromium = try #require(Chromium.binary)
        let document = TimelineSampleDocuments.night
        let directory = try Chromium.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("timeline.html")
        try TimelineRenderer.html(for: document).write(to: page, atomically: true, encoding: .utf8)

        let dom = try await Chromium.run(
            chromium,
            ["--virtual-time-budget=2000", "--dump-dom", page.absoluteString],
            in: directory
        )
        #expect(dom.status == 0, "chromium --dump-dom failed: \(dom.errors)")
        let root = try #require(Chromium.rootAttributes(in: dom.output), "no <main id=\"timeline\"> in the DOM")
        #expect(root["data-js-errors"] == "0", "script errors: \(root["data-js-error-messages"] ?? "none recorded")")
        #expect(root["data-layout-ok"] == "true", "layout problems: \(root["data-layout-problems"] ?? "none recorded")")
        #expect(root["data-lane-count"] == String(4 + 5 * document.apps.count))
        #expect(root["data-detail-count"] != nil && root["data-detail-count"] == root["data-expected-details"])
        #expect(!dom.output.contains("data-pwned=\"1\""), "an injected handler ran")
        #expect(!dom.output.contains("<img"), "an injected element was parsed")

        let screenshot = directory.appendingPathComponent("timeline.png")
        let shot = try await Chromium.run(
            chromium,
            ["--screenshot=\(screenshot.path)", page.absoluteString],
            in: directory
        )
        #expect(shot.status == 0, "chromium --screenshot failed: \(shot.errors)")
        let png = try Data(contentsOf: screenshot)
        let size = try #require(Chromium.pngSize(png), "not a PNG: \(png.prefix(16).map { $0 })")
        #expect(size.width == Self.window.width && size.height == Self.window.height)
        let kept = FileManager.default.temporaryDirectory.appendingPathComponent(
            "background-simulator-timeline-check.png"
        )
        try? FileManager.default.removeItem(at: kept)
        try FileManager.default.copyItem(at: screenshot, to: kept)
        print("timeline screenshot: \(kept.path) (chromium took \(dom.seconds) s and \(shot.seconds) s)")
    }

    @Test(
        "A month of 20 apps (50 400 bars) lays out in Chromium without script errors",
        .enabled(
            if: Chromium.binary != nil || OptionalTools.required,
            "skipped: no Chromium binary found; apt-get install chromium-headless-shell (or set CHROMIUM_PATH)"
        ),
        .timeLimit(.minutes(10))  // a hang guard: Chromium at load 10–20 took over 2 minutes
    )
    func largeDocumentInChromium() async throws {
        let chromium = try #require(Chromium.binary)
        let directory = try Chromium.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("month.html")
        try TimelineRenderer.html(for: TimelineSampleDocuments.large()).write(
            to: page,
            atomically: true,
            encoding: .utf8
        )
        let dom = try await Chromium.run(
            chromium,
            ["--virtual-time-budget=5000", "--dump-dom", page.absoluteString],
            in: directory
        )
        #expect(dom.status == 0, "chromium --dump-dom failed: \(dom.errors)")
        let root = try #require(Chromium.rootAttributes(in: dom.output), "no <main id=\"timeline\"> in the DOM")
        #expect(root["data-js-errors"] == "0")
        #expect(root["data-layout-ok"] == "true", "layout problems: \(root["data-layout-problems"] ?? "none recorded")")
        print("month timeline: chromium laid it out in \(dom.seconds) s")
    }
}

/// Finds and runs headless Chromium.
enum Chromium {
    /// The flags of every run: no sandbox (containers run as root), no GPU, a fixed window and scale, a fresh profile.
    static let flags = [
        "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
        "--force-device-scale-factor=1",
        "--window-size=\(TimelineBrowserTests.window.width),\(TimelineBrowserTests.window.height)",
    ]

    /// The Chromium binary, or `nil` when there is none.
    static let binary: String? = locate()

    private static func locate() -> String? {
        let environment = ProcessInfo.processInfo.environment
        let manager = FileManager.default
        if let path = environment["CHROMIUM_PATH"], manager.isExecutableFile(atPath: path) { return path }
        let directories = (environment["PATH"] ?? "/usr/bin:/usr/local/bin").split(separator: ":")
        for name in ["chromium-headless-shell", "chromium", "chromium-browser", "headless_shell"] {
            for directory in directories where manager.isExecutableFile(atPath: "\(directory)/\(name)") {
                return "\(directory)/\(name)"
            }
        }
        let known = [
            "/usr/lib/chromium/chromium-headless-shell", "/usr/lib/chromium/headless_shell",
            "/usr/lib/chromium/chromium",
            "/usr/lib/chromium-browser/chromium-browser",
        ]
        return known.first { manager.isExecutableFile(atPath: $0) }
    }

    /// A new empty directory for one test's files and Chromium profile.
    static func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("timeline-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The result of one run: exit status, standard output, the end of standard error, and how long it took.
    struct Run {
        var status: Int32
        var output: String
        var errors: String
        var seconds: Double
    }

    /// Runs Chromium with ``flags`` and `arguments`, its profile in `directory`; killed after `timeout`.
    static func run(
        _ binary: String,
        _ arguments: [String],
        in directory: URL,
        timeout: Duration = .seconds(90)
    ) async throws
        -> Run
    {
        let profile = directory.appendingPathComponent("profile-\(UUID().uuidString)").path
        let start = ContinuousClock.now
        let result = try await runChildProcess(
            URL(fileURLWithPath: binary),
            flags + ["--user-data-dir=\(profile)"] + arguments,
            timeout: timeout
        )
        let elapsed = ContinuousClock.now - start
        return Run(
            status: result.status,
            output: result.output,
            errors: String(result.error.suffix(2000)),
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        )
    }

    /// The attributes of `<main id="timeline" …>` in a dumped DOM.
    static func rootAttributes(in dom: String) -> [String: String]? {
        guard let start = dom.range(of: "<main id=\"timeline\"") else { return nil }
        let tag = dom[start.upperBound...].prefix { $0 != ">" }
        var attributes: [String: String] = [:]
        for match in tag.matches(of: #/([a-z-]+)="([^"]*)"/#) {
            attributes[String(match.output.1)] = String(match.output.2)
        }
        return attributes
    }

    /// The width and height in a PNG's IHDR chunk, or `nil` when `data` does not start like a PNG.
    static func pngSize(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            bytes[12..<16].elementsEqual(Array("IHDR".utf8))
        else { return nil }
        let number = { (range: Range<Int>) in bytes[range].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16..<20), number(20..<24))
    }
}
