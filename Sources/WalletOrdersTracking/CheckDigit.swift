/// How a tracking number checks itself: the check digit algorithms the carriers publish, each over a normalised number
/// (ASCII digits and capital letters only, at most `TrackingNumber.maxLength` of them, so that no sum here can come
/// near overflowing). Sources are cited in TrackingNumberFormat.swift, beside the formats that use each one.
enum CheckDigit: Sendable {
    /// No check character: the format is recognised by its exact shape alone.
    case none
    /// UPS `1Z`: characters 3 to 17, a letter counting as (its place in the alphabet + 1) mod 10 (A = 2, … I = 0,
    /// J = 1, …), the 1st, 3rd, … once and the 2nd, 4th, … twice; the 18th makes the sum a multiple of 10.
    case ups
    /// FedEx Express 12 digits: the first 11 weighted 1, 3, 7, 1, 3, 7, … from the right; the sum mod 11 is the 12th,
    /// a remainder of 10 written 0.
    case fedEx
    /// Modulo 10 weighted from the right: the digit before the check times `first`, the one before that `second`,
    /// and so on alternating; the last digit makes the sum a multiple of 10. The first `skipping` characters are not
    /// covered. (3, 1) is GS1's (SSCC, USPS IMpb, FedEx Ground); (4, 9) is Deutsche Post's Identcode.
    case modulo10(first: Int, second: Int, skipping: Int)
    /// UPU S10: the 8 serial digits (characters 3 to 10) weighted 8 6 4 2 3 5 9 7; the 11th character is 11 − (sum mod
    /// 11), 10 written 0 and 11 written 5.
    case s10
    /// DHL Express waybills: the first nine digits, read as a number, mod 7 is the tenth.
    case modulo7
    /// ISO/IEC 7064 MOD 37,36 (the hybrid system over 0–9 and A–Z): the last character checks all before it (DPD's
    /// check character after its 14-digit parcel number).
    case iso7064Mod37And36

    /// Whether the check character of `number` is the one its other characters make. `number` holds only what the
    /// format's pattern let through, so its length and character classes are the pattern's.
    func isSatisfied(by number: [UInt8]) -> Bool {
        switch self {
        case .none:
            return true
        case .ups:
            return upsIsSatisfied(by: number)
        case .fedEx:
            return fedExIsSatisfied(by: number)
        case .modulo10(let first, let second, let skipping):
            return modulo10IsSatisfied(by: number, weights: (first, second), skipping: skipping)
        case .s10:
            return s10IsSatisfied(by: number)
        case .modulo7:
            return modulo7IsSatisfied(by: number)
        case .iso7064Mod37And36:
            return iso7064IsSatisfied(by: number)
        }
    }
}

/// The value of an ASCII digit, nil for anything else.
private func digit(_ byte: UInt8) -> Int? {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte) - Int(UInt8(ascii: "0")) : nil
}

/// The value of a digit or capital letter in ISO 7064's alphabet (0–9, then A = 10 … Z = 35), nil for anything else.
private func alphanumericValue(_ byte: UInt8) -> Int? {
    if let value = digit(byte) { return value }
    guard (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) else { return nil }
    return Int(byte) - Int(UInt8(ascii: "A")) + 10
}

private func upsIsSatisfied(by number: [UInt8]) -> Bool {
    guard number.count == 18, let check = digit(number[17]) else { return false }
    var sum = 0
    for (place, byte) in number[2..<17].enumerated() {
        // UPS's conversion chart: A = 2, B = 3, … H = 9, I = 0, J = 1, … (the letter's ISO 7064 value − 8, mod 10).
        guard let value = digit(byte) ?? alphanumericValue(byte).map({ ($0 - 8) % 10 }) else { return false }
        sum += place % 2 == 0 ? value : 2 * value
    }
    return (10 - sum % 10) % 10 == check
}

private func fedExIsSatisfied(by number: [UInt8]) -> Bool {
    guard number.count == 12, let check = digit(number[11]) else { return false }
    let weights = [1, 3, 7]
    var sum = 0
    for (fromRight, byte) in number[0..<11].reversed().enumerated() {
        guard let value = digit(byte) else { return false }
        sum += value * weights[fromRight % 3]
    }
    return sum % 11 % 10 == check
}

private func modulo10IsSatisfied(by number: [UInt8], weights: (Int, Int), skipping: Int) -> Bool {
    guard number.count > skipping + 1, let last = number.last, let check = digit(last) else { return false }
    var sum = 0
    for (fromRight, byte) in number[skipping..<(number.count - 1)].reversed().enumerated() {
        guard let value = digit(byte) else { return false }
        sum += value * (fromRight % 2 == 0 ? weights.0 : weights.1)
    }
    return (10 - sum % 10) % 10 == check
}

private func s10IsSatisfied(by number: [UInt8]) -> Bool {
    guard number.count == 13, let check = digit(number[10]) else { return false }
    let weights = [8, 6, 4, 2, 3, 5, 9, 7]
    var sum = 0
    for (index, weight) in weights.enumerated() {
        guard let value = digit(number[2 + index]) else { return false }
        sum += value * weight
    }
    switch 11 - sum % 11 {
    case 10: return check == 0
    case 11: return check == 5
    case let expected: return check == expected
    }
}

private func modulo7IsSatisfied(by number: [UInt8]) -> Bool {
    guard number.count == 10, let check = digit(number[9]) else { return false }
    var serial = 0
    for byte in number[0..<9] {
        guard let value = digit(byte) else { return false }
        serial = serial * 10 + value
    }
    return serial % 7 == check
}

private func iso7064IsSatisfied(by number: [UInt8]) -> Bool {
    guard number.count >= 2, let last = number.last, let check = alphanumericValue(last) else { return false }
    // ISO/IEC 7064's hybrid MOD 37,36: P starts at 36; for each character, S = (P + value) mod 36 (0 read as 36) and
    // P = 2S mod 37; the check character c is the one that makes (P + c) mod 36 = 1, i.e. (37 − P) mod 36.
    var product = 36
    for byte in number.dropLast() {
        guard let value = alphanumericValue(byte) else { return false }
        var sum = (product + value) % 36
        if sum == 0 { sum = 36 }
        product = (sum * 2) % 37
    }
    return (37 - product) % 36 == check
}
