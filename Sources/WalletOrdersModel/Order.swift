import Foundation

/// The typed view of order.json (Apple's `Order` object), for code that reads orders.
///
/// Stored and packaged orders are `OrderDocument`s, which keep every field; this view holds the fields Apple
/// documents. Dates stay RFC 3339 strings, as in the file.
public struct Order: Codable, Sendable, Hashable {
    public var schemaVersion: Int
    public var orderTypeIdentifier: String
    public var orderIdentifier: String
    public var orderType: String
    public var orderManagementURL: String
    public var createdAt: String
    public var updatedAt: String
    public var status: Status
    public var merchant: Merchant
    public var webServiceURL: String?
    public var authenticationToken: String?
    public var orderNumber: String?
    public var statusDescription: String?
    public var changeNotifications: String?
    public var payment: Payment?
    public var lineItems: [LineItem]?
    public var fulfillments: [Fulfillment]?
    public var customer: Customer?
    public var barcode: Barcode?
    public var returnInfo: ReturnInfo?
    public var returns: [Return]?
    public var orderProvider: OrderProvider?
    public var associatedApplications: [Application]?

    /// Where the order stands as a whole.
    public enum Status: String, Codable, Sendable, Hashable {
        case open, completed, cancelled
    }

    /// The seller.
    public struct Merchant: Codable, Sendable, Hashable {
        public var merchantIdentifier: String
        public var displayName: String
        public var url: String
        public var logo: String?
        public var address: Address?
        public var businessChatURL: String?
        public var contactURL: String?
        public var emailAddress: String?
        public var phoneNumber: String?
    }

    /// An amount of money. Apple types `amount` as a JSON number.
    public struct CurrencyAmount: Codable, Sendable, Hashable {
        public var amount: Decimal
        public var currency: String
    }

    /// What was paid, and how.
    public struct Payment: Codable, Sendable, Hashable {
        public var total: CurrencyAmount
        /// Deprecated by Apple but still required by Wallet for schema version 1.
        public var status: String?
        public var summaryItems: [SummaryItem]?
        public var transactions: [Transaction]?
    }

    /// One line of the payment summary.
    public struct SummaryItem: Codable, Sendable, Hashable {
        public var label: String
        public var value: CurrencyAmount
    }

    /// A purchase or refund.
    public struct Transaction: Codable, Sendable, Hashable {
        public var transactionType: String
        public var status: String
        public var amount: CurrencyAmount
        public var createdAt: String
        public var paymentMethod: PaymentMethod
        public var applePayTransactionIdentifier: String?
        public var receipt: String?
    }

    /// How a transaction was paid.
    public struct PaymentMethod: Codable, Sendable, Hashable {
        public var displayName: String
    }

    /// One product in the order.
    public struct LineItem: Codable, Sendable, Hashable {
        public var title: String
        public var quantity: Int
        public var subtitle: String?
        public var image: String?
        public var price: CurrencyAmount?
        public var sku: String?
        public var gtin: String?
    }

    /// A shipment or a pickup; `fulfillmentType` tells which fields apply.
    public struct Fulfillment: Codable, Sendable, Hashable {
        public var fulfillmentType: String
        public var fulfillmentIdentifier: String
        public var status: String
        public var statusDescription: String?
        public var notes: String?
        public var lineItems: [LineItem]?
        // Shipping
        public var shippingType: String?
        public var carrier: String?
        public var trackingNumber: String?
        public var trackingURL: String?
        public var shippedAt: String?
        public var estimatedDeliveryAt: String?
        public var estimatedDeliveryWindowDuration: String?
        public var deliveredAt: String?
        public var recipient: Recipient?
        // Pickup
        public var displayName: String?
        public var pickupAt: String?
        public var pickupWindowDuration: String?
        public var pickedUpAt: String?
        public var address: Address?
        public var location: Location?
        public var barcode: Barcode?
    }

    /// Who receives a shipment.
    public struct Recipient: Codable, Sendable, Hashable {
        public var givenName: String?
        public var familyName: String?
        public var organizationName: String?
        public var address: Address?
    }

    /// A postal address.
    public struct Address: Codable, Sendable, Hashable {
        public var addressLines: [String]?
        public var locality: String?
        public var subLocality: String?
        public var administrativeArea: String?
        public var subAdministrativeArea: String?
        public var postalCode: String?
        public var countryCode: String?
    }

    /// A point on the map.
    public struct Location: Codable, Sendable, Hashable {
        public var latitude: Double
        public var longitude: Double
        public var altitude: Double?
    }

    /// The buyer.
    public struct Customer: Codable, Sendable, Hashable {
        public var givenName: String?
        public var familyName: String?
        public var organizationName: String?
        public var emailAddress: String?
        public var phoneNumber: String?
    }

    /// A barcode Wallet shows with the order or a pickup.
    public struct Barcode: Codable, Sendable, Hashable {
        public var format: String
        public var message: String
        public var messageEncoding: String
        public var altText: String?
    }

    /// The return policy.
    public struct ReturnInfo: Codable, Sendable, Hashable {
        public var returnPolicyURL: String
        public var returnManagementURL: String?
        public var returnPolicyDescription: String?
        public var returnDeadline: String?
        public var displayCountdown: Bool?
    }

    /// A return of some or all of the order.
    public struct Return: Codable, Sendable, Hashable {
        public var returnIdentifier: String
        public var status: String
        public var carrier: String?
        public var returnNumber: String?
        public var statusDescription: String?
        public var notes: String?
        public var returnManagementURL: String?
        public var dropOffBy: String?
        public var initiatedAt: String?
        public var returnedAt: String?
        public var returnLabel: String?
        public var lineItems: [LineItem]?
    }

    /// A platform that manages orders for the merchant.
    public struct OrderProvider: Codable, Sendable, Hashable {
        public var displayName: String
        public var url: String
        public var trackingLogoNameLightColorScheme: String
        public var trackingLogoNameDarkColorScheme: String
    }

    /// An app linked to the order.
    public struct Application: Codable, Sendable, Hashable {
        public var storeIdentifier: Int
        public var launchURL: String?
    }
}
