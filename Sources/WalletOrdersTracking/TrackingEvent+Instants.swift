import Foundation
import WalletOrdersModel

/// Which instants an event may name. Decided here once, for every way events come in (the tracking events API, the
/// providers' webhooks, events kept until an order holds their tracking number), so that one event dated in the
/// year 9999 cannot make every later real one stale, and no absurd date reaches Wallet.
extension TrackingEvent {
    /// The earliest instant an event may name, `2000-01-01T00:00:00Z`: no parcel this service follows moved before.
    /// A zero or missing time read as a count of seconds lands in 1970, before it.
    public static let earliestInstant = Date(timeIntervalSince1970: 946_684_800)
    /// How far after the service's `now` an event may have happened: senders' clocks run ahead and carriers write
    /// local times with the wrong offset, by hours, not by days.
    public static let occurredAtLead: TimeInterval = 3 * 86_400
    /// How far after the service's `now` a delivery may be expected: a parcel a year away is no estimate.
    public static let estimatedDeliveryLead: TimeInterval = 365 * 86_400

    /// Whether `date` can be when an event happened, at `now`: not before `earliestInstant`, at most `occurredAtLead`
    /// after `now`. False for NaN.
    public static func isPlausibleOccurrence(_ date: Date, now: Date) -> Bool {
        isWithin(date, now: now, lead: occurredAtLead)
    }

    /// Whether `date` can be when a parcel is expected, at `now`: not before `earliestInstant`, at most
    /// `estimatedDeliveryLead` after `now`. False for NaN.
    public static func isPlausibleDelivery(_ date: Date, now: Date) -> Bool {
        isWithin(date, now: now, lead: estimatedDeliveryLead)
    }

    /// Compared as Doubles: Date's `>=` and `<=` are `Comparable`'s, the negation of `<`, and so true for NaN.
    private static func isWithin(_ date: Date, now: Date, lead: TimeInterval) -> Bool {
        let seconds = date.timeIntervalSince1970
        return seconds >= earliestInstant.timeIntervalSince1970 && seconds <= now.timeIntervalSince1970 + lead
    }

    /// What is wrong with this event's instants at `now` (the service's clock): none when `occurredAt` and
    /// `estimatedDeliveryAt` fall in their windows, else one problem for each field outside, naming the window. Paths
    /// are under `path` (`events[3]`), or the bare field names when it is empty.
    public func instantProblems(now: Date, at path: String = "") -> [OrderProblem] {
        func field(_ name: String) -> String { path.isEmpty ? name : "\(path).\(name)" }
        var problems: [OrderProblem] = []
        if !Self.isPlausibleOccurrence(occurredAt, now: now) {
            problems.append(
                OrderProblem(
                    path: field("occurredAt"),
                    message: "must be from \(RFC3339.format(Self.earliestInstant)) to \(Self.days(Self.occurredAtLead)) days after now ("
                        + "\(RFC3339.format(now.addingTimeInterval(Self.occurredAtLead)))), not \(RFC3339.format(occurredAt))"
                )
            )
        }
        if let estimatedDeliveryAt, !Self.isPlausibleDelivery(estimatedDeliveryAt, now: now) {
            problems.append(
                OrderProblem(
                    path: field("estimatedDeliveryAt"),
                    message: "must be from \(RFC3339.format(Self.earliestInstant)) to \(Self.days(Self.estimatedDeliveryLead)) days after now ("
                        + "\(RFC3339.format(now.addingTimeInterval(Self.estimatedDeliveryLead)))), not "
                        + RFC3339.format(estimatedDeliveryAt)
                )
            )
        }
        return problems
    }

    private static func days(_ interval: TimeInterval) -> Int { Int(interval / 86_400) }
}
