import Testing

@testable import WalletOrdersHTTP

/// The slow-client handler's state machine on its own: which deadline runs in each phase of a request, and which
/// deadline may still close the connection when it fires.
@Suite(.timeLimit(.minutes(5))) struct SlowClientHandlerStateMachineTests {
    typealias Machine = SlowClientHandler.StateMachine

    @Test func aRequestRunsTheHeadDeadlineThenTheBodyDeadlineThenNone() {
        var machine = Machine()
        #expect(machine.state == .waiting)
        #expect(machine.bytesReceived() == .startDeadline(.header))
        #expect(machine.state == .readingHead)
        #expect(machine.bytesReceived() == .none, "more bytes of the same head do not restart its deadline")
        #expect(machine.headReceived() == .startDeadline(.body))
        #expect(machine.state == .readingBody)
        #expect(machine.bytesReceived() == .none)
        #expect(machine.endReceived() == .cancelDeadline)
        #expect(machine.state == .responding)
        #expect(machine.responseEnded() == .none)
        #expect(machine.state == .waiting)
    }

    @Test func aKeptAliveConnectionStartsTheHeadDeadlineAgainForItsNextRequest() {
        var machine = Machine()
        _ = machine.bytesReceived()
        _ = machine.headReceived()
        _ = machine.endReceived()
        _ = machine.responseEnded()
        #expect(machine.bytesReceived() == .startDeadline(.header))
    }

    @Test func aDeadlineClosesTheConnectionOnlyInItsOwnPhase() {
        var machine = Machine()
        #expect(!machine.timedOut(.header) && !machine.timedOut(.body), "waiting is the idle timeout's business")
        _ = machine.bytesReceived()
        #expect(machine.timedOut(.header))
        #expect(!machine.timedOut(.body))
        _ = machine.headReceived()
        #expect(!machine.timedOut(.header), "a head deadline firing late, after the head came, closes nothing")
        #expect(machine.timedOut(.body))
        _ = machine.endReceived()
        #expect(!machine.timedOut(.header) && !machine.timedOut(.body), "the service is answering")
    }

    @Test func anAnswerBeforeTheBodyEndedLeavesTheBodyDeadlineRunning() {
        var machine = Machine()
        _ = machine.bytesReceived()
        _ = machine.headReceived()
        // A 413 written while the client still sends its body.
        #expect(machine.responseEnded() == .none)
        #expect(machine.state == .readingBody)
        #expect(machine.timedOut(.body))
    }

    @Test func aStreamedBodysDeadlineRunsOnlyWhileTheServiceWaitsForItsBytes() {
        var machine = Machine()
        _ = machine.bytesReceived()
        _ = machine.headReceived()
        #expect(machine.readRequested() == .none, "an ordinary body's deadline runs from its head")
        #expect(machine.bodyStreamed() == .startDeadline(.body), "the service waits: the client has the whole timeout from now")
        #expect(machine.bytesReceived() == .cancelDeadline, "the client delivered")
        #expect(!machine.timedOut(.body), "a deadline firing after the bytes came closes nothing")
        #expect(machine.readRequested() == .startDeadline(.body))
        #expect(machine.readRequested() == .none, "asking again does not put the deadline off")
        #expect(machine.timedOut(.body), "a streamed body that stops coming is still cut off")
        // The route reads more slowly than the client sends: the service stops asking, and the client is not slow.
        #expect(machine.bytesReceived() == .cancelDeadline)
        #expect(!machine.timedOut(.body))
        #expect(machine.endReceived() == .cancelDeadline)
        _ = machine.responseEnded()
        // The next request on the connection is an ordinary one again.
        #expect(machine.bytesReceived() == .startDeadline(.header))
        _ = machine.headReceived()
        #expect(machine.bytesReceived() == .none)
        #expect(machine.timedOut(.body))
    }

    @Test func aBodyStreamedWhileTheServiceIsNotAskingRunsNoDeadline() {
        var machine = Machine()
        _ = machine.bytesReceived()
        _ = machine.headReceived()
        #expect(machine.bodyStreamed() == .cancelDeadline)
        #expect(!machine.timedOut(.body))
        #expect(machine.readRequested() == .startDeadline(.body))
    }

    @Test func aStreamedBodyAfterTheBodyEndedChangesNothing() {
        var machine = Machine()
        _ = machine.bytesReceived()
        _ = machine.headReceived()
        _ = machine.endReceived()
        #expect(machine.bodyStreamed() == .none)
        #expect(machine.state == .responding)
    }
}
