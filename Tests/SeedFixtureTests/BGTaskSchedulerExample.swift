// swift-format-ignore-file
// Seed 000 ("Mastering iOS Background Execution"), the BGTaskSchedulerExample sample, copied
// verbatim except the imports: `import BackgroundTasks` and `import UIKit` became
// `import BackgroundExecution`.
import BackgroundExecution

class BGTaskSchedulerExample {

    static let appRefreshTaskIdentifier = "com.yourapp.apprefresh"
    static let dataProcessingTaskIdentifier = "com.yourapp.dataprocessing"

    func registerBackgroundTasks() {
        // Register background app refresh task
        BGTaskScheduler.shared.register(forTaskWithIdentifier: BGTaskSchedulerExample.appRefreshTaskIdentifier, using: nil) { task in
            // Perform your app refresh directly here
            self.handleAppRefreshTask(task as! BGAppRefreshTask)
        }

        // Register background processing task
        BGTaskScheduler.shared.register(forTaskWithIdentifier: BGTaskSchedulerExample.dataProcessingTaskIdentifier, using: nil) { task in
            // Perform your data processing directly here
            self.handleProcessingTask(task as! BGProcessingTask)
        }
    }

    func scheduleAppRefresh() {
        let request = BGAppRefreshTaskRequest(identifier: BGTaskSchedulerExample.appRefreshTaskIdentifier)
        // Optional: define when the earliest the task can be run
        request.earliestBeginDate = Date(timeIntervalSinceNow: 15 * 60) // Not sooner than 15 minutes from now

        do {
            try BGTaskScheduler.shared.submit(request)
            print("App refresh task scheduled.")
        } catch {
            print("Could not schedule app refresh task: \(error)")
        }
    }

    func scheduleProcessingTask() {
        let request = BGProcessingTaskRequest(identifier: BGTaskSchedulerExample.dataProcessingTaskIdentifier)
        request.requiresNetworkConnectivity = true // Only run when network is available
        request.requiresExternalPower = true       // Only run when device is charging
        request.earliestBeginDate = Date(timeIntervalSinceNow: 30 * 60) // Not sooner than 30 minutes

        do {
            try BGTaskScheduler.shared.submit(request)
            print("Processing task scheduled.")
        } catch {
            print("Could not schedule processing task: \(error)")
        }
    }

    private func handleAppRefreshTask(_ task: BGAppRefreshTask) {
        print("Handling app refresh task...")

        // Schedule a new refresh task for the future
        scheduleAppRefresh()

        // Simulate fetching new data
        let operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 1
        operationQueue.addOperation {
            print("Performing actual app refresh...")
            Thread.sleep(forTimeInterval: 5)
            print("App refresh done.")

            // Mark the task as complete
            task.setTaskCompleted(success: true)
        }

        // Provide a handler to be called if the system needs to preempt the task
        task.expirationHandler = {
            operationQueue.cancelAllOperations()
            print("App refresh task expired.")
            task.setTaskCompleted(success: false)
        }
    }

    private func handleProcessingTask(_ task: BGProcessingTask) {
        print("Handling processing task...")

        // Schedule a new processing task for the future
        scheduleProcessingTask()

        // Simulate long-running processing
        let operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 1
        operationQueue.addOperation {
            print("Performing actual processing...")
            Thread.sleep(forTimeInterval: 20) // Simulate a longer task
            print("Processing done.")

            // Mark the task as complete
            task.setTaskCompleted(success: true)
        }

        // Provide a handler to be called if the system needs to preempt the task
        task.expirationHandler = {
            operationQueue.cancelAllOperations()
            print("Processing task expired.")
            task.setTaskCompleted(success: false)
        }
    }
}
