public import Foundation
public import FoundationNetworking

/// The completion-handler and `async` conveniences: forwarded to FoundationNetworking for a
/// default or ephemeral session; on a background session they fail as on iOS, through
/// ``BackgroundFault`` with Apple's message.
extension URLSession {
    /// Apple's message for a completion handler on a background session (reference §5.2).
    public static let backgroundCompletionHandlerMessage =
        "Completion handler blocks are not supported in background sessions. Use a delegate instead."

    private func refuseInBackground(_ api: String) -> Bool {
        guard background != nil else { return false }
        BackgroundFault.raise(BackgroundFault(api: api, message: Self.backgroundCompletionHandlerMessage))
        return true
    }

    /// The task returned after a refused call when the fault hook returned: it never runs.
    private var refusedCore: BackgroundSessionCore {
        // swift-format-ignore: NeverForceUnwrap
        background!
    }

    /// Loads the URL; the handler gets the body, the response and any error.
    public func dataTask(
        with url: URL,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDataTask {
        dataTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    /// Performs the request; the handler gets the body, the response and any error.
    public func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDataTask {
        if refuseInBackground("dataTask(with:completionHandler:)") {
            return URLSessionDataTask(background: refusedCore, identifier: 0, request: request, order: nil)
        }
        return URLSessionDataTask(
            foundation: foundationSession.dataTask(with: request, completionHandler: completionHandler)
        )
    }

    /// Downloads the URL's resource; the handler gets the file, which exists until it returns.
    public func downloadTask(
        with url: URL,
        completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDownloadTask {
        downloadTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    /// Downloads the request's resource; the handler gets the file, which exists until it returns.
    public func downloadTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDownloadTask {
        if refuseInBackground("downloadTask(with:completionHandler:)") {
            return URLSessionDownloadTask(background: refusedCore, identifier: 0, request: request, order: nil)
        }
        return URLSessionDownloadTask(
            foundation: foundationSession.downloadTask(with: request, completionHandler: completionHandler)
        )
    }

    /// Sends the file as the request's body; the handler gets the response's body.
    public func uploadTask(
        with request: URLRequest,
        fromFile fileURL: URL,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionUploadTask {
        if refuseInBackground("uploadTask(with:fromFile:completionHandler:)") {
            return URLSessionUploadTask(background: refusedCore, identifier: 0, request: request, order: nil)
        }
        return URLSessionUploadTask(
            foundation: foundationSession.uploadTask(
                with: request,
                fromFile: fileURL,
                completionHandler: completionHandler
            )
        )
    }

    /// Sends the data as the request's body; the handler gets the response's body.
    public func uploadTask(
        with request: URLRequest,
        from bodyData: Data?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionUploadTask {
        if refuseInBackground("uploadTask(with:from:completionHandler:)") {
            return URLSessionUploadTask(background: refusedCore, identifier: 0, request: request, order: nil)
        }
        return URLSessionUploadTask(
            foundation: foundationSession.uploadTask(
                with: request,
                from: bodyData,
                completionHandler: completionHandler
            )
        )
    }

    /// Loads the URL's body. (`delegate` is not used here.)
    public func data(from url: URL, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (Data, URLResponse) {
        try await data(for: URLRequest(url: url), delegate: delegate)
    }

    /// Performs the request and returns its body. (`delegate` is not used here.)
    public func data(
        for request: URLRequest,
        delegate: (any URLSessionTaskDelegate)? = nil
    ) async throws -> (Data, URLResponse) {
        try refuseAsync("data(for:delegate:)")
        return try await foundationSession.data(for: request)
    }

    /// Downloads the URL's resource to a file the caller must move. (`delegate` is not used here.)
    public func download(
        from url: URL,
        delegate: (any URLSessionTaskDelegate)? = nil
    ) async throws -> (URL, URLResponse) {
        try await download(for: URLRequest(url: url), delegate: delegate)
    }

    /// Downloads the request's resource to a file the caller must move. (`delegate` is not used here.)
    public func download(
        for request: URLRequest,
        delegate: (any URLSessionTaskDelegate)? = nil
    ) async throws -> (URL, URLResponse) {
        try refuseAsync("download(for:delegate:)")
        return try await foundationSession.download(for: request)
    }

    /// Sends the file as the request's body and returns the response's body.
    public func upload(
        for request: URLRequest,
        fromFile fileURL: URL,
        delegate: (any URLSessionTaskDelegate)? = nil
    ) async throws -> (Data, URLResponse) {
        try refuseAsync("upload(for:fromFile:delegate:)")
        return try await foundationSession.upload(for: request, fromFile: fileURL)
    }

    /// Sends the data as the request's body and returns the response's body.
    public func upload(
        for request: URLRequest,
        from bodyData: Data,
        delegate: (any URLSessionTaskDelegate)? = nil
    ) async throws -> (Data, URLResponse) {
        try refuseAsync("upload(for:from:delegate:)")
        return try await foundationSession.upload(for: request, from: bodyData)
    }

    private func refuseAsync(_ api: String) throws {
        guard background != nil else { return }
        let fault = BackgroundFault(api: api, message: Self.backgroundCompletionHandlerMessage)
        BackgroundFault.raise(fault)
        throw fault
    }
}
