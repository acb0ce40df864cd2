import AsyncHTTPClient
import Foundation
import Testing

@testable import BackgroundTransfers

/// The reach rule (issue 25, finding 12) without a network: which space each address is in, how
/// hosts are read, and which redirects are followed, with host names looked up by a table.
@Suite("What a redirect may reach")
struct RedirectReachTests {
    /// Names and what they resolve to; a name not here has no address.
    static let names: [String: [String]] = [
        "public.test": ["93.184.215.14"],
        "public6.test": ["2606:4700::1111", "93.184.215.14"],
        "rebind.test": ["127.0.0.1"],
        "mixed.test": ["93.184.215.14", "127.0.0.1"],
        "lan.test": ["10.0.0.7"],
        "metadata.test": ["169.254.169.254"],
        "mine.test": ["192.0.2.2"],
    ]

    /// This machine's addresses, for the rule under test.
    static let own: Set<IPAddress> = [IPAddress(literal: "192.0.2.2")!, IPAddress(literal: "fd00::2")!]

    static let reach = RedirectReach(
        lookUp: { host, _ in names[host.lowercased()]?.compactMap { IPAddress(literal: $0) } },
        ownAddresses: { own }
    )

    @Test(
        "each address is in its space; IPv4 carried in IPv6 counts as the IPv4 address",
        arguments: [
            ("127.0.0.1", AddressSpace.thisHost), ("127.255.255.254", .thisHost), ("0.0.0.0", .thisHost),
            ("0.1.2.3", .thisHost), ("::1", .thisHost), ("::", .thisHost), ("::ffff:127.0.0.1", .thisHost),
            ("::ffff:7f00:2", .thisHost), ("::127.0.0.1", .thisHost), ("64:ff9b::7f00:1", .thisHost),
            ("::ffff:0.0.0.0", .thisHost), ("192.0.2.2", .thisHost), ("::ffff:192.0.2.2", .thisHost),
            ("fd00::2", .thisHost), ("10.1.2.3", .localNetwork), ("172.16.0.1", .localNetwork),
            ("172.31.255.255", .localNetwork), ("192.168.1.1", .localNetwork), ("169.254.169.254", .localNetwork),
            ("100.64.0.1", .localNetwork), ("198.18.0.1", .localNetwork), ("198.19.255.254", .localNetwork),
            ("::ffff:10.0.0.1", .localNetwork), ("::ffff:169.254.169.254", .localNetwork), ("fe80::1", .localNetwork),
            ("fd12:3456::1", .localNetwork), ("fc00::1", .localNetwork), ("2001:db8::1", .localNetwork),
            ("172.32.0.1", .publicInternet), ("100.128.0.1", .publicInternet), ("198.20.0.1", .publicInternet),
            ("8.8.8.8", .publicInternet), ("::ffff:8.8.8.8", .publicInternet), ("2606:4700::1111", .publicInternet),
            ("64:ff9b::808:808", .publicInternet),
        ]
    )
    func spaces(literal: String, space: AddressSpace) throws {
        let address = try #require(IPAddress(literal: literal))
        #expect(AddressSpace.of(address, ownAddresses: Self.own) == space, "\(literal)")
    }

    @Test("a literal is what inet_pton reads; other spellings are names for getaddrinfo")
    func literals() {
        #expect(IPAddress(literal: "[::1]")?.description == "::1")
        #expect(IPAddress(literal: "fe80::1%25eth0")?.description == "fe80::1")
        #expect(IPAddress(literal: "::ffff:127.0.0.1")?.embeddedIPv4?.description == "127.0.0.1")
        #expect(IPAddress(literal: "2606:4700::1111")?.urlHost == "[2606:4700::1111]")
        for name in ["127.1", "2130706433", "0x7f000001", "0177.0.0.1", "example.com", "", "[]"] {
            #expect(IPAddress(literal: name) == nil, "\(name)")
        }
    }

