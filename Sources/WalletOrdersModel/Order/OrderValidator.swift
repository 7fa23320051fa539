import Foundation

/// Checks an order.json against Apple's Wallet Orders schema and reports every problem at once.
///
/// Field rules follow Apple's WalletOrders reference (Order, Merchant, Payment, PaymentTransaction, LineItem,
/// ShippingFulfillment, PickupFulfillment, Barcode, ReturnInfo, Return, OrderProvider, Application …). Fields the
/// validator does not know are left alone, and a field set to null counts as left out. Sources/WalletOrdersSchemas/order.schema.json
/// states the same rules as a JSON Schema, but for the few in `OrderRule`.
public enum OrderValidator {
    /// The schema versions this service writes.
    public static let schemaVersions = [1, 2]
    /// The shortest `authenticationToken` Apple accepts.
    public static let minimumTokenLength = 16

    static let orderStatuses = ["open", "completed", "cancelled"]
    static let paymentStatuses = ["pending", "authorized", "paid", "refunded", "declined", "voided"]
    static let transactionTypes = ["purchase", "refund"]
    static let transactionStatuses = ["pending", "approved", "completed", "cancelled", "failed"]
    static let shippingStatuses = [
        "open", "processing", "onTheWay", "outForDelivery", "delivered", "shipped", "issue", "cancelled",
    ]
    static let shippingTypes = ["shipping", "delivery"]
    static let pickupStatuses = ["open", "processing", "readyForPickup", "pickedUp", "issue", "cancelled"]
    static let returnStatuses = ["open", "onTheWay", "processing", "issue", "completed", "cancelled"]
    static let barcodeFormats = ["qr", "pdf417", "aztec", "code128"]
    static let changeNotifications = ["enabled", "disabledIfAppInstalled"]

    /// Every problem and warning for `order`.
    ///
    /// With `files` (the paths a package will hold), every file the order names must be among them, at the top
    /// level or in a `.lproj` folder; an image base name (`logo`) needs one of its files (`logo.png`,
    /// `logo@2x.png`, `logo@3x.png`, or JPEGs). With nil, file references are not checked.
    ///
    /// `allowHTTPWebService` lets `webServiceURL` be plain http, for local development only: Wallet itself
    /// talks to https web services alone. `skipping` leaves out the problems of some rules.
    public static func validate(
        _ order: JSONValue,
        files: Set<String>? = nil,
        allowHTTPWebService: Bool = false,
        skipping: Set<OrderRule> = []
    ) -> OrderValidation {
        guard let members = order.objectValue else {
            return OrderValidation(problems: [
                OrderProblem(path: "", message: "order.json must be a JSON object, not \(order.typeName)")
            ])
        }
        var checker = OrderChecker(skipping: skipping)
        // Text that no store can keep alike (`NULText`), wherever it is: fields the validator does not know too.
        if let path = order.pathOfNUL { checker.report(path, NULText.message) }
        checkTopLevel(
            OrderChecker.Object(members: members, path: ""),
            allowHTTPWebService: allowHTTPWebService,
            &checker
        )
        if let files {
            let index = PackagePath.FileIndex(files)
            for reference in checker.fileReferences {
                if reference.isBaseName {
                    if !index.containsImage(forBaseName: reference.name) {
                        let name = reference.name
                        checker.report(
                            reference.path,
                            "names the image \(name), but the package holds none of "
                                + "\(name).png, \(name)@2x.png, \(name)@3x.png (or .jpg, .jpeg), at the top level or "
                                + "in a .lproj folder",
                            rule: .referencedFilesInPackage
                        )
                    }
                } else if !index.contains(file: reference.name) {
                    checker.report(
                        reference.path,
                        "names \(reference.name), which is not in the package",
                        rule: .referencedFilesInPackage
                    )
                }
            }
        }
        return OrderValidation(problems: checker.problems, warnings: checker.warnings)
    }

