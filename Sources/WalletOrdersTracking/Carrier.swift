import Foundation

/// A parcel carrier as a Wallet fulfillment names it, and the carrier's own public tracking page: what the service can
/// fill in when a shop gave a tracking number and nothing else. `Carrier.recognizing(trackingNumber:)` tells which
/// carrier a number is from; TrackingNumberFormat.swift holds the formats it knows.
public struct Carrier: Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier, for logs and configuration: `ups`, `royal-mail`.
    public let identifier: String
    /// The carrier's name as Wallet shows it in a fulfillment's `carrier`.
    public let name: String
    /// Other names shops give the carrier ("United Parcel Service"), which `isNamed(_:)` takes as well as `name`.
    public let otherNames: [String]
    /// The carrier's public tracking page, https, that the normalised tracking number completes.
    let trackingPage: String

    init(_ identifier: String, _ name: String, otherNames: [String] = [], trackingPage: String) {
        self.identifier = identifier
        self.name = name
        self.otherNames = otherNames
        self.trackingPage = trackingPage
    }

    /// The carrier's name.
    public var description: String { name }

    /// The carrier's public tracking page for `trackingNumber`, normalised as recognition reads it (spaces and dashes
    /// taken out, capitals); nil when the number is not ASCII letters and digits, or longer than any carrier's.
    public func trackingURL(for trackingNumber: String) -> URL? {
        guard let number = TrackingNumber.normalized(trackingNumber) else { return nil }
        return URL(string: trackingPage + String(decoding: number, as: UTF8.self))
    }

    /// Whether a shop's `carrier` names this carrier, as tracking events match carriers: once case, spaces and
    /// punctuation are set aside, it and one of this carrier's names start one with the other ("dhl" names DHL Express,
    /// "UPS Ground" names UPS).
    public func isNamed(_ given: String) -> Bool {
        let key = TrackingEvent.carrierKey(given)
        guard !key.isEmpty else { return false }
        return ([name] + otherNames).contains { known in
            let knownKey = TrackingEvent.carrierKey(known)
            return knownKey.hasPrefix(key) || key.hasPrefix(knownKey)
        }
    }

    /// The carrier a tracking number is from, offline, by the formats carriers publish and their check digits; nil for
    /// a number of no known format, one whose check digit is wrong, or one that fits the formats of two carriers
    /// (ambiguous: better no carrier than the wrong one). The number is read with spaces and dashes taken out and
    /// letters in capitals; anything else than ASCII letters and digits, or more than a hundred bytes, is no number.
    public static func recognizing(trackingNumber: String) -> Carrier? {
        guard let number = TrackingNumber.normalized(trackingNumber) else { return nil }
        var recognized: Carrier?
        for format in TrackingNumberFormat.all where format.matches(number) {
            if let recognized, recognized != format.carrier { return nil }
            recognized = format.carrier
        }
        return recognized
    }
}

