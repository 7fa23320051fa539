import WalletOrdersModel

/// What importing one line did, as the import answers it line by line.
public struct ImportLineResult: Sendable, Equatable {
    /// The line's number, from 1.
    public let line: Int
    /// The merchant's own identifier of the order the line names (`1001`, not Wallet's `acme:1001`); nil when it
    /// names none.
    public let orderIdentifier: String?
    public let result: Outcome
    /// Why the line is `invalid`; empty otherwise.
    public let problems: [OrderProblem]

    public enum Outcome: String, Sendable, CaseIterable {
        /// There was no such order: it is stored now, as version 1.
        case created
        /// The order exists with this content already: nothing was written, no device told.
        case unchanged
        /// The order existed with other content: this is its next version, and its devices are told.
        case updated
        /// Nothing was written; `problems` says why.
        case invalid
    }

    public init(line: Int, orderIdentifier: String?, result: Outcome, problems: [OrderProblem] = []) {
        self.line = line
        self.orderIdentifier = orderIdentifier
        self.result = result
        self.problems = problems
    }
}
