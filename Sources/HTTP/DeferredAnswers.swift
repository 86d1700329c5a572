import CMicroHTTPD

// Deferred answers and the group flush (see ``HTTPServer``): the first request deferred since
// the last flush leads; when the polling thread comes back to it, and no other request is in
// progress (or the group is large enough, or it went round ``HTTPServer/maxGatherPasses``
// times), one call of the server's `flush` answers every deferred request. All on the polling
// thread.

/// Queues the handler's answer, or suspends the connection when it is deferred (its request's
/// body, `bodyBytes` long, then counts toward ``HTTPServer/Options/gatherBytes``).
func answer(
    _ response: HTTPResponse, bodyBytes: Int, state: RequestState, on connection: OpaquePointer,
    context: ServerContext
) -> MHD_Result {
    guard response.isDeferred else { return queue(response, on: connection, context: context, id: state.id) }
    guard context.flush != nil else {
        return queue(
            .error(500, code: "internal_error", message: "the handler deferred a request that nothing answers"),
            on: connection, context: context, id: state.id)
    }
    MHD_suspend_connection(connection)
    state.deferred = true
    context.waiting.append((connection, state))
    context.waitingBytes += bodyBytes
    _ = context.deferredCount.wrappingAdd(1, ordering: .relaxed)
    if context.waiting.count == 1 {
        // Resumed now, it comes back once the loop has read what is ready meanwhile.
        state.leads = true
        MHD_resume_connection(connection)
    }
    return .YES
}

/// A deferred request's connection is back: the leader flushes, each queues its answer.
func resumed(_ state: RequestState, on connection: OpaquePointer, context: ServerContext) -> MHD_Result {
    guard state.deferred else { return .YES }
    if state.leads {
        if state.gatherPasses < HTTPServer.maxGatherPasses, context.waitingBytes < context.options.gatherBytes,
            context.active.load(ordering: .relaxed) > context.waiting.count
        {
            // Other requests are being read or answered: once more round the loop for them.
            state.gatherPasses += 1
            MHD_suspend_connection(connection)
            MHD_resume_connection(connection)
            return .YES
        }
        flushWaiting(context)
    }
    guard let response = state.response else { return .YES }
    state.deferred = false
    state.response = nil
    return queue(response, on: connection, context: context, id: state.id)
}

/// Answers every waiting request with one call of `flush` and resumes their connections.
private func flushWaiting(_ context: ServerContext) {
    let waiting = context.waiting
    context.waiting = []
    context.waitingBytes = 0
    let responses = context.flush?() ?? []
    for (index, entry) in waiting.enumerated() {
        entry.state.response =
            index < responses.count
            ? responses[index]
            : .error(500, code: "internal_error", message: "the deferred request was not answered")
        let wasLeader = entry.state.leads
        entry.state.leads = false
        if !wasLeader, !entry.state.completed { MHD_resume_connection(entry.connection) }
    }
    _ = context.deferredCount.wrappingSubtract(waiting.count, ordering: .releasing)
}

/// A leader closed before its flush (the client went away): the next one leads, or, with none
/// left, the flush runs now (its answers have nobody to go to).
func handOffLead(from state: RequestState, context: ServerContext) {
    state.leads = false
    if let next = context.waiting.first(where: { !$0.state.completed }) {
        next.state.leads = true
        MHD_resume_connection(next.connection)
    } else {
        flushWaiting(context)
    }
}