extension Carrier {
    /// UPS.
    public static let ups = Carrier(
        "ups",
        "UPS",
        otherNames: ["United Parcel Service"],
        trackingPage: "https://www.ups.com/track?tracknum="
    )
    /// FedEx (Express and Ground).
    public static let fedEx = Carrier(
        "fedex",
        "FedEx",
        otherNames: ["Federal Express"],
        trackingPage: "https://www.fedex.com/fedextrack/?trknbr="
    )
    /// The United States Postal Service.
    public static let usps = Carrier(
        "usps",
        "USPS",
        otherNames: ["United States Postal Service", "U.S. Postal Service"],
        trackingPage: "https://tools.usps.com/go/TrackConfirmAction?tLabels="
    )
    /// DHL Express (waybill numbers).
    public static let dhlExpress = Carrier(
        "dhl-express",
        "DHL Express",
        trackingPage: "https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id="
    )
    /// DHL Paket, Deutsche Post DHL's parcel service in Germany.
    public static let dhlPaket = Carrier(
        "dhl-paket",
        "DHL Paket",
        trackingPage: "https://www.dhl.de/en/privatkunden/pakete-empfangen/verfolgen.html?piececode="
    )
    /// DHL for numbers any of its divisions may have issued (licence plates, DHL eCommerce): DHL's tracking page that
    /// finds the division.
    public static let dhl = Carrier(
        "dhl",
        "DHL",
        trackingPage: "https://www.dhl.com/global-en/home/tracking.html?submit=1&tracking-id="
    )
    /// Royal Mail.
    public static let royalMail = Carrier(
        "royal-mail",
        "Royal Mail",
        trackingPage: "https://www.royalmail.com/track-your-item#/tracking-results/"
    )
    /// DPD.
    public static let dpd = Carrier("dpd", "DPD", trackingPage: "https://tracking.dpd.de/status/en_US/parcel/")
    /// Canada Post.
    public static let canadaPost = Carrier(
        "canada-post",
        "Canada Post",
        otherNames: ["Postes Canada"],
        trackingPage: "https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor="
    )
    /// Amazon Logistics, Amazon's own delivery network.
    public static let amazonLogistics = Carrier(
        "amazon-logistics",
        "Amazon Logistics",
        trackingPage: "https://track.amazon.com/tracking/"
    )
    /// Australia Post.
    public static let australiaPost = Carrier(
        "australia-post",
        "Australia Post",
        otherNames: ["AusPost"],
        trackingPage: "https://auspost.com.au/mypost/track/details/"
    )
    /// PostNL.
    public static let postNL = Carrier("postnl", "PostNL", trackingPage: "https://jouw.postnl.nl/track-and-trace/")
    /// La Poste, and Colissimo, its parcel service.
    public static let laPoste = Carrier(
        "la-poste",
        "La Poste",
        otherNames: ["Colissimo"],
        trackingPage: "https://www.laposte.fr/outils/suivre-vos-envois?code="
    )
    /// Deutsche Post (letters, and the S10 numbers Germany issues), tracked on DHL's German site.
    public static let deutschePost = Carrier(
        "deutsche-post",
        "Deutsche Post",
        trackingPage: "https://www.dhl.de/en/privatkunden/pakete-empfangen/verfolgen.html?piececode="
    )

    /// Every carrier recognised from a tracking number.
    public static let all: [Carrier] = [
        .ups, .fedEx, .usps, .dhlExpress, .dhlPaket, .dhl, .royalMail, .dpd, .canadaPost, .amazonLogistics, .australiaPost,
        .postNL, .laPoste, .deutschePost,
    ]
}

/// Tracking numbers as recognition reads them.
enum TrackingNumber {
    /// The longest normalised number of any format (DHL eCommerce's GM and 37 digits).
    static let maxLength = 39
    /// The shortest (a DHL Express waybill).
    static let minLength = 10
    /// The most bytes read of what a shop sent: room for the longest number with a space or dash between every
    /// character and some to spare. Past it the input is no tracking number, and is not read further.
    static let maxInputBytes = 100

    /// `text` with spaces and dashes taken out and lowercase ASCII letters in capitals; nil when anything else than
    /// ASCII letters and digits is left (other Unicode digits and letters included), or when it is shorter or longer
    /// than any format. Reads at most `maxInputBytes` bytes, whatever the length of `text`.
    static func normalized(_ text: String) -> [UInt8]? {
        var number: [UInt8] = []
        number.reserveCapacity(maxLength)
        var read = 0
        for byte in text.utf8 {
            read += 1
            guard read <= maxInputBytes else { return nil }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "-"):
                continue
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                number.append(byte)
            case UInt8(ascii: "a")...UInt8(ascii: "z"):
                number.append(byte - UInt8(ascii: "a") + UInt8(ascii: "A"))
            default:
                return nil
            }
            guard number.count <= maxLength else { return nil }
        }
        return number.count >= minLength ? number : nil
    }
}
