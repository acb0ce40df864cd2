import SwiftUI

struct SettingsView: View {
    @State private var status = "unknown"

    var body: some View {
        Form {
            Text("Background refresh: \(status)")
        }
        .task {
            status = await BackgroundStatus.current()
        }
    }
}
