import BackgroundCore

extension EmbeddedSystem.State {
    /// Hands an event to the core and takes its answer into the buffer; with
    /// ``EmbeddedSystem/Configuration/encodesMessages`` both cross the encoding boundary a
    /// transport to another process would (``EncodingBoundary``): the event as an `AppMessage`,
    /// the reply and the effects as a `SystemMessage`, each as bytes decoded on the other side;
    /// then the app's grant state, pushed as a `SystemMessage.state`.
    mutating func exchange(_ event: Event, at now: Instant) throws(BackgroundSystemError) -> Reply? {
        guard let app = encodingFor else { return try core.handle(event, at: now, into: &buffer) }
        guard let received = EncodingBoundary.cross(event) else { return nil }
        let reply: Reply?
        do {
            reply = try core.handle(received, at: now, into: &buffer)
        } catch {
            pushGrantState(of: app, at: now)
            throw error
        }
        pushGrantState(of: app, at: now)
        guard let answer = EncodingBoundary.cross(reply: reply, effects: buffer) else { return nil }
        buffer = answer.effects
        return answer.reply
    }

    /// Sends the app's side the state it decides its begins from, after every answer (a daemon
    /// sends it when it changes).
    private mutating func pushGrantState(of app: AppID, at now: Instant) {
        if let pushed = EncodingBoundary.cross(core.grantState(of: app, at: now)) { grant.update(pushed) }
    }
}

extension EmbeddedSystem {
    /// `beginBackgroundTask` as a transport across a process boundary answers it (with
    /// ``Configuration/encodesMessages``): decided at once from the pushed grant state, with an
    /// identifier the app's side allocates; a granted begin is sent one way, and the system
    /// revokes it on arrival if its own verdict differs (``Effect/assertionRevoked(_:_:reason:)``).
    func beginWithoutRoundTrip(
        named name: String,
        at site: CallSite,
        expirationHandler: (@MainActor @Sendable () -> Void)?,
        now: Instant
    ) -> AssertionID? {
        let (decision, effects) = state.withLock { state -> (Result<AssertionID, GrantDenial>, [Effect]) in
            let decision = state.grant.begin(at: now)
            guard case .success(let id) = decision else { return (decision, []) }
            _ = state.tables.recordBegin(id, handler: expirationHandler)
            let event = Event.assertionBegun(
                app,
                id,
                name: name,
                origin: site,
                hasExpirationHandler: expirationHandler != nil
            )
            state.handleInfallible(event, at: now)  // one way: the reply is not waited for
            _ = persistBuffered(&state, keepingFailedChanges: true)
            return (decision, state.takeEffects())
        }
        switch decision {
        case .success(let id):
            perform(effects, at: now)
            return id
        case .failure(let denial):
            // What the core answers a denied begin with (S2: its interpreter calls the handler).
            let denied = Effect.deniedBegin(app, name: name, reason: denial.reason)
            perform(denied, at: now, deniedHandler: expirationHandler)
            return nil
        }
    }
}
