import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client is too slow to send a request: its head not complete `headerTimeout` after
/// its first byte, or its body not complete `bodyTimeout` after the head. A slowloris client, trickling a byte
/// now and then, would otherwise hold a connection for ever.
///
/// Hummingbird's idle timeout closes connections that send nothing at all; this handler, after the HTTP/1
/// decoder, sees the bytes that do arrive through `channelReadComplete` (the decoder passes it on even when no
/// part is complete) and the parts once decoded. One state per connection: see `SlowClientHandler+StateMachine`.
final class SlowClientHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    typealias Phase = SlowClientPhase

    private var state = StateMachine()
    /// The deadline that runs, and the phase it is for.
    private var deadline: (phase: Phase, at: NIODeadline)?
    /// The timer that looks at the deadline, and when it fires: at most one per connection, armed when a deadline
    /// starts and none is armed or the armed one fires too late. A request starts two deadlines and ends them, tens
    /// of thousands of times a second on a busy server; a timer scheduled and cancelled for each showed in the warm
    /// fetch's profile, while one that fires every ten seconds or so costs nothing.
    private var timer: (task: Scheduled<Void>, at: NIODeadline)?
    private let headerTimeout: TimeAmount?
    private let bodyTimeout: TimeAmount?
    private let onClose: @Sendable (Phase) -> Void

    init(headerTimeout: TimeAmount?, bodyTimeout: TimeAmount?, onClose: @escaping @Sendable (Phase) -> Void) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.onClose = onClose
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: apply(state.headReceived(), context)
        case .body: break
        case .end: apply(state.endReceived(), context)
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        apply(state.bytesReceived(), context)
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        apply(state.readRequested(), context)
        context.read()
    }

    /// `StreamedBody` from the route: see `StateMachine.bodyStreamed()`.
    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is StreamedBody else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        apply(state.bodyStreamed(), context)
        promise?.succeed()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { apply(state.responseEnded(), context) }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelDeadline()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelDeadline()
    }

    private func apply(_ action: StateMachine.Action, _ context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .cancelDeadline:
            deadline = nil
        case .startDeadline(let phase):
            guard let timeout = phase == .header ? headerTimeout : bodyTimeout else {
                deadline = nil
                return
            }
            let at = NIODeadline.now() + timeout
            deadline = (phase, at)
            if let timer, timer.at <= at { return }
            arm(at: at, context)
        }
    }

    /// Arms the timer for `at`, in place of one armed for later.
    private func arm(at: NIODeadline, _ context: ChannelHandlerContext) {
        timer?.task.cancel()
        let loop = context.eventLoop.assumeIsolated()
        timer = (loop.scheduleTask(deadline: at) { [self] in fired(context) }, at)
    }

    /// The timer fired: the connection closes if its deadline passed in the phase it was for, and the timer is
    /// armed again for a deadline still to come.
    private func fired(_ context: ChannelHandlerContext) {
        timer = nil
        guard let deadline else { return }
        guard deadline.at <= .now() else { return arm(at: deadline.at, context) }
        self.deadline = nil
        guard state.timedOut(deadline.phase) else { return }
        onClose(deadline.phase)
        context.close(promise: nil)
    }

    private func cancelDeadline() {
        deadline = nil
        timer?.task.cancel()
        timer = nil
    }
}

/// What a route sends down its connection (`Channel.triggerUserOutboundEvent`) when it reads the request's body as
/// it comes, for as long as it keeps coming: the body's deadline then runs only while the service waits for bytes.
/// Without it, a body the route reads at its own pace (an import of a million orders) would be cut off `bodyTimeout`
/// after its head, however fast the client sent it.
struct StreamedBody: Sendable {}

/// Which timeout closed a slow client's connection: the request's head's or its body's.
public enum SlowClientPhase: String, Sendable, CaseIterable {
    case header
    case body
}
