/// One shape of tracking number a carrier publishes, and how it checks itself: a row of the table that
/// `Carrier.recognizing(trackingNumber:)` reads. Our own table, written from the carriers' public documentation (each
/// row says where from); docs/merchant-guide.md shows it to merchants.
struct TrackingNumberFormat: Sendable {
    /// One run of characters of a pattern.
    enum Piece: Sendable {
        /// Exactly these characters (ASCII capitals and digits).
        case literal(String)
        /// One digit among these.
        case digit(among: String)
        /// As many digits as the range allows, at least its lower bound.
        case digits(ClosedRange<Int>)
        /// As many capital letters as the range allows, at least its lower bound.
        case letters(ClosedRange<Int>)
        /// As many digits or capital letters as the range allows, at least its lower bound.
        case alphanumerics(ClosedRange<Int>)
    }

    let carrier: Carrier
    /// The pieces, in order, that make up the whole number. A run takes as many characters of its class as it may,
    /// never giving any back: a run with a range is only ever followed by a run of another class, or by nothing.
    let pattern: [Piece]
    /// Numbers that fit the pattern but start with one of these are not of this format.
    let excludedPrefixes: [String]
    let check: CheckDigit

    init(_ carrier: Carrier, _ pattern: [Piece], excluding excludedPrefixes: [String] = [], check: CheckDigit) {
        self.carrier = carrier
        self.pattern = pattern
        self.excludedPrefixes = excludedPrefixes
        self.check = check
    }

    /// Whether `number` (normalised) has this shape and its check digit, if the format has one, is right.
    func matches(_ number: [UInt8]) -> Bool {
        guard fitsPattern(number) else { return false }
        for prefix in excludedPrefixes where number.starts(with: prefix.utf8) { return false }
        return check.isSatisfied(by: number)
    }

    private func fitsPattern(_ number: [UInt8]) -> Bool {
        var index = 0
        for piece in pattern {
            switch piece {
            case .literal(let text):
                for byte in text.utf8 {
                    guard index < number.count, number[index] == byte else { return false }
                    index += 1
                }
            case .digit(let among):
                guard index < number.count, isDigit(number[index]), among.utf8.contains(number[index]) else { return false }
                index += 1
            case .digits(let range):
                guard let end = run(of: isDigit, in: number, from: index, range) else { return false }
                index = end
            case .letters(let range):
                guard let end = run(of: isLetter, in: number, from: index, range) else { return false }
                index = end
            case .alphanumerics(let range):
                guard let end = run(of: { isDigit($0) || isLetter($0) }, in: number, from: index, range) else { return false }
                index = end
            }
        }
        return index == number.count
    }
}

/// Where a run of characters of one class that starts at `start` ends, taking at most `range.upperBound` of them; nil
/// when there are fewer than `range.lowerBound`.
private func run(of isInClass: (UInt8) -> Bool, in number: [UInt8], from start: Int, _ range: ClosedRange<Int>) -> Int? {
    var end = start
    while end < number.count, end - start < range.upperBound, isInClass(number[end]) { end += 1 }
    return end - start >= range.lowerBound ? end : nil
}

private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
private func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) }

