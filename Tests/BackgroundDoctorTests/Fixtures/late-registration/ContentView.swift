import BackgroundTasks
import SwiftUI

struct ContentView: View {
    var body: some View {
        NavigationStack {
            Text("Chats")
        }
        .onAppear {
            BGTaskScheduler.shared.register(forTaskWithIdentifier: ChatTask.index, using: nil) { task in
                task.setTaskCompleted(success: true)
            }
        }
    }
}
