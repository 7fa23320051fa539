/// Where orders, their packages, device registrations, device logs, the two outboxes, merchants and partners,
/// tracking events and download links live: every capability of a store, under one name.
///
/// Two engines implement it: SQLite (one file, one writer, the embedded default) and PostgreSQL (several
/// instances of the service sharing one database). Every method is one transaction; a store never calls back
/// into the layers above it. Both engines pass the same conformance tests.
///
/// Callers take the narrowest capability they need (a worker the outbox it drains, the fetch `OrderStorage`), so
/// that what each part of the service may do to the data is in its signature, and a test decorates only what it
/// counts.
public typealias OrderStore = StoreLifecycle & OrderStorage & RegistrationStorage & DeviceLogStorage
    & PushOutboxStorage & WebhookEndpointStorage & WebhookOutboxStorage & MerchantStorage & PartnerStorage
    & TrackingStorage & LinkStorage & ConsoleStorage & ShopConnectionStorage