    @Test("localhost and names under .localhost are this host, in any case, with the root's dot")
    func localhostNames() throws {
        for url in ["http://localhost/", "http://LOCALHOST:8080/", "http://localhost./", "https://a.b.localhost/"] {
            #expect(try #require(TransferHop.Address(url)).isLocalhost, "\(url)")
        }
        for url in ["http://localhost.example.com/", "http://notlocalhost/", "http://127.0.0.1/"] {
            #expect(try #require(TransferHop.Address(url)).isLocalhost == false, "\(url)")
        }
    }

    /// What a decision came to, in a word.
    static func verdict(_ decision: RedirectReach.Decision) -> String {
        switch decision {
        case .follow: "follow"
        case .refused: "refused"
        case .unresolved: "unresolved"
        }
    }

    @Test(
        "a redirect never leads to an address more local than the server that sent it",
        arguments: [
            // From the public internet: nothing local, whatever the spelling.
            ("http://93.184.215.14/", "http://127.0.0.1:631/", "refused"),
            ("http://93.184.215.14/", "http://[::ffff:127.0.0.1]:631/", "refused"),
            ("http://93.184.215.14/", "http://[::1]/", "refused"),
            ("http://93.184.215.14/", "http://0.0.0.0:631/", "refused"),
            ("http://93.184.215.14/", "http://localhost:631/", "refused"),
            ("http://93.184.215.14/", "http://a.localhost/", "refused"),
            ("http://93.184.215.14/", "http://rebind.test/", "refused"),
            ("http://93.184.215.14/", "https://mixed.test/", "refused"),
            ("http://93.184.215.14/", "http://192.0.2.2/", "refused"),
            ("http://93.184.215.14/", "http://mine.test/", "refused"),
            ("http://93.184.215.14/", "http://169.254.169.254/latest/meta-data/", "refused"),
            ("http://93.184.215.14/", "http://metadata.test/", "refused"),
            ("http://93.184.215.14/", "http://lan.test/", "refused"),
            ("http://93.184.215.14/", "http://public.test/", "follow"),
            ("http://93.184.215.14/", "https://public6.test/", "follow"),
            ("http://93.184.215.14/", "http://8.8.8.8/", "follow"),
            ("http://93.184.215.14/", "http://nowhere.test/", "unresolved"),
            // From the local network: not this host; the local network and the internet.
            ("http://10.0.0.5/", "http://127.0.0.1/", "refused"),
            ("http://10.0.0.5/", "http://localhost/", "refused"),
            ("http://10.0.0.5/", "http://10.0.0.6/", "follow"),
            ("http://10.0.0.5/", "http://169.254.169.254/", "follow"),
            ("http://10.0.0.5/", "http://public.test/", "follow"),
            // From this host: anywhere, so local services and tests keep their redirects.
            ("http://127.0.0.1:8080/", "http://127.0.0.1:9090/", "follow"),
            ("http://localhost/", "http://[::1]/", "follow"),
            ("http://192.0.2.2/", "http://127.0.0.1/", "follow"),
            ("http://127.0.0.1/", "http://169.254.169.254/", "follow"),
            ("http://127.0.0.1/", "http://public.test/", "follow"),
            // A name counts as its least local address, never this host, unless it was pinned.
            ("https://rebind.test/", "http://127.0.0.1/", "refused"),
            ("https://mixed.test/", "http://10.0.0.1/", "refused"),
            ("https://lan.test/", "http://10.0.0.1/", "follow"),
            ("http://rebind.test/", "http://127.0.0.1/", "follow"),
            // An https redirect to the name that answered keeps to that name's certificate.
            ("https://rebind.test/", "https://rebind.test:8443/login", "follow"),
            ("https://public.test/", "https://PUBLIC.test/x", "follow"),
            ("http://public.test/", "http://public.test:631/", "follow"),
        ]
    )
    func redirects(source: String, target: String, expected: String) async throws {
        let origin = try #require(await Self.reach.origin(source))
        let decision = await Self.reach.decide(from: origin, to: target)
        #expect(Self.verdict(decision) == expected, "\(source) → \(target): \(decision)")
    }

