/// The rules about an update: the push, the listing and the fetch that follow it, and an update that changes nothing.
extension Rule {
    public static let pushArrives = Rule(
        "push.arrives",
        .must,
        "An update pushes to the registered token",
        apple: ApplePage.pushWords,
        page: ApplePage.register,
        check: "After --update, a push for the push token the kit registered reaches the kit's local APNs (waiting up to "
            + "--push-deadline).",
        needs: [.update, .apns]
    )
    public static let pushTopic = Rule(
        "push.topic",
        .must,
        "The push's apns-topic is the order type",
        apple: ApplePage.pushWords,
        page: ApplePage.register,
        check: "The push's apns-topic header is the order type identifier (not an app's bundle identifier).",
        after: ["push.arrives"],
        needs: [.update, .apns]
    )
    public static let pushPayload = Rule(
        "push.payload",
        .must,
        "The push's payload is empty",
        apple: ApplePage.pushWords,
        page: ApplePage.register,
        check: "The push's body is an empty JSON object, {}: no aps dictionary, no custom keys.",
        after: ["push.arrives"],
        needs: [.update, .apns]
    )
    public static let pushNoAlert = Rule(
        "push.noAlert",
        .must,
        "The push is a background push, not an alert",
        apple: ApplePage.pushWords,
        page: ApplePage.register,
        check: "The push says apns-push-type: background and apns-priority: 5 (APNs' terms for a push without an "
            + "alert; an empty alert push is refused by APNs), and its body holds no alert, badge or sound.",
        after: ["push.arrives"],
        needs: [.update, .apns]
    )
    public static let pushAuthentication = Rule(
        "push.authentication",
        .must,
        "The push authenticates as the order type",
        apple: ApplePage.pushWords,
        page: ApplePage.register,
        check: "The push carries `authorization: bearer {JWT}`, an ES256 provider token naming a key ID and a team, "
            + "issued within the hour (with --apns-key, --apns-key-id and --apns-team-id its signature, key ID and team "
            + "are checked too); or, with no token, the provider's TLS client certificate is the Order Type ID "
            + "certificate of the order type, chaining to the trusted root (not an app's push certificate).",
        after: ["push.arrives"],
        needs: [.update, .apns]
    )
    public static let updateListed = Rule(
        "update.listed",
        .must,
        "After the update, the listing names the order with a new tag",
        apple: ApplePage.registrationsWords,
        page: ApplePage.registrations,
        check: "After --update (and its push), the listing with the tag from before answers 200 naming the order, with "
            + "a lastModified different from the one before.",
        needs: [.update]
    )
    public static let updateFetchNewer = Rule(
        "update.fetchNewer",
        .must,
        "After the update, the fetch serves a newer order",
        apple: ApplePage.overviewWords,
        page: ApplePage.root,
        check: "After --update, the fetch with If-Modified-Since set to the old Last-Modified answers 200 with a package "
            + "whose order.json updatedAt is later than the old one's.",
        after: ["fetch.status"],
        needs: [.update]
    )
    public static let updateUnchangedNotListed = Rule(
        "update.unchangedNotListed",
        .must,
        "An update that changes nothing is not listed",
        apple: ApplePage.registrationsWords,
        page: ApplePage.registrations,
        check: "After --unchanged-update, the listing with the latest tag answers 204 (or 200 naming no order): Wallet "
            + "would fetch the same package and log \"requested update … but it was unchanged\".",
        after: ["update.listed", "listing.ownTag"],
        needs: [.update, .unchangedUpdate]
    )
    public static let updateUnchangedNotPushed = Rule(
        "update.unchangedNotPushed",
        .should,
        "An update that changes nothing pushes nothing",
        apple: ApplePage.pushWords,
        page: ApplePage.register,
        check: "No push for the kit's token comes within --quiet-period after --unchanged-update.",
        after: ["push.arrives"],
        needs: [.update, .unchangedUpdate, .apns]
    )
}