    /// Every problem in `order`; see `validate(_:files:allowHTTPWebService:skipping:)`, whose warnings this leaves out.
    public static func problems(
        in order: JSONValue,
        files: Set<String>? = nil,
        allowHTTPWebService: Bool = false
    ) -> [OrderProblem] {
        validate(order, files: files, allowHTTPWebService: allowHTTPWebService).problems
    }

    private static func checkTopLevel(_ root: OrderChecker.Object, allowHTTPWebService: Bool, _ c: inout OrderChecker) {
        let version = c.integer(root, "schemaVersion", required: true, minimum: 1)
        if let version, !schemaVersions.contains(version) {
            c.report("schemaVersion", "\(version) is not a schema version Wallet reads (1 or 2)")
        }
        for key in ["orderTypeIdentifier", "orderIdentifier"] {
            if let value = c.string(root, key, required: true), let problem = Identifier.problem(with: value) {
                c.report(key, problem)
            }
        }
        c.oneOf(root, "orderType", ["ecommerce"], required: true)
        c.url(root, "orderManagementURL", .web, required: true)
        let created = c.date(root, "createdAt", required: true)
        let updated = c.date(root, "updatedAt", required: true)
        if let created, let updated, updated < created {
            c.report("updatedAt", "must not be earlier than createdAt", rule: .updatedAtNotBeforeCreatedAt)
        }
        c.oneOf(root, "status", orderStatuses, required: true)
        c.text(root, "orderNumber", maxLength: OrderChecker.Length.name)
        c.text(root, "statusDescription")
        c.oneOf(root, "changeNotifications", changeNotifications)

        c.url(root, "webServiceURL", .webService(allowHTTP: allowHTTPWebService))
        if let token = c.string(root, "authenticationToken", maxLength: OrderChecker.Length.name),
            token.unicodeScalars.count < minimumTokenLength
        {
            c.report("authenticationToken", "must be at least \(minimumTokenLength) characters long")
        }
        if root.has("webServiceURL"), !root.has("authenticationToken") {
            c.report("authenticationToken", "is required when webServiceURL is given")
        }
        if root.has("authenticationToken"), !root.has("webServiceURL") {
            c.report("webServiceURL", "is required when authenticationToken is given")
        }

        if let merchant = c.object(root, "merchant", required: true) {
            checkMerchant(merchant, &c)
        }
        if let payment = c.object(root, "payment") {
            checkPayment(payment, schemaVersion: version ?? 1, &c)
        }
        for item in c.objects(root, "lineItems") { checkLineItem(item, &c) }
        for fulfillment in c.objects(root, "fulfillments") { checkFulfillment(fulfillment, &c) }
        if let customer = c.object(root, "customer") {
            for key in ["givenName", "familyName", "organizationName", "emailAddress", "phoneNumber"] {
                c.text(customer, key, maxLength: OrderChecker.Length.name)
            }
        }
        if let barcode = c.object(root, "barcode") { checkBarcode(barcode, &c) }
        if let info = c.object(root, "returnInfo") {
            c.warn(info.path, Availability.returnInfo.warning)
            c.url(info, "returnPolicyURL", .web, required: true)
            c.url(info, "returnManagementURL", .web)
            c.text(info, "returnPolicyDescription")
            c.date(info, "returnDeadline")
            c.boolean(info, "displayCountdown")
        }
        let returns = c.objects(root, "returns")
        if !returns.isEmpty { c.warn("returns", Availability.returns.warning) }
        for item in returns { checkReturn(item, &c) }
        if let provider = c.object(root, "orderProvider") {
            c.warn(provider.path, Availability.orderProvider.warning)
            c.string(provider, "displayName", required: true)
            c.url(provider, "url", .web, required: true)
            c.image(provider, "trackingLogoNameLightColorScheme", required: true)
            c.image(provider, "trackingLogoNameDarkColorScheme", required: true)
        }
        for application in c.objects(root, "associatedApplications") {
            c.integer(application, "storeIdentifier", required: true, minimum: 1)
            c.url(application, "launchURL", .app)
            c.text(application, "customProductPageIdentifier", maxLength: OrderChecker.Length.name)
        }
        c.texts(root, "associatedApplicationIdentifiers")
    }

