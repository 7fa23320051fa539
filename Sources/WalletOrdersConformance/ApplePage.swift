/// Apple's WalletOrders pages the rules quote, and the sentences quoted from them.
enum ApplePage {
    static let root = "https://developer.apple.com/documentation/walletorders"
    static let fetch = "\(root)/retrieve-the-latest-version-of-an-order"
    static let register = "\(root)/register-a-device-for-update-notifications"
    static let unregister = "\(root)/unregister-a-device-from-update-notifications"
    static let registrations = "\(root)/retrieve-the-registrations-for-a-device"
    static let orderIdentifiers = "\(root)/orderidentifiers"
    static let log = "\(root)/receive-log-messages"
    static let package = "\(root)/building-a-distributable-order-package"
    static let source = "\(root)/creating-the-source-for-an-order"

    /// The overview's list of what a merchant needs to do.
    static let overviewWords =
        "To give people the ability to track their orders in Wallet, you need to: […] Build an order package and provide "
        + "access through your web service. Update the order when the order’s state has changed."
    static let fetchWords = "Retrieves the latest signed and compressed version of an order."
    static let cachingWords =
        "The device uses this endpoint for both initial and subsequent attempts to retrieve an order. Make sure you "
        + "support standard HTTP caching on this endpoint."
    static let registerWords = "Registers a device to receive update notifications for an order."
    static let pushWords =
        "When the system modifies an order, use the PushToken to send a push notification to the device. In the "
        + "notification, set the push topic as the order type identifier and leave the payload empty."
    static let unregisterWords = "Unregisters a device from receiving update notifications for an order."
    static let registrationsWords = "Retrieves the identifiers of the orders that the device registered for."
    static let orderIdentifiersWords = "The unique identifiers associated with orders."
    static let logWords = "Records log messages on your server."
    static let packageWords =
        "A distributable order package is a signed and compressed order ready for donating to Wallet. The order package "
        + "you distribute contains the JSON description of the order, images, optional localizations, and a signature "
        + "certifying the authenticity and integrity of the package."
    static let manifestWords =
        "To build an order package, you: […] Create an order type identifier. Generate a signing certificate. Create and "
        + "write the manifest. Sign and compress the order package."
    static let orderTypeWords = "An order type identifier is a unique identifier for your company or brand."
    static let sourceWords = "Add the order.json file that contains the information and metadata for the order."
}
