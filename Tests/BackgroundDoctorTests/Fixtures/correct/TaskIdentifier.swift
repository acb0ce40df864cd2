import Foundation

/// The app's background task identifiers, as listed in Info.plist.
enum TaskIdentifier {
    static let refresh = "\(Bundle.main.bundleIdentifier!).refresh"
    static let cleanup = (Bundle.main.bundleIdentifier ?? "com.example.notes") + ".db-cleanup"
}

enum ExportContext: String {
    case pdf = "export.pdf"
}
