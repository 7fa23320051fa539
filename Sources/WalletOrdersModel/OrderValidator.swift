import Foundation

/// Checks an order.json against Apple's Wallet Orders schema and reports every problem at once.
///
/// Field rules follow Apple's WalletOrders reference (Order, Merchant, Payment, LineItem, ShippingFulfillment,
/// PickupFulfillment, Barcode, ReturnInfo, Return …). Fields the validator does not know are left alone.
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

    /// Every problem in `order`.
    ///
    /// With `files` (the paths a package will hold), every file the order names must be among them, at the top
    /// level or in a `.lproj` folder; with nil, file references are not checked.
    ///
    /// `allowHTTPWebService` lets `webServiceURL` be plain http, for local development only: Wallet itself
    /// talks to https web services alone.
    public static func problems(
        in order: JSONValue, files: Set<String>? = nil, allowHTTPWebService: Bool = false
    ) -> [OrderProblem] {
        var checker = OrderChecker()
        guard let members = order.objectValue else {
            return [OrderProblem(path: "", message: "order.json must be a JSON object, not \(order.typeName)")]
        }
        let root = OrderChecker.Object(members: members, path: "")
        checkTopLevel(root, allowHTTPWebService: allowHTTPWebService, &checker)
        if let files {
            for (path, file) in checker.fileReferences where !PackagePath.contains(file: file, in: files) {
                checker.report(path, "names \(file), which is not in the package")
            }
        }
        return checker.problems
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
        c.url(root, "orderManagementURL", required: true)
        let created = c.date(root, "createdAt", required: true)
        let updated = c.date(root, "updatedAt", required: true)
        if let created, let updated, updated < created {
            c.report("updatedAt", "must not be earlier than createdAt")
        }
        c.oneOf(root, "status", orderStatuses, required: true)
        c.string(root, "orderNumber", maxLength: 256)
        c.string(root, "statusDescription")
        c.oneOf(root, "changeNotifications", changeNotifications)

        let serviceURL = c.url(root, "webServiceURL", httpsOnly: !allowHTTPWebService)
        let token = c.string(root, "authenticationToken", maxLength: 256)
        if let token, token.count < minimumTokenLength {
            c.report("authenticationToken", "must be at least \(minimumTokenLength) characters long")
        }
        if serviceURL != nil, root.members["authenticationToken"] == nil {
            c.report("authenticationToken", "is required when webServiceURL is given")
        }
        if token != nil, root.members["webServiceURL"] == nil {
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
                c.string(customer, key, maxLength: 256)
            }
        }
        if let barcode = c.object(root, "barcode") { checkBarcode(barcode, &c) }
        if let info = c.object(root, "returnInfo") {
            c.url(info, "returnPolicyURL", required: true)
            c.url(info, "returnManagementURL")
            c.string(info, "returnPolicyDescription")
            c.date(info, "returnDeadline")
            c.boolean(info, "displayCountdown")
        }
        for item in c.objects(root, "returns") { checkReturn(item, &c) }
        if let provider = c.object(root, "orderProvider") {
            c.string(provider, "displayName", required: true)
            c.url(provider, "url", required: true)
            c.image(provider, "trackingLogoNameLightColorScheme", required: true)
            c.image(provider, "trackingLogoNameDarkColorScheme", required: true)
        }
        for application in c.objects(root, "associatedApplications") {
            c.integer(application, "storeIdentifier", required: true, minimum: 1)
            c.url(application, "launchURL", httpsOnly: false)
        }
    }

    private static func checkMerchant(_ merchant: OrderChecker.Object, _ c: inout OrderChecker) {
        c.string(merchant, "merchantIdentifier", required: true, maxLength: 256)
        c.string(merchant, "displayName", required: true, maxLength: 256)
        c.url(merchant, "url", required: true)
        c.image(merchant, "logo")
        c.url(merchant, "businessChatURL")
        c.url(merchant, "contactURL")
        c.string(merchant, "emailAddress", maxLength: 256)
        c.string(merchant, "phoneNumber", maxLength: 64)
        if let address = c.object(merchant, "address") { checkAddress(address, &c) }
    }

    private static func checkPayment(_ payment: OrderChecker.Object, schemaVersion: Int, _ c: inout OrderChecker) {
        c.currencyAmount(payment, "total", required: true)
        // Version 1 orders without payment.status fail to open in Wallet (Apple developer forums, thread 765015).
        let status = c.oneOf(payment, "status", paymentStatuses, required: schemaVersion == 1)
        for item in c.objects(payment, "summaryItems") {
            c.string(item, "label", required: true)
            c.currencyAmount(item, "value", required: true)
        }
        var lastRefundStatus: (path: String, status: String)?
        for transaction in c.objects(payment, "transactions") {
            let type = c.oneOf(transaction, "transactionType", transactionTypes, required: true)
            let transactionStatus = c.oneOf(transaction, "status", transactionStatuses, required: true)
            c.currencyAmount(transaction, "amount", required: true)
            c.date(transaction, "createdAt", required: true)
            if let method = c.object(transaction, "paymentMethod", required: true) {
                c.string(method, "displayName", required: true)
            }
            c.string(transaction, "applePayTransactionIdentifier")
            c.attachment(transaction, "receipt")
            if type == "refund", let transactionStatus {
                lastRefundStatus = (transaction.path, transactionStatus)
            }
        }
        // A refund's status decides the payment status Wallet shows next to it.
        if let status, let refund = lastRefundStatus {
            let expected = ["pending", "approved", "completed"].contains(refund.status) ? "refunded" : "paid"
            if status != expected {
                c.report(payment.path("status"),
                         "must be \(expected) while the refund at \(refund.path) is \(refund.status), not \(status)")
            }
        }
    }

    private static func checkLineItem(_ item: OrderChecker.Object, _ c: inout OrderChecker) {
        c.string(item, "title", required: true)
        c.integer(item, "quantity", required: true, minimum: 1)
        c.string(item, "subtitle")
        c.image(item, "image")
        c.currencyAmount(item, "price")
        c.string(item, "sku", maxLength: 256)
        c.string(item, "gtin", maxLength: 64)
    }

    private static func checkFulfillment(_ fulfillment: OrderChecker.Object, _ c: inout OrderChecker) {
        c.string(fulfillment, "fulfillmentIdentifier", required: true, maxLength: 256)
        c.string(fulfillment, "statusDescription")
        c.string(fulfillment, "notes")
        for item in c.objects(fulfillment, "lineItems") { checkLineItem(item, &c) }
        switch c.oneOf(fulfillment, "fulfillmentType", ["shipping", "pickup"], required: true) {
        case "shipping":
            c.oneOf(fulfillment, "status", shippingStatuses, required: true)
            c.oneOf(fulfillment, "shippingType", shippingTypes)
            c.string(fulfillment, "carrier", maxLength: 256)
            c.string(fulfillment, "trackingNumber", maxLength: 256)
            c.url(fulfillment, "trackingURL")
            c.date(fulfillment, "shippedAt")
            c.date(fulfillment, "estimatedDeliveryAt")
            c.string(fulfillment, "estimatedDeliveryWindowDuration")
            c.date(fulfillment, "deliveredAt")
            if let recipient = c.object(fulfillment, "recipient"), let address = c.object(recipient, "address") {
                checkAddress(address, &c)
            }
        case "pickup":
            c.oneOf(fulfillment, "status", pickupStatuses, required: true)
            c.string(fulfillment, "displayName", required: true)
            c.date(fulfillment, "pickupAt")
            c.string(fulfillment, "pickupWindowDuration")
            c.date(fulfillment, "pickedUpAt")
            if let address = c.object(fulfillment, "address") { checkAddress(address, &c) }
            if let location = c.object(fulfillment, "location") { checkLocation(location, &c) }
            if let barcode = c.object(fulfillment, "barcode") { checkBarcode(barcode, &c) }
        default:
            break
        }
    }

    private static func checkReturn(_ item: OrderChecker.Object, _ c: inout OrderChecker) {
        c.string(item, "returnIdentifier", required: true, maxLength: 256)
        c.oneOf(item, "status", returnStatuses, required: true)
        c.string(item, "carrier", maxLength: 256)
        c.string(item, "returnNumber", maxLength: 256)
        c.string(item, "statusDescription")
        c.string(item, "notes")
        c.url(item, "returnManagementURL")
        for key in ["dropOffBy", "initiatedAt", "returnedAt"] { c.date(item, key) }
        for lineItem in c.objects(item, "lineItems") { checkLineItem(lineItem, &c) }
        c.attachment(item, "returnLabel")
    }

    private static func checkBarcode(_ barcode: OrderChecker.Object, _ c: inout OrderChecker) {
        c.oneOf(barcode, "format", barcodeFormats, required: true)
        c.string(barcode, "message", required: true)
        c.string(barcode, "messageEncoding", required: true, maxLength: 64)
        c.string(barcode, "altText")
    }

    private static func checkAddress(_ address: OrderChecker.Object, _ c: inout OrderChecker) {
        for key in ["locality", "subLocality", "administrativeArea", "subAdministrativeArea", "postalCode"] {
            c.string(address, key, maxLength: 256)
        }
        if let country = c.string(address, "countryCode", maxLength: 2), country.count != 2 {
            c.report(address.path("countryCode"), "must be a two-letter ISO 3166 country code")
        }
    }

    private static func checkLocation(_ location: OrderChecker.Object, _ c: inout OrderChecker) {
        for (key, limit) in [("latitude", 90.0), ("longitude", 180.0)] {
            switch location.members[key] {
            case .int(let value)? where abs(Double(value)) <= limit: break
            case .double(let value)? where abs(value) <= limit: break
            case nil: c.report(location.path(key), "is required")
            default: c.report(location.path(key), "must be a number from -\(Int(limit)) to \(Int(limit))")
            }
        }
    }
}
