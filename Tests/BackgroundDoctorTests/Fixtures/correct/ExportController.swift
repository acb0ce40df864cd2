import BackgroundTasks
import Foundation

/// Exports a document as PDF while the user switches away: a continued-processing task, which
/// (unlike the others) may be registered when the user starts it.
final class ExportController {
    static let identifier = "\(Bundle.main.bundleIdentifier!).\(ExportContext.pdf.rawValue)"

    func startExport() {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.identifier, using: nil) { task in
            guard let task = task as? BGContinuedProcessingTask else { return }
            task.progress.totalUnitCount = 100
            task.setTaskCompleted(success: true)
        }
        let request = BGContinuedProcessingTaskRequest(
            identifier: Self.identifier,
            title: "Exporting",
            subtitle: "Preparing the PDF"
        )
        request.strategy = .queue
        try? BGTaskScheduler.shared.submit(request)
    }
}
