/// What checking an order found: the problems that keep Wallet from reading it, and warnings about what some
/// devices will not show.
public struct OrderValidation: Sendable, Hashable {
    /// Everything that makes the order invalid; empty when Wallet can read it.
    public var problems: [OrderProblem]
    /// Things Wallet reads but not everywhere (objects newer than iOS 16, deprecated fields, plain-http links), and
    /// optional strings left empty.
    public var warnings: [OrderProblem]

    /// A result from its problems and warnings.
    public init(problems: [OrderProblem] = [], warnings: [OrderProblem] = []) {
        self.problems = problems
        self.warnings = warnings
    }

    /// Whether the order has no problems; warnings do not count.
    public var isValid: Bool { problems.isEmpty }
}

extension OrderValidation: Codable {
    private enum CodingKeys: String, CodingKey {
        case valid, problems, warnings
    }

    /// `{"valid": Bool, "problems": [{path, message}], "warnings": [{path, message}]}`.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(isValid, forKey: .valid)
        try container.encode(problems, forKey: .problems)
        try container.encode(warnings, forKey: .warnings)
    }

    /// Reads what `encode(to:)` writes; `valid` follows from the problems.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        problems = try container.decodeIfPresent([OrderProblem].self, forKey: .problems) ?? []
        warnings = try container.decodeIfPresent([OrderProblem].self, forKey: .warnings) ?? []
    }
}

/// A rule of `OrderValidator` that no JSON Schema can state, so Sources/WalletOrdersSchemas/order.schema.json leaves it out.
///
/// Every other rule of the validator is in the schema, and a test holds the two to the same verdict.
public enum OrderRule: String, CaseIterable, Sendable, Hashable {
    /// `updatedAt` is not earlier than `createdAt`: a schema cannot compare two values.
    case updatedAtNotBeforeCreatedAt
    /// Every image and attachment order.json names is in the package, by file name or by base name: a schema
    /// sees order.json alone.
    case referencedFilesInPackage
}
