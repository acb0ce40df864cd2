import BackgroundExecution
import BackgroundSimulator
import Foundation
import Testing

/// Background modes and silent pushes on the virtual phone, with app code written as an iOS app
/// writes it (issue 11 §1, §2).
@MainActor
@Suite("Simulator: background modes and silent pushes")
struct ModesSimulatorTests {
    @Test("A softphone holds its call for 20 minutes in the background; the invariants hold; then it is suspended")
    func softphoneCall() {
        let simulator = Simulator(configuration: .init(seed: 3))
        let phone = simulator.install("com.example.softphone", permittedTaskIdentifiers: [], backgroundModes: [.voip]) {
            process in
            let call = UIApplication.shared.beginCall()  // CXProvider.reportNewIncomingCall on iOS
            process.after(.seconds(20 * 60)) { call.end() }
        }
        simulator.user.open(phone)
        simulator.advance(by: .seconds(60))
        simulator.user.goHome()
        simulator.advance(by: .seconds(10 * 60))
        #expect(simulator.state(of: phone) == .background)
        simulator.advance(by: .seconds(10 * 60))
        #expect(simulator.state(of: phone) == .suspended)
        #expect(simulator.violations.isEmpty)
        #expect(simulator.reports.isEmpty)
    }

    @Test("simulator.push wakes a suspended app's delegate with the payload; a force-quit app gets nothing")
    func pushReachesTheDelegate() {
        let simulator = Simulator(configuration: .init(seed: 4))
        let received = Box()
        let chat = simulator.install(
            "com.example.chat",
            permittedTaskIdentifiers: [],
            backgroundModes: [.remoteNotification]
        ) {
            process in
            process.delegate = ChatDelegate(received: received)
        }
        simulator.user.open(chat)
        simulator.advance(by: .seconds(60))
        simulator.user.goHome()
        simulator.advance(by: .seconds(60))
        #expect(simulator.state(of: chat) == .suspended)
        simulator.push(chat, payload: #"{"aps":{"content-available":1},"thread":42}"#)
        simulator.advance(by: .seconds(5))
        #expect(received.threads == [42])
        #expect(simulator.state(of: chat) == .suspended)
        simulator.user.forceQuit(chat)
        simulator.push(chat)
        simulator.advance(by: .seconds(3600))
        #expect(received.threads == [42])
        #expect(simulator.violations.isEmpty)
    }
}

@MainActor
private final class Box {
    var threads: [Int] = []
}

@MainActor
private final class ChatDelegate: NSObject, UIApplicationDelegate {
    let received: Box
    init(received: Box) { self.received = received }

    func application(
        _ application: UIApplication,
        didReceiveRemoteNotification userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
    ) {
        received.threads.append(userInfo["thread"] as? Int ?? -1)
        completionHandler(.newData)
    }
}
