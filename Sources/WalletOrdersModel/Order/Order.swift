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
    public var associatedApplicationIdentifiers: [String]?

    /// Where the order stands as a whole.
    public enum Status: String, Codable, Sendable, Hashable, CaseIterable, CodingKeyRepresentable {
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

    /// An amount of money.
    public struct CurrencyAmount: Codable, Sendable, Hashable {
        public var amount: Amount
        public var currency: String
    }

    /// A CurrencyAmount's `amount` as the merchant wrote it: Apple's CurrencyAmount page types it as a decimal
    /// string (`"23.40"`), and order builders in use send JSON numbers (`23.4`). Either is written back as it came.
    public enum Amount: Codable, Sendable, Hashable, CustomStringConvertible {
        /// A decimal string, digits kept as written: `"23.40"`.
        case string(String)
        /// A JSON number.
        case number(Decimal)

        /// The amount as a number.
        public var value: Decimal {
            switch self {
            case .string(let text): Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? .nan
            case .number(let number): number
            }
        }

        /// The amount as order.json writes it, without quotes.
        public var description: String {
            switch self {
            case .string(let text): text
            case .number(let number): "\(number)"
            }
        }

        /// Reads a decimal string (`"23.40"`, `"-5"`) or a JSON number; anything else is a decoding error.
        public init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                guard OrderChecker.isDecimal(text) else {
                    throw DecodingError.dataCorruptedError(
                        in: container,
                        debugDescription: "\"\(text)\" is not a decimal number such as \"23.40\""
                    )
                }
                self = .string(text)
            } else {
                self = .number(try container.decode(Decimal.self))
            }
        }

        /// Writes a string back as a string and a number as a number.
        public func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let text): try container.encode(text)
            case .number(let number): try container.encode(number)
            }
        }
    }

    /// What was paid, and how.
    public struct Payment: Codable, Sendable, Hashable {
        public var total: CurrencyAmount
        /// Deprecated by Apple but still required by Wallet for schema version 1.
        public var status: String?
        public var summaryItems: [SummaryItem]?
        /// iOS 17.0 and later.
        public var transactions: [Transaction]?
        /// Marked deprecated on Apple's Payment page; each of `transactions` has its own `paymentMethod`.
        public var paymentMethods: [String]?
        /// Marked deprecated on Apple's Payment page; each of `transactions` has its own identifier.
        public var applePayTransactionIdentifiers: [String]?
    }

    /// One line of the payment summary.
    public struct SummaryItem: Codable, Sendable, Hashable {
        public var label: String
        public var value: CurrencyAmount
    }

    /// A purchase or refund (iOS 17.0 and later).
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
        /// A number, fractions allowed (1.5 kg), whether order.json writes it as a number or a decimal string.
        public var quantity: Decimal
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

    /// The return policy (iOS 17.2 and later).
    public struct ReturnInfo: Codable, Sendable, Hashable {
        public var returnPolicyURL: String
        public var returnManagementURL: String?
        public var returnPolicyDescription: String?
        public var returnDeadline: String?
        public var displayCountdown: Bool?
    }

    /// A return of some or all of the order (iOS 17.2 and later).
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

    /// A platform that manages orders for the merchant (iOS 17.4 and later).
    public struct OrderProvider: Codable, Sendable, Hashable {
        public var displayName: String
        public var url: String
        public var trackingLogoNameLightColorScheme: String
        public var trackingLogoNameDarkColorScheme: String
    }

    /// An app linked to the order.
    public struct Application: Codable, Sendable, Hashable {
        public var storeIdentifier: Int
        /// Any absolute URL, the app's own scheme included (`myapp://orders/88`).
        public var launchURL: String?
        public var customProductPageIdentifier: String?
    }
}

extension Order.LineItem {
    /// Reads a line item whose quantity is a number or a decimal string: Apple's "Creating the source for an order"
    /// writes `"quantity": "2"` where its LineItem page types a number. It is written back as a number.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        quantity = try container.decode(Order.Amount.self, forKey: .quantity).value
        subtitle = try container.decodeIfPresent(String.self, forKey: .subtitle)
        image = try container.decodeIfPresent(String.self, forKey: .image)
        price = try container.decodeIfPresent(Order.CurrencyAmount.self, forKey: .price)
        sku = try container.decodeIfPresent(String.self, forKey: .sku)
        gtin = try container.decodeIfPresent(String.self, forKey: .gtin)
    }
}
