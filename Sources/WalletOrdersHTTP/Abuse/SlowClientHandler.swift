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
    private var deadline: Scheduled<Void>?
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
            cancelDeadline()
        case .startDeadline(let phase):
            cancelDeadline()
            guard let timeout = phase == .header ? headerTimeout : bodyTimeout else { return }
            let loop = context.eventLoop.assumeIsolated()
            deadline = loop.scheduleTask(in: timeout) { [self] in
                deadline = nil
                guard state.timedOut(phase) else { return }
                onClose(phase)
                context.close(promise: nil)
            }
        }
    }

    private func cancelDeadline() {
        deadline?.cancel()
        deadline = nil
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
