import Foundation
import NIOCore
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore
import WalletOrdersTracking

/// A new order as the service completes it from what a merchant sent, and the checks it must pass before it is signed.
extension OrderService {
    /// The checks `create` runs on `input` for `merchant`, with nothing signed or stored: every problem that would
    /// refuse it, and the warnings it would draw. Whether the identifier is taken is not checked (that needs the
    /// store).
    public func validate(_ input: OrderInput, for merchant: Merchant = .singleShop) async -> OrderValidation {
        do {
            // A placeholder token of the length the service makes: its value is never used.
            let new = try await newOrder(
                input,
                for: merchant,
                token: String(repeating: "0", count: 64),
                createdAt: Date(unixSeconds: now().unixSeconds)
            )
            return try new.type.builder.validate(order: new.document, template: new.template, assets: new.assets)
        } catch let error as PackageError {
            guard case .invalidOrder(_, let problems) = Self.serviceError(error) else {
                return OrderValidation(problems: [OrderProblem(path: "", message: "\(error)")])
            }
            return OrderValidation(problems: problems)
        } catch OrderServiceError.invalidOrder(_, let problems) {
            return OrderValidation(problems: problems)
        } catch {
            return OrderValidation(problems: [OrderProblem(path: "", message: "\(error)")])
        }
    }

    /// A new order as the service completes it before validating it.
    struct NewOrder {
        let type: OrderType
        let template: OrderTemplate
        let id: String
        let document: OrderDocument
        let assets: [String: Data]
    }

    /// A new order's type, its template, Wallet's identifier for it, its document with everything the service fills
    /// in, and its assets; throws `OrderServiceError.invalidOrder` with every problem found before the order itself
    /// is validated.
    func newOrder(
        _ input: OrderInput,
        for merchant: Merchant,
        token: String,
        createdAt: Date
    ) async throws
        -> NewOrder
    {
        let fields = input.fields
        let assets = input.assets ?? [:]
        let (type, walletID) = try await identify(input, for: merchant, generatedID: Random.identifier())
        let template = try await merchants.template(for: merchant.id, of: type)
        var document = OrderDocument(fields: fields)
        document["orderTypeIdentifier"] = .string(type.identifier)
        document["orderIdentifier"] = .string(walletID)
        if document["schemaVersion"] == nil { document["schemaVersion"] = .int(1) }
        if document["orderType"] == nil { document["orderType"] = .string("ecommerce") }
        document["authenticationToken"] = .string(token)
        document["webServiceURL"] = .string(webServiceURL)
        document = Self.completed(document, by: template)
        document["createdAt"] = .string(RFC3339.format(createdAt))
        document["updatedAt"] = document["createdAt"]
        return NewOrder(type: type, template: template, id: walletID, document: document, assets: assets)
    }

    /// What the service completes in every order it writes, whoever wrote it (merchant API, import, partner, tracking
    /// event, shop): the template's defaults for what the order leaves out, then the carrier and its tracking page
    /// for each parcel whose number says which carrier it is and that names neither (never replacing one it names).
    static func completed(_ document: OrderDocument, by template: OrderTemplate) -> OrderDocument {
        template.applyingDefaults(to: document).changingFulfillments { _ = $0.fillCarrierFromTrackingNumber() }
    }

    /// The order type and Wallet's identifier of the new order `input` describes for `merchant`, the identifier
    /// `generatedID` when it names none (nil: one is required); throws `OrderServiceError.invalidOrder` with every
    /// problem found in what a new order may not send (the fields the service sets, asset paths, its type and
    /// identifier) before the order itself is validated.
    func identify(
        _ input: OrderInput,
        for merchant: Merchant,
        generatedID: String?
    ) async throws -> (type: OrderType, walletID: String) {
        let fields = input.fields
        var problems = Self.assetProblems((input.assets ?? [:]).keys)
        for field in Self.managedFields where fields[field] != nil {
            problems.append(OrderProblem(path: field, message: "is set by the service; leave it out"))
        }
        let type = try orderType(named: fields["orderTypeIdentifier"], for: merchant, problems: problems)
        var id = generatedID ?? ""
        switch fields["orderIdentifier"] {
        case .string(let own)?: id = own
        case nil where generatedID == nil:
            problems.append(
                OrderProblem(path: "orderIdentifier", message: "is required: an import finds the order again by it")
            )
        case nil: break
        case let other?:
            problems.append(OrderProblem(path: "orderIdentifier", message: "must be a string, not \(other.typeName)"))
        }
        guard problems.isEmpty else { throw OrderServiceError.invalid(problems) }
        let walletID = merchant.walletIdentifier(id)
        // The merchant's own identifier is a path segment of its API too (`acme:..` is Wallet's, `..` its own).
        if let problem = Identifier.problem(with: merchant.ownIdentifier(walletID)) ?? Identifier.problem(with: walletID) {
            throw OrderServiceError.invalid([OrderProblem(path: "orderIdentifier", message: problem)])
        }
        if merchant.isDefault, let colon = walletID.firstIndex(of: ":"),
            let owner = try await merchants.merchant(slug: String(walletID[..<colon])), !owner.isDefault
        {
            throw OrderServiceError.invalid([
                OrderProblem(
                    path: "orderIdentifier",
                    message: "starts with \(owner.slug):, which names the orders of merchant \(owner.slug)"
                )
            ])
        }
        return (type, walletID)
    }

    /// The order type a new order of `merchant` names (`value`), or the one it may use when it names none; throws
    /// with `problems` and the order type's own.
    private func orderType(named value: JSONValue?, for merchant: Merchant, problems: [OrderProblem]) throws -> OrderType {
        let allowed = merchant.orderTypes.isEmpty ? orderTypes : orderTypes.filter { merchant.orderTypes.contains($0.key) }
        func refuse(_ message: String) -> OrderServiceError {
            .invalid(problems + [OrderProblem(path: "orderTypeIdentifier", message: message)])
        }
        switch value {
        case nil:
            guard allowed.count == 1, let only = allowed.values.first else {
                throw refuse("is required: this service signs more than one order type")
            }
            return only
        case .string(let identifier)?:
            guard let type = allowed[identifier] else {
                throw refuse(
                    "\"\(identifier)\" is not an order type "
                        + (merchant.isDefault ? "this service signs" : "merchant \(merchant.slug) may use")
                        + " (\(allowed.keys.sorted().joined(separator: ", ")))"
                )
            }
            return type
        case let other?:
            throw refuse("must be a string, not \(other.typeName)")
        }
    }

    /// Problems with the package paths of per-order files: each must be a path a package may hold.
    public static func assetProblems(_ paths: some Sequence<String>) -> [OrderProblem] {
        paths.sorted().compactMap { path in
            PackagePath.problem(with: path).map { OrderProblem(path: "assets.\(path)", message: $0) }
        }
    }
}