    private static func checkMerchant(_ merchant: OrderChecker.Object, _ c: inout OrderChecker) {
        c.string(merchant, "merchantIdentifier", required: true, maxLength: OrderChecker.Length.name)
        c.string(merchant, "displayName", required: true, maxLength: OrderChecker.Length.name)
        c.url(merchant, "url", .web, required: true)
        c.image(merchant, "logo")
        c.url(merchant, "businessChatURL", .web)
        c.url(merchant, "contactURL", .web)
        c.text(merchant, "emailAddress", maxLength: OrderChecker.Length.name)
        c.text(merchant, "phoneNumber", maxLength: OrderChecker.Length.code)
        if let address = c.object(merchant, "address") { checkAddress(address, &c) }
    }

    private static func checkPayment(_ payment: OrderChecker.Object, schemaVersion: Int, _ c: inout OrderChecker) {
        c.currencyAmount(payment, "total", required: true)
        // Version 1 orders without payment.status fail to open in Wallet (Apple developer forums, thread 765015).
        // Apple's pages tie the status to no transaction (a partial refund leaves the payment paid, a refund made
        // outside Apple Pay lists none), so it is checked alone.
        c.oneOf(payment, "status", paymentStatuses, required: schemaVersion == 1)
        for item in c.objects(payment, "summaryItems") {
            c.string(item, "label", required: true)
            c.currencyAmount(item, "value", required: true)
        }
        // Apple's Payment page badges both "Deprecated" (as it does payment.status), naming no replacement; each
        // PaymentTransaction (iOS 17) has a paymentMethod and an applePayTransactionIdentifier of its own.
        for (key, member) in [("paymentMethods", "paymentMethod"), ("applePayTransactionIdentifiers", "applePayTransactionIdentifier")]
        where payment.has(key) {
            c.warn(
                payment.path(key),
                "is marked deprecated on Apple's Payment page; each of payment.transactions[] (iOS 17) has its own \(member)"
            )
        }
        c.texts(payment, "paymentMethods")
        c.texts(payment, "applePayTransactionIdentifiers")
        let transactions = c.objects(payment, "transactions")
        if !transactions.isEmpty { c.warn(payment.path("transactions"), Availability.transactions.warning) }
        for transaction in transactions {
            c.oneOf(transaction, "transactionType", transactionTypes, required: true)
            c.oneOf(transaction, "status", transactionStatuses, required: true)
            c.currencyAmount(transaction, "amount", required: true)
            c.date(transaction, "createdAt", required: true)
            if let method = c.object(transaction, "paymentMethod", required: true) {
                c.string(method, "displayName", required: true)
            }
            c.text(transaction, "applePayTransactionIdentifier")
            c.attachment(transaction, "receipt")
        }
    }

    private static func checkLineItem(_ item: OrderChecker.Object, _ c: inout OrderChecker) {
        c.string(item, "title", required: true)
        c.positiveNumber(item, "quantity", required: true)
        c.text(item, "subtitle")
        c.image(item, "image")
        c.currencyAmount(item, "price")
        c.text(item, "sku", maxLength: OrderChecker.Length.name)
        c.text(item, "gtin", maxLength: OrderChecker.Length.code)
    }

