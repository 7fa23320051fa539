/// Every rule, in the order a run checks them.
extension Rule {
    /// Every rule the kit checks, in the order it checks them.
    public static let all: [Rule] = [
        fetchStatus, fetchContentType, packageSize, packageArchive, packageManifest, packageSignature, packageSigner,
        packageChain, packageOrder, packageIdentifiers, packageWebService, packageHTTPS,
        fetchWrongToken, fetchNoToken, fetchUnknownOrder,
        fetchLastModified, fetchLastModifiedNotAfterDate, fetchLastModifiedStable, fetchNotModified, fetchHead,
        registerCreated, registerAgain, registerWrongToken,
        listingNoAuthorization, listingNoTag, listingEmptyTag, listingLastModifiedString, listingOwnTag,
        listingUnknownDevice,
        logAccepts,
        pushArrives, pushTopic, pushPayload, pushNoAlert, pushAuthentication,
        updateListed, updateFetchNewer, updateUnchangedNotListed, updateUnchangedNotPushed,
        unregisterOK, unregisterListing,
    ]

    /// The rule with identifier `id`.
    public static func named(_ id: String) -> Rule? { all.first { $0.id == id } }
}
