import BackgroundCore

/// The response a finished download is delivered with: the whole resource's, however many
/// requests it took.
///
/// A download the system resumed itself (a retry after a dropped connection or a timeout, a
/// restart from its checkpoint after a crash or a restart of `backgroundd`) ends with a
/// `206 Partial Content` that carried only its last bytes, while the file holds the whole
/// resource and apps check `statusCode == 200`. As RFC 9110 §15.3.7.3 asks of a client that
/// combines partial content into the whole representation, it is delivered as a complete `200`:
/// the header fields of the last `200` of that body when known, those the `206` sent replacing
/// them field by field, no `Content-Range`, and `Content-Length` the whole length.
enum CompleteResponse {
    /// Fields that describe one message's framing, not the representation: never carried over.
    static let framingFields: Set<String> = ["content-range", "content-length", "transfer-encoding"]

    /// The header fields of the combined `200`.
    ///
    /// - Parameters:
    ///   - stored: the fields of the last `200` whose body the file starts with, if known.
    ///   - partial: the fields of the `206` that finished it.
    ///   - length: the whole resource's length in bytes.
    static func headers(stored: [TransferHeader]?, partial: [TransferHeader], length: Int64) -> [TransferHeader] {
        let sent = Set(partial.map { $0.name.lowercased() })
        var fields = (stored ?? []).filter {
            let name = $0.name.lowercased()
            return !framingFields.contains(name) && !sent.contains(name)
        }
        fields += partial.filter { !framingFields.contains($0.name.lowercased()) }
        fields.append(TransferHeader(name: "Content-Length", value: String(length)))
        return fields
    }
}
