import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOSSL
import WalletOrdersAPNS
import WalletOrdersCrypto

/// One client connection's requests, read straight from its HTTP/2 frames and answered like APNs: no child channel
/// and no task per stream, since a push is two frames in and one out and the stand-in must keep up with a client
/// sending tens of thousands a second.
///
/// A 200 is one HEADERS frame that ends the stream, as APNs sends it; an error carries APNs' JSON in one DATA
/// frame that ends the stream.
final class APNSConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private struct PendingRequest {
        var request: LocalAPNS.Request
        /// DATA bytes received on the stream and not yet credited back with a WINDOW_UPDATE.
        var uncredited = 0
    }

    private let apns: LocalAPNS
    private let initialWindowSize: Int
    /// The connection's flow-control window is never raised from HTTP/2's 65,535 by SETTINGS; credit is
    /// given back once half of it was used.
    private let connectionWindowSize = 65_535
    private var requests: [HTTP2StreamID: PendingRequest] = [:]
    private var clientPort: Int?
    /// The certificate the client authenticated with, read once the handshake is over (at the first request).
    private var clientCertificate: Certificate??
    private var connectionUncredited = 0
    private var flushPending = false

    init(apns: LocalAPNS) {
        self.apns = apns
        initialWindowSize = apns.settings.initialWindowSize
    }

    func channelActive(context: ChannelHandlerContext) {
        clientPort = context.channel.remoteAddress?.port
        apns.connectionAccepted()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        requests.removeAll()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            if requests[frame.streamID] != nil {
                // Trailers: nothing in them matters, but they may end the request.
                if headers.endStream, let pending = requests.removeValue(forKey: frame.streamID) {
                    respond(to: pending.request, on: frame.streamID, context: context)
                }
                return
            }
            var request = Self.request(headers.headers, clientPort: clientPort, allocator: context.channel.allocator)
            request.clientCertificate = peerCertificate(context)
            if headers.endStream {
                respond(to: request, on: frame.streamID, context: context)
            } else {
                requests[frame.streamID] = PendingRequest(request: request)
            }
        case .data(let payload):
            let length = payload.data.readableBytes + (payload.paddingBytes.map { $0 + 1 } ?? 0)
            creditConnection(length, context: context)
            guard var pending = requests.removeValue(forKey: frame.streamID) else { return }
            if case .byteBuffer(var bytes) = payload.data,
                pending.request.body.readableBytes <= APNSRequest.maximumPayload
            {
                pending.request.body.writeBuffer(&bytes)
            }
            if payload.endStream {
                respond(to: pending.request, on: frame.streamID, context: context)
                return
            }
            // A body larger than a stream's window must not stall: give the stream its credit back too.
            pending.uncredited += length
            if pending.uncredited >= initialWindowSize / 2 {
                write(.windowUpdate(windowSizeIncrement: pending.uncredited), on: frame.streamID, context: context)
                pending.uncredited = 0
            }
            requests[frame.streamID] = pending
        case .rstStream:
            requests.removeValue(forKey: frame.streamID)
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if flushPending {
            flushPending = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // NIOHTTP2Handler has already answered: RST_STREAM for a stream error, GOAWAY and close for a connection error.
        apns.connection(port: clientPort, failedWith: error)
    }

    /// The client's TLS certificate, when it sent one (a provider authenticating with a certificate, not a token).
    private func peerCertificate(_ context: ChannelHandlerContext) -> Certificate? {
        if let known = clientCertificate { return known }
        let certificate = (try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self).peerCertificate)
            .flatMap { $0 }
            .flatMap { try? Certificate(Data($0.toDERBytes())) }
        clientCertificate = .some(certificate)
        return certificate
    }

    private func creditConnection(_ length: Int, context: ChannelHandlerContext) {
        connectionUncredited += length
        guard connectionUncredited >= connectionWindowSize / 2 else { return }
        write(.windowUpdate(windowSizeIncrement: connectionUncredited), on: .rootStream, context: context)
        connectionUncredited = 0
    }

    private func respond(to request: LocalAPNS.Request, on stream: HTTP2StreamID, context: ChannelHandlerContext) {
        let answer = apns.answer(request)
        guard let delay = answer.delay, delay > 0 else {
            send(answer, on: stream, context: context)
            return
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(delay * 1e9))) { [self] in
            guard context.channel.isActive else { return }
            send(answer, on: stream, context: context)
            flushPending = false
            context.flush()
        }
    }

    private func send(_ answer: LocalAPNS.Answer, on stream: HTTP2StreamID, context: ChannelHandlerContext) {
        var headers: HPACKHeaders = [":status": String(answer.status)]
        // A new value every time: indexing it would only fill the HPACK table with entries never used again.
        headers.add(name: "apns-id", value: UUID().uuidString, indexing: .nonIndexable)
        guard let body = apns.errorBody(answer) else {
            write(.headers(.init(headers: headers, endStream: true)), on: stream, context: context)
            return
        }
        headers.add(name: "content-type", value: "application/json")
        write(.headers(.init(headers: headers)), on: stream, context: context)
        let buffer = context.channel.allocator.buffer(bytes: body)
        write(.data(.init(data: .byteBuffer(buffer), endStream: true)), on: stream, context: context)
    }

    private func write(_ payload: HTTP2Frame.FramePayload, on stream: HTTP2StreamID, context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: payload)), promise: nil)
        flushPending = true
    }

    private static func request(
        _ headers: HPACKHeaders,
        clientPort: Int?,
        allocator: ByteBufferAllocator
    )
        -> LocalAPNS.Request
    {
        var request = LocalAPNS.Request(body: allocator.buffer(capacity: 2), clientPort: clientPort)
        for (name, value, _) in headers {
            switch name {
            case ":method": request.method = value
            case ":path": request.path = value
            case "apns-topic": request.topic = value
            case "apns-push-type": request.pushType = value
            case "apns-priority": request.priority = value
            case "authorization": request.authorization = value
            default: break
            }
        }
        return request
    }
}
