public import Foundation

/// The encoding of an app manifest: an XML or binary property list, or a JSON document.
///
/// ```swift
/// ManifestFormat.detect(in: Data("bplist00".utf8))    // .binaryPropertyList
/// ManifestFormat.detect(in: Data("<?xml …".utf8))     // .xmlPropertyList
/// ManifestFormat.detect(in: Data("{}".utf8))          // .json
/// ```
public enum ManifestFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// An XML property list, as Xcode writes `Info.plist`.
    case xmlPropertyList
    /// A binary property list (`bplist00`), as it is stored in a built app.
    case binaryPropertyList
    /// A JSON object with the same keys as the property list.
    case json

    /// The format the data is in, judged by its first bytes.
    ///
    /// Data starting with `bplist` is a binary property list. Data starting with `<`, after an
    /// optional UTF-8 byte order mark and white space, is an XML property list. Anything else is
    /// taken for JSON, so a file that is none of the three fails as malformed JSON.
    ///
    /// ```swift
    /// let format = ManifestFormat.detect(in: try Data(contentsOf: url))
    /// ```
    public static func detect(in data: Data) -> ManifestFormat {
        if data.starts(with: Array("bplist".utf8)) { return .binaryPropertyList }
        var rest = data[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        let first = rest.first { byte in byte != 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D }
        return first == UInt8(ascii: "<") ? .xmlPropertyList : .json
    }

    /// How the format is named in error messages, for example `an XML property list`.
    public var description: String {
        switch self {
        case .xmlPropertyList: return "an XML property list"
        case .binaryPropertyList: return "a binary property list"
        case .json: return "a JSON document"
        }
    }
}