    private static func checkFulfillment(_ fulfillment: OrderChecker.Object, _ c: inout OrderChecker) {
        c.string(fulfillment, "fulfillmentIdentifier", required: true, maxLength: OrderChecker.Length.name)
        c.text(fulfillment, "statusDescription")
        c.text(fulfillment, "notes")
        for item in c.objects(fulfillment, "lineItems") { checkLineItem(item, &c) }
        switch c.oneOf(fulfillment, "fulfillmentType", ["shipping", "pickup"], required: true) {
        case "shipping":
            c.oneOf(fulfillment, "status", shippingStatuses, required: true)
            c.oneOf(fulfillment, "shippingType", shippingTypes)
            c.text(fulfillment, "carrier", maxLength: OrderChecker.Length.name)
            c.text(fulfillment, "trackingNumber", maxLength: OrderChecker.Length.name)
            c.url(fulfillment, "trackingURL", .web)
            c.date(fulfillment, "shippedAt")
            c.date(fulfillment, "estimatedDeliveryAt")
            c.duration(fulfillment, "estimatedDeliveryWindowDuration")
            c.date(fulfillment, "deliveredAt")
            if let recipient = c.object(fulfillment, "recipient") {
                for key in ["givenName", "familyName", "organizationName"] {
                    c.text(recipient, key, maxLength: OrderChecker.Length.name)
                }
                if let address = c.object(recipient, "address") { checkAddress(address, &c) }
            }
        case "pickup":
            c.oneOf(fulfillment, "status", pickupStatuses, required: true)
            c.string(fulfillment, "displayName", required: true)
            c.date(fulfillment, "pickupAt")
            c.duration(fulfillment, "pickupWindowDuration")
            c.date(fulfillment, "pickedUpAt")
            if let address = c.object(fulfillment, "address") { checkAddress(address, &c) }
            if let location = c.object(fulfillment, "location") {
                c.number(location, "latitude", required: true, in: -90...90)
                c.number(location, "longitude", required: true, in: -180...180)
                c.number(location, "altitude")
            }
            if let barcode = c.object(fulfillment, "barcode") { checkBarcode(barcode, &c) }
        default:
            break
        }
    }

    private static func checkReturn(_ item: OrderChecker.Object, _ c: inout OrderChecker) {
        c.string(item, "returnIdentifier", required: true, maxLength: OrderChecker.Length.name)
        c.oneOf(item, "status", returnStatuses, required: true)
        c.text(item, "carrier", maxLength: OrderChecker.Length.name)
        c.text(item, "returnNumber", maxLength: OrderChecker.Length.name)
        c.text(item, "statusDescription")
        c.text(item, "notes")
        c.url(item, "returnManagementURL", .web)
        for key in ["dropOffBy", "initiatedAt", "returnedAt"] { c.date(item, key) }
        for lineItem in c.objects(item, "lineItems") { checkLineItem(lineItem, &c) }
        c.attachment(item, "returnLabel")
    }

    private static func checkBarcode(_ barcode: OrderChecker.Object, _ c: inout OrderChecker) {
        c.oneOf(barcode, "format", barcodeFormats, required: true)
        c.string(barcode, "message", required: true)
        c.string(barcode, "messageEncoding", required: true, maxLength: OrderChecker.Length.code)
        c.text(barcode, "altText")
    }

    private static func checkAddress(_ address: OrderChecker.Object, _ c: inout OrderChecker) {
        c.texts(address, "addressLines")
        for key in ["locality", "subLocality", "administrativeArea", "subAdministrativeArea", "postalCode"] {
            c.text(address, key, maxLength: OrderChecker.Length.name)
        }
        if let country = c.string(address, "countryCode", maxLength: 2), country.unicodeScalars.count != 2 {
            c.report(address.path("countryCode"), "must be a two-letter ISO 3166 country code")
        }
    }
}

/// Objects of order.json that Wallet reads only from some iOS version on; older devices show the order without them.
enum Availability: String {
    case transactions = "PaymentTransaction"
    case returns = "Return"
    case returnInfo = "ReturnInfo"
    case orderProvider = "OrderProvider"

    /// The first iOS (and macOS) release that reads the object, from Apple's WalletOrders pages.
    var release: (iOS: String, macOS: String) {
        switch self {
        case .transactions: ("17.0", "14.0")
        case .returns, .returnInfo: ("17.2", "14.2")
        case .orderProvider: ("17.4", "14.4")
        }
    }

    var warning: String {
        "\(rawValue) needs iOS \(release.iOS) or macOS \(release.macOS); Wallet on older devices shows the order "
            + "without it"
    }
}
