/// Waits until `condition` holds, looking again every `interval`, for up to `timeout`; answers whether it held.
///
/// The deadline is generous on purpose: it bounds a test that would otherwise wait forever, not how fast the thing
/// happens. A cold or busy machine (a first run, CI beside other work) may take many times longer than a warm one.
public func eventually(
    timeout: Duration = .seconds(60),
    interval: Duration = .milliseconds(50),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
        try? await Task.sleep(for: interval)
    }
}