    @Test("a refusal names the redirect's source and target and the address that made it local")
    func refusalMessage() async throws {
        let origin = try #require(await Self.reach.origin("http://93.184.215.14/start"))
        let decision = await Self.reach.decide(from: origin, to: "http://rebind.test:631/admin")
        guard case .refused(let refusal) = decision else {
            Issue.record("not refused: \(decision)")
            return
        }
        #expect(refusal.targetSpace == .thisHost)
        #expect(refusal.sourceSpace == .publicInternet)
        #expect(refusal.targetAddress?.description == "127.0.0.1")
        #expect(
            refusal.description
                == "the redirect from http://93.184.215.14/start (the public internet) to http://rebind.test:631/admin "
                + "is refused: it leads to this host (127.0.0.1), more local than the server that sent it"
        )
    }

    @Test(
        "numeric spellings getaddrinfo reads as 127.0.0.1 are caught through the system's own lookup",
        arguments: ["2130706433", "127.1", "0x7f000001", "0177.0.0.1", "0x7f.1"]
    )
    func numericSpellings(host: String) async throws {
        let origin = try #require(await RedirectReach.system.origin("http://198.51.100.7/"))
        let decision = await RedirectReach.system.decide(from: origin, to: "http://\(host):631/")
        guard case .refused(let refusal) = decision else {
            Issue.record("\(host): not refused: \(decision)")
            return
        }
        #expect(refusal.targetAddress?.description == "127.0.0.1", "\(host)")
    }

    @Test("a plain-http name is sent to the address checked, its name in Host; https keeps its name")
    func pinning() async throws {
        let origin = try #require(await Self.reach.origin("http://93.184.215.14/"))
        for (target, url, host) in [
            ("http://public.test/a?b=1", "http://93.184.215.14:80/a?b=1", "public.test"),
            ("http://user@public.test:8080", "http://93.184.215.14:8080", "public.test:8080"),
            ("http://public6.test/x", "http://[2606:4700::1111]:80/x", "public6.test"),
        ] {
            guard case .follow(let hop) = await Self.reach.decide(from: origin, to: target) else {
                Issue.record("\(target) not followed")
                continue
            }
            let request = hop.prepared(HTTPClientRequest(url: target))
            #expect(request.url == url, "\(target)")
            #expect(request.headers["Host"] == [host], "\(target)")
            #expect(hop.url == target)
        }
        guard case .follow(let secure) = await Self.reach.decide(from: origin, to: "https://public.test/a") else {
            Issue.record("https not followed")
            return
        }
        let request = secure.prepared(HTTPClientRequest(url: "https://public.test/a"))
        #expect(request.url == "https://public.test/a")
        #expect(request.headers["Host"].isEmpty)
    }

    @Test("a redirect's request: 303 and a POST's 301 become a GET; credentials stay with their origin")
    func followingRequests() throws {
        var post = HTTPClientRequest(url: "http://127.0.0.1:1/upload")
        post.method = .POST
        post.headers.add(name: "Content-Type", value: "text/plain")
        post.headers.add(name: "Authorization", value: "Bearer secret")
        post.body = .bytes(Array("x".utf8))
        let seeOther = try #require(TransferRun.request(following: post, to: "http://127.0.0.1:1/done", status: 303))
        #expect(seeOther.method == .GET)
        #expect(seeOther.body == nil)
        #expect(seeOther.headers["Content-Type"].isEmpty)
        #expect(seeOther.headers["Authorization"] == ["Bearer secret"])
        let elsewhere = try #require(TransferRun.request(following: post, to: "http://127.0.0.1:2/done", status: 302))
        #expect(elsewhere.headers["Authorization"].isEmpty)
        #expect(TransferRun.request(following: post, to: "http://127.0.0.1:1/again", status: 307) == nil)
        let get = HTTPClientRequest(url: "http://127.0.0.1:1/file")
        #expect(TransferRun.request(following: get, to: "http://127.0.0.1:1/moved", status: 308)?.method == .GET)
    }
}
