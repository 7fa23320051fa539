extension SlowClientHandler {
    /// Where a connection is in reading a request, and which deadline runs.
    struct StateMachine {
        enum State: Equatable {
            /// No byte of a request yet (Hummingbird's idle timeout watches this).
            case waiting
            /// Bytes of a head came, not yet all of it.
            case readingHead
            /// The head came, the body has not ended.
            case readingBody
            /// The request is read; the service answers.
            case responding
        }

        enum Action: Equatable {
            case none
            case startDeadline(Phase)
            case cancelDeadline
        }

        private(set) var state = State.waiting
        /// The route reads this request's body as it comes, for as long as it keeps coming (an import): the body's
        /// deadline runs only while the service waits for its bytes, from when it asked for them.
        private(set) var streaming = false
        /// The service asked for bytes (a read went down the pipeline) and none came since. When the route reads
        /// more slowly than the client sends, the service stops asking (backpressure): that is not the client's
        /// slowness, and no deadline runs for a streamed body meanwhile.
        private(set) var awaitingBytes = false

        /// Bytes arrived: the head's deadline starts with the first of a new request; a streamed body's stops, as the
        /// client delivered.
        mutating func bytesReceived() -> Action {
            awaitingBytes = false
            if state == .readingBody && streaming { return .cancelDeadline }
            guard state == .waiting else { return .none }
            state = .readingHead
            return .startDeadline(.header)
        }

        /// The service asks for more bytes: a streamed body's deadline starts, unless it runs already.
        mutating func readRequested() -> Action {
            defer { awaitingBytes = true }
            return state == .readingBody && streaming && !awaitingBytes ? .startDeadline(.body) : .none
        }

        mutating func headReceived() -> Action {
            state = .readingBody
            streaming = false
            return .startDeadline(.body)
        }

        /// The route will read the body as it comes: a body that keeps coming is not a slow one, however long it is.
        mutating func bodyStreamed() -> Action {
            guard state == .readingBody else { return .none }
            streaming = true
            return awaitingBytes ? .startDeadline(.body) : .cancelDeadline
        }

        mutating func endReceived() -> Action {
            state = .responding
            streaming = false
            return .cancelDeadline
        }

        /// The answer is written: the connection waits for the next request.
        mutating func responseEnded() -> Action {
            // A response before the request ended (a 413 cut short): the body's deadline still runs.
            guard state == .responding else { return .none }
            state = .waiting
            return .none
        }

        /// The deadline of `phase` passed: whether the connection is to close (it is still in that phase).
        func timedOut(_ phase: Phase) -> Bool {
            switch phase {
            case .header: state == .readingHead
            case .body: state == .readingBody && (!streaming || awaitingBytes)
            }
        }
    }
}