extension TrackingNumberFormat {
    /// Every format recognised. A number that fits formats of two carriers is ambiguous and recognised as neither;
    /// the pairs that share a shape are named in the comments (12 digits, 15 digits).
    static let all: [TrackingNumberFormat] =
        [
            // UPS: "1Z", the shipper's 6 characters, a 2-digit service code, a 7-digit package number, a check digit.
            // The check as Google Answers 207899 ("Tracking number check digit schemes") sets out UPS's "modified MOD 10":
            // letters converted by UPS's chart, odd places once, even places twice, up to a multiple of 10.
            TrackingNumberFormat(.ups, [.literal("1Z"), .alphanumerics(15...15), .digits(1...1)], check: .ups),
            // FedEx Express (and, since 2013, Ground) 12 digits: the check as FedEx's Web API department stated it (same
            // Google Answers thread, worked on 0123 4567 8983). Shares its shape with DHL Paket's Identcode below.
            TrackingNumberFormat(.fedEx, [.digits(12...12)], check: .fedEx),
            // FedEx Ground 15 digits: the shipper's 7-digit Ground account, a 7-digit serial, a check digit (FedEx Ship
            // Manager Server User Guide, "FedEx Ground tracking numbers"); the check is GS1's modulo 10 (FedEx Ground
            // "Bar Code & Label Layout Specification", Check Digit Calculation Algorithms). Shares its shape with DPD's
            // parcel number when DPD's check character is a digit.
            TrackingNumberFormat(.fedEx, [.digits(15...15)], check: .modulo10(first: 3, second: 1, skipping: 0)),
            // FedEx Ground's 22-digit "96" barcode: the application identifier 96, 5 digits of service data, then the
            // 15-digit tracking number, whose own check digit ends it (the check covers the tracking number only, as the
            // same specification leaves the application identifier out of the SSCC's).
            TrackingNumberFormat(.fedEx, [.literal("96"), .digits(20...20)], check: .modulo10(first: 3, second: 1, skipping: 7)),
            // USPS Intelligent Mail package barcode, 22 digits: a channel application identifier 91 to 95, a 3-digit
            // service type code, the mailer's ID and a serial, a GS1 modulo 10 check digit (USPS Publication 199). FedEx
            // SmartPost and UPS Mail Innovations parcels carry these too; USPS delivers them and tracks them.
            TrackingNumberFormat(
                .usps,
                [.literal("9"), .digit(among: "12345"), .digits(20...20)],
                check: .modulo10(first: 3, second: 1, skipping: 0)
            ),
            // USPS's earlier 20-digit package identification code: a 2-digit service type code, the mailer's 9-digit DUNS
            // number, an 8-digit serial, a weighted modulo 10 check digit (USPS Publication 109, 2-8). One that starts
            // with 00 is an SSCC with its GS1 application identifier, any shipper's, not a service type code.
            TrackingNumberFormat(.usps, [.digits(20...20)], excluding: ["00"], check: .modulo10(first: 3, second: 1, skipping: 0)),
            // DHL Express waybills: 10 digits (dhl.com, "DHL Shipment Tracking Labels"), the last the first nine mod 7
            // (paketda.de, "Prüfziffern-Berechnung für Paketnummern", DHL Express 10-stellig).
            TrackingNumberFormat(.dhlExpress, [.digits(10...10)], check: .modulo7),
            // DHL Paket's 12-digit Identcode (paketda.de, same page: 201298452277), Deutsche Post's modulo 10 with
            // weights 4 and 9 (ActiveBarcode, "Identcode"). Shares its shape with FedEx's 12 digits: one in ten numbers
            // of either passes both checks and is ambiguous, as paketda.de's example and FedEx's own worked one both do.
            TrackingNumberFormat(.dhlPaket, [.digits(12...12)], check: .modulo10(first: 4, second: 9, skipping: 0)),
            // DHL Paket's 20-digit number: 00 and an SSCC under Deutsche Post's GS1 company prefix, GS1 modulo 10 (paketda.de,
            // same page: 00340433836442636597; AfterShip's documented webhook: 00340434161094042557).
            TrackingNumberFormat(.dhlPaket, [.literal("0034043"), .digits(13...13)], check: .modulo10(first: 3, second: 1, skipping: 0)),
            // DHL's licence plates (dhl.com, "DHL Shipment Tracking Labels": JJD0099999999, JVGL9999999999; paketda.de:
            // JJD1410302937991) and DHL eCommerce's GM numbers (same DHL page: GM99999999999, 10 to 39 characters). No
            // check digit is published for these: the prefix and the exact shape decide.
            TrackingNumberFormat(.dhl, [.literal("JJD"), .digits(10...18)], check: .none),
            TrackingNumberFormat(.dhl, [.literal("JVGL"), .digits(10...10)], check: .none),
            TrackingNumberFormat(.dhl, [.literal("GM"), .digits(8...37)], check: .none),
            // DPD: the 14-digit parcel number and its check character, ISO 7064 MOD 37,36 (paketda.de, same page:
            // 01015026003653c). The 14 digits alone carry no check we can verify, and are not recognised.
            TrackingNumberFormat(.dpd, [.digits(14...14), .alphanumerics(1...1)], check: .iso7064Mod37And36),
            // Amazon Logistics: TBA and 12 digits, no check digit published.
            TrackingNumberFormat(.amazonLogistics, [.literal("TBA"), .digits(12...12)], check: .none),
            // Colissimo (La Poste): 13 characters, a digit, a letter and 11 digits (colissimo.fr, "FAQ on tracking &
            // tracing a parcel": 8D00432154798), no check digit published.
            TrackingNumberFormat(.laPoste, [.digits(1...1), .letters(1...1), .digits(11...11)], check: .none),
        ] + s10Formats

    /// UPU S10 (13 characters: a 2-letter service indicator, 8 digits, a check digit, the issuing country): the
    /// country's designated operator issues them all, so the country names the carrier. Countries not listed are not
    /// recognised. Check digit: UPU standard S10 (Wikipedia's "S10 (UPU standard)" works it on 47312482, check 9), which
    /// Canada Post's "Registered Mail Envelope Layout Guide" repeats for its RN numbers.
    private static let s10Formats: [TrackingNumberFormat] = [
        ("GB", Carrier.royalMail), ("US", .usps), ("CA", .canadaPost), ("AU", .australiaPost), ("NL", .postNL),
        ("FR", .laPoste), ("DE", .deutschePost),
    ].map { country, carrier in
        TrackingNumberFormat(carrier, [.letters(2...2), .digits(9...9), .literal(country)], check: .s10)
    }
}
