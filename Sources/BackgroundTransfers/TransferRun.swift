import AsyncHTTPClient
import BackgroundCore
import Logging
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#endif

/// One transfer carried to its end: attempts, backoff between them, checkpoints, the outcome.
///
/// The run is the engine's only loop, and every way around it is bounded: at most
/// ``TransferPolicy/maximumAttempts`` failed attempts (restarts of a changed resource included)
/// within the resource timeout, so a server that lies about lengths or ranges ends in a failure,
/// never in a loop. A `206` that ends before the resource asks for the rest at once without
/// counting as a failure: each such part moves the held bytes forward, toward the known length.
struct TransferRun: Sendable {
    /// What the run reports while it goes.
    struct Reporter: Sendable {
        /// A progress event for the app.
        var event: @Sendable (TransferEvent) -> Void
        /// A checkpoint to persist; called after the partial file was flushed.
        var checkpoint: @Sendable (TransferCheckpoint) -> Void
    }

    /// What one attempt came to.
    enum AttemptResult: Sendable {
        case finished(TransferOutcome)
        /// A part of the body arrived, the rest is to ask for (a `206` ending before the resource).
        case continued
        case failed(TransferFailure)
    }

    let client: HTTPClient
    let policy: TransferPolicy
    let container: TransferContainer
    let options: TransferSessionOptions
    let reporter: Reporter
    /// Where a redirect may lead (``RedirectReach``).
    var reach: RedirectReach = .system
    /// Where a refused redirect is logged.
    var logger: Logger

    /// Runs the transfer to its end and returns its completed checkpoint.
    func run(_ start: TransferCheckpoint) async -> TransferCheckpoint {
        var transfer = start
        transfer.state = .running
        let deadline = ContinuousClock.now + .seconds(options.resourceTimeoutSeconds)
        var lastFailure = TransferFailure.permanent(TransferFailure.unknownCode, "no attempt was made")
        var attempt = 1
        var wait = Duration.zero
        while attempt <= max(1, policy.maximumAttempts) {
            if ContinuousClock.now + wait >= deadline {
                lastFailure = .permanent(TransferFailure.timedOutCode, "the resource timeout ended the transfer")
                break
            }
            if wait > .zero {
                do { try await Task.sleep(for: wait) } catch { return finish(transfer, failure: .cancelled) }
            }
            if Task.isCancelled { return finish(transfer, failure: .cancelled) }
            let isLast = attempt >= policy.maximumAttempts
            let result: AttemptResult
            switch transfer.kind {
            case .download:
                result = await DownloadAttempt(run: self, deadline: deadline, isLast: isLast).perform(&transfer)
            case .upload:
                result = await UploadAttempt(run: self, deadline: deadline, isLast: isLast).perform(&transfer)
            }
            switch result {
            case .finished(let outcome):
                transfer.state = .completed
                transfer.outcome = outcome
                return transfer
            case .continued:
                wait = .zero
                continue
            case .failed(let failure) where failure.isTransient && !Task.isCancelled:
                lastFailure = failure
                attempt += 1
                wait = policy.backoff(beforeAttempt: attempt)
            case .failed(let failure):
                return finish(transfer, failure: Task.isCancelled ? .cancelled : failure)
            }
        }
        return finish(transfer, failure: lastFailure)
    }

    private func finish(_ start: TransferCheckpoint, failure: TransferFailure) -> TransferCheckpoint {
        var transfer = start
        transfer.state = .completed
        transfer.outcome = TransferOutcome(errorCode: failure.code, errorMessage: failure.message)
        return transfer
    }

    /// The request for a transfer: its method, URL and the app's header fields.
    func request(for transfer: TransferCheckpoint) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: transfer.url)
        request.method = HTTPMethod(rawValue: transfer.method)
        for header in transfer.headers where !Self.engineOwnedHeaders.contains(header.name.lowercased()) {
            request.headers.add(name: header.name, value: header.value)
        }
        return request
    }

    /// Header fields the engine sets itself.
    static let engineOwnedHeaders: Set<String> = ["range", "if-range", "content-length", "transfer-encoding", "host"]

    /// The response's header fields, or a failure if there are more than the policy allows.
    func checkedHeaders(_ response: HTTPClientResponse) -> Result<[TransferHeader], TransferFailure> {
        let fields = response.headers.map { TransferHeader(name: $0.name, value: $0.value) }
        let bytes = TransferHeader.bytes(of: fields)
        guard fields.count <= policy.maximumHeaderFields, bytes <= policy.maximumHeaderBytes else {
            return .failure(
                .permanent(
                    TransferFailure.badServerResponseCode,
                    "the response's header fields (\(fields.count), \(bytes) bytes) exceed the limits"
                )
            )
        }
        return .success(fields)
    }
}
