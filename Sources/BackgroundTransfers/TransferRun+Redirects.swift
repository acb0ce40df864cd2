import AsyncHTTPClient
import BackgroundCore
import Foundation
import NIOCore
import NIOHTTP1

extension TransferRun {
    /// A response, and the URL that answered it as named (never an address a name was sent to).
    struct Answer {
        var response: HTTPClientResponse
        var url: String
    }

    /// Sends `request` (the transfer's own URL) and follows its redirects one at a time, each
    /// checked by the reach rule before anything is sent to it (``RedirectReach``). The HTTP client
    /// follows none itself (`.disallow`): it could not be asked where a redirect leads before it
    /// connected there.
    ///
    /// Otherwise as AsyncHTTPClient followed them: at most ``TransferPolicy/maximumRedirects``,
    /// no URL twice (`-1007`); a `303`, and a `301` or `302` to a `POST`, become a `GET` without
    /// a body; `Authorization`, `Cookie`, `Origin` and `Proxy-Authorization` are not carried to
    /// another origin; an upload whose body would have to be sent again gets the redirect itself
    /// as its response.
    ///
    /// - Throws: a ``TransferFailure``: `-1004` for a refused redirect (with one log line naming
    ///   the transfer, the redirect's source and its target), `-1003` for a target whose name has
    ///   no address, `-1007` past the limit or on a cycle; or what the client throws.
    func send(
        _ request: HTTPClientRequest,
        for transfer: TransferCheckpoint,
        deadline: NIODeadline
    ) async throws -> Answer {
        try await send(request, for: transfer) { try await client.execute($0, deadline: deadline) }
    }

    /// ``send(_:for:deadline:)`` with each request sent by `execute` (a download reads its
    /// responses' bodies on the event loop: ``DownloadStream``).
    func send(
        _ request: HTTPClientRequest,
        for transfer: TransferCheckpoint,
        execute: (HTTPClientRequest) async throws -> HTTPClientResponse
    ) async throws -> Answer {
        guard var hop = await reach.origin(transfer.url) else {
            return Answer(response: try await execute(request), url: transfer.url)
        }
        var request = request
        var visited = [transfer.url]
        while true {
            let response = try await execute(hop.prepared(request))
            guard let target = Self.redirectTarget(of: response, from: hop.url) else {
                return Answer(response: response, url: hop.url)
            }
            guard visited.count <= policy.maximumRedirects else {
                throw TransferFailure.permanent(
                    TransferFailure.tooManyRedirectsCode,
                    "too many redirects (more than \(policy.maximumRedirects))"
                )
            }
            guard !visited.contains(target) else {
                throw TransferFailure.permanent(TransferFailure.tooManyRedirectsCode, "a redirect cycle at \(target)")
            }
            visited.append(target)
            guard let next = Self.request(following: request, to: target, status: response.status.code) else {
                return Answer(response: response, url: hop.url)
            }
            switch await reach.decide(from: hop, to: target) {
            case .follow(let nextHop):
                (hop, request) = (nextHop, next)
            case .refused(let refusal):
                let session = ControlCharacters.escaped(transfer.session)
                let named = ControlCharacters.escaped(transfer.url)
                logger.warning(
                    "\(transfer.app) transfer \(transfer.task) of \(session) (\(named)): \(ControlCharacters.escaped(refusal.description))"
                )
                throw TransferFailure.permanent(TransferFailure.cannotConnectCode, refusal.description)
            case .unresolved(let host):
                throw TransferFailure.transient(
                    TransferFailure.cannotFindHostCode,
                    "a server with the specified hostname could not be found (\(host), where a redirect led)"
                )
            }
        }
    }

    /// The absolute URL a response redirects to (``TransferHop/redirectTarget(status:location:from:)``).
    static func redirectTarget(of response: HTTPClientResponse, from url: String) -> String? {
        TransferHop.redirectTarget(
            status: response.status.code,
            location: response.headers.first(name: "Location"),
            from: url
        )
    }

    /// The request that follows a redirect to `target`, or `nil` when it would have to send a
    /// body again (an upload's file is streamed once).
    static func request(
        following request: HTTPClientRequest,
        to target: String,
        status: UInt
    ) -> HTTPClientRequest? {
        var next = request
        next.url = target
        let becomesGet =
            (status == 303 && request.method != .HEAD) || ((status == 301 || status == 302) && request.method == .POST)
        if becomesGet {
            next.method = .GET
            next.body = nil
            next.headers.remove(name: "Content-Length")
            next.headers.remove(name: "Content-Type")
        } else if request.body != nil {
            return nil
        }
        if !sameOrigin(request.url, target) {
            for name in ["Origin", "Cookie", "Authorization", "Proxy-Authorization"] { next.headers.remove(name: name) }
        }
        return next
    }

    /// Whether two URLs have the same scheme, host and written port (AsyncHTTPClient's test).
    static func sameOrigin(_ first: String, _ second: String) -> Bool {
        guard let one = URL(string: first), let other = URL(string: second) else { return false }
        return one.scheme == other.scheme && one.host == other.host && one.port == other.port
    }
}

extension TransferHop {
    /// `request` as this hop sends it: to the pinned address with the name in `Host`, or as named.
    func prepared(_ request: HTTPClientRequest) -> HTTPClientRequest {
        var prepared = request
        prepared.url = url
        prepared.headers.remove(name: "Host")
        guard case .pinned(let pinned) = route, let address else { return prepared }
        prepared.url = Self.replacingAuthority(of: url, with: "\(pinned.urlHost):\(address.port)")
        prepared.headers.replaceOrAdd(
            name: "Host",
            value: address.hasDefaultPort ? address.host : "\(address.host):\(address.port)"
        )
        return prepared
    }
}
