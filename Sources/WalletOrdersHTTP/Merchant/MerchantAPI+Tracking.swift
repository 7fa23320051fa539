import Foundation
import Hummingbird
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersTracking

/// `POST /api/v1/tracking-events`: what carriers said about parcels, from a merchant's key (its own orders) or a
/// partner's (its merchants' orders).
extension MerchantAPI {
    /// A thousand events with long descriptions stay well under this.
    static let trackingBodyLimit = 2 * 1_024 * 1_024

    @Sendable func trackingEvents(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let sender: TrackingSender
        if let partner = context.partner {
            sender = .partner(partner)
        } else {
            sender = .merchant(try context.requireMerchant())
        }
        let body = try await request.json(limit: Self.trackingBodyLimit)
        guard let list = body["events"]?.arrayValue, body.objectValue?.count == 1 else {
            throw APIError(
                .badRequest,
                "the body is {\"events\": [...]}, one object per event",
                problems: [OrderProblem(path: "events", message: "is required, an array, and the only member")]
            )
        }
        guard (1...OrderService.maxTrackingEventsPerRequest).contains(list.count) else {
            throw APIError(
                .badRequest,
                "send 1 to \(OrderService.maxTrackingEventsPerRequest) events a request",
                problems: [OrderProblem(path: "events", message: "holds \(list.count)")]
            )
        }
        let now = service.now()
        let events = list.enumerated().map { index, value in TrackingEvent.decode(value, at: "events[\(index)]", now: now) }
        let results = try await service.track(events, from: sender)
        return JSONResponse.make(.ok, .object(["results": try JSONValue.encoding(results)]))
    }
}
