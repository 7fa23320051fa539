import Foundation
import Logging
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersPostgres
import WalletOrdersPush
import WalletOrdersSQLite
import WalletOrdersService
import WalletOrdersStore

/// What `serve` checks before it starts and `doctor` prints: every order type's certificates, keys and
/// template, its APNs credentials, and the database. A problem stops `serve`; a warning does not.
public enum ServiceChecks {
    /// Certificates expiring within this many days are warned about.
    public static let expiryWarningDays = 30

    /// Checks `configuration` at `now`, and loads what passes: order types ready to sign, and APNs credentials
    /// whose provider tokens read `clock` when they are issued. PostgreSQL has `databaseTimeout` to answer.
    public static func run(
        _ configuration: ServiceConfiguration,
        now: Date,
        clock: @escaping @Sendable () -> Date = Date.init,
        databaseTimeout: Duration = ServiceChecks.databaseTimeout,
        logger: Logger = Logger(label: "wallet-orders.checks")
    ) async -> CheckReport {
        var report = CheckReport()
        for type in configuration.orderTypes {
            check(type, allowsHTTP: configuration.allowsHTTPWebService, now: now, clock: clock, into: &report)
        }
        if configuration.allowsHTTPWebService {
            report.findings.append(
                CheckFinding(
                    level: .warning,
                    message: "the webServiceURL \(configuration.webServiceURL) is "
                        + "plain http: fine for development, but Wallet only talks to https web services (set publicURL)"
                )
            )
        }
        report.findings.append(checkPushTransport())
        let keyProblems = KeyStrength.problems(
            merchantKeys: configuration.merchantKeys,
            adminKey: configuration.adminKey,
            operatorKey: configuration.operatorKey
        )
        report.findings += keyProblems.map { CheckFinding(level: .problem, message: $0) }
        if keyProblems.isEmpty, !configuration.merchantKeys.isEmpty || configuration.adminKey != nil || configuration.operatorKey != nil {
            report.findings.append(
                CheckFinding(level: .ok, message: "the configured keys carry at least 128 bits each, one key per role")
            )
        }
        report.findings += await checkDatabase(
            configuration.database,
            minFreeDiskBytes: configuration.minFreeDiskBytes,
            timeout: databaseTimeout,
            logger: logger
        )
        return report
    }

    /// The order types of `configuration`, loaded and checked as `run` checks them (signing files, certificates,
    /// templates, APNs credentials), and nothing else: what a command needs to sign and push as the server would.
    public static func orderTypes(_ configuration: ServiceConfiguration, clock: @escaping @Sendable () -> Date) -> CheckReport {
        var report = CheckReport()
        for type in configuration.orderTypes {
            check(type, allowsHTTP: configuration.allowsHTTPWebService, now: clock(), clock: clock, into: &report)
        }
        return report
    }

    /// APNs speaks HTTP/2 only: the libcurl this process loaded must have it (and TLS).
    static func checkPushTransport() -> CheckFinding {
        do {
            try CurlPushTransport.checkHTTP2Support()
            return CheckFinding(level: .ok, message: "libcurl speaks HTTP/2 over TLS, as APNs requires")
        } catch {
            return CheckFinding(level: .problem, message: "\(error): no push could be sent")
        }
    }

    static func check(
        _ type: OrderTypeConfiguration,
        allowsHTTP: Bool,
        now: Date,
        clock: @escaping @Sendable () -> Date,
        into report: inout CheckReport
    ) {
        let name = "order type \(type.identifier)"
        var findings: [CheckFinding] = []
        var loadable = true
        func problem(_ message: String) {
            findings.append(CheckFinding(level: .problem, message: message))
        }
        defer { report.findings += findings }

        if let issue = Identifier.problem(with: type.identifier) {
            problem("\(name) \(issue)")
            loadable = false
        }
        let (identity, problems) = SigningIdentity.check(
            certificateFile: type.signingCertificate,
            keyFile: type.signingKey,
            password: type.signingKeyPassword,
            wwdrFile: type.wwdrCertificate,
            orderTypeIdentifier: type.identifier,
            now: now
        )
        for message in problems { problem("\(name): \(message)") }
        if let identity, problems.isEmpty {
            report.certificates += [
                CertificateExpiry(orderType: type.identifier, kind: .signing, notAfter: identity.certificate.notAfter),
                CertificateExpiry(orderType: type.identifier, kind: .wwdr, notAfter: identity.wwdr.notAfter),
            ]
            let files = [
                (type.signingCertificate ?? type.signingKey, identity.certificate.notAfter),
                (type.wwdrCertificate, identity.wwdr.notAfter),
            ]
            var expiring = false
            for (file, notAfter) in files {
                if let warning = expiryWarning(file, notAfter: notAfter, now: now) {
                    findings.append(CheckFinding(level: .warning, message: "\(name): \(warning)"))
                    expiring = true
                }
            }
            if !expiring {
                findings.append(
                    CheckFinding(
                        level: .ok,
                        message: "\(name): the signing certificate, its key and the "
                            + "WWDR certificate match, until \(RFC3339.format(min(files[0].1, files[1].1)))"
                    )
                )
            }
        }
        var template = OrderTemplate()
        if let folder = type.template {
            do {
                template = try OrderTemplate(directory: URL(fileURLWithPath: folder))
                findings.append(CheckFinding(level: .ok, message: "\(name): template \(folder)"))
            } catch {
                problem("\(name): \(error)")
                loadable = false
            }
        }
        if loadable, let identity, problems.isEmpty {
            report.orderTypes.append(
                OrderType(
                    identifier: type.identifier,
                    builder: PackageBuilder(identity: identity, digest: type.manifestDigest, allowsHTTPWebService: allowsHTTP),
                    template: template
                )
            )
        }
        do {
            let credentials = try type.apnsCredentials(now: clock)
            switch credentials {
            case .token:
                findings.append(
                    CheckFinding(
                        level: .ok,
                        message: "\(name): APNs token key \(type.apnsKey ?? ""), "
                            + "pushes to \(type.apnsEndpoint.baseURL)"
                    )
                )
            case .certificate(let certificate):
                let file = type.apnsCertificate ?? ""
                report.certificates.append(
                    CertificateExpiry(orderType: type.identifier, kind: .apns, notAfter: certificate.notAfter)
                )
                if let warning = expiryWarning(file, notAfter: certificate.notAfter, now: now) {
                    findings.append(CheckFinding(level: .warning, message: "\(name): APNs certificate \(warning)"))
                } else {
                    findings.append(
                        CheckFinding(
                            level: .ok,
                            message: "\(name): APNs certificate \(file), "
                                + "pushes to \(type.apnsEndpoint.baseURL)"
                        )
                    )
                }
            case nil:
                findings.append(
                    CheckFinding(
                        level: .warning,
                        message: "\(name) has no APNs credentials "
                            + "(apnsKey or apnsCert): its pushes wait in the outbox"
                    )
                )
            }
            report.apnsCredentials[type.identifier] = credentials
        } catch {
            problem("\(error)")
        }
    }

    private static func expiryWarning(_ file: String, notAfter: Date, now: Date) -> String? {
        let days = Int(notAfter.timeIntervalSince(now) / 86_400)
        guard days < expiryWarningDays else { return nil }
        return "\(file) expires on \(RFC3339.format(notAfter)), in \(days) day\(days == 1 ? "" : "s"): renew it"
    }

    /// Whether the database can be opened and written, and (SQLite) whether its disk has `minFreeDiskBytes` free;
    /// does not apply migrations.
    static func checkDatabase(
        _ location: DatabaseLocation,
        minFreeDiskBytes: Int?,
        timeout: Duration,
        logger: Logger
    ) async -> [CheckFinding] {
        switch location {
        case .sqlite(let path): await checkSQLite(path, minFreeDiskBytes: minFreeDiskBytes)
        case .postgres(let url): [await checkPostgres(url, timeout: timeout, logger: logger)]
        }
    }

    /// How long reaching PostgreSQL may take before the check says it cannot.
    public static let databaseTimeout: Duration = .seconds(10)

    private static func checkPostgres(_ url: PostgresURL, timeout: Duration, logger: Logger) async -> CheckFinding {
        var quiet = logger
        quiet.logLevel = .critical
        enum Outcome: Sendable {
            case writable(pending: [String])
            /// Why, as the error tells it.
            case unreachable(String)
            case failed(String)
        }
        // PostgresNIO's pool keeps trying to connect while a request waits; a check must end.
        let outcome = await withTaskGroup(of: Outcome?.self) { group in
            group.addTask { [quiet] in
                // One connection first, so that a server that refuses, or a wrong password or database, is said at
                // once and with PostgreSQL's reason.
                do {
                    try await PostgresStore.connectOnce(url, logger: quiet)
                } catch {
                    return .unreachable(String(reflecting: error))
                }
                let store = await PostgresStore(url: url, connections: 1, logger: quiet)
                defer { Task { await store.close() } }
                do {
                    try await store.checkWritable()
                    return .writable(pending: try await store.pendingMigrations())
                } catch {
                    return .failed(String(reflecting: error))
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        switch outcome {
        case .writable(let pending)?:
            return CheckFinding(
                level: .ok,
                message: "the database \(url) is writable"
                    + (pending.isEmpty ? "" : "; migrations to apply: \(pending.joined(separator: ", "))")
            )
        case .unreachable(let reason)?:
            return CheckFinding(level: .problem, message: "the database \(url) cannot be reached: \(reason)")
        case .failed(let reason)?:
            return CheckFinding(level: .problem, message: "the database \(url) cannot be written: \(reason)")
        case nil:
            return CheckFinding(level: .problem, message: "the database \(url) did not answer within \(timeout)")
        }
    }

    private static func checkSQLite(_ path: String, minFreeDiskBytes: Int?) async -> [CheckFinding] {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue {
                return [CheckFinding(level: .problem, message: "the database \(path) is a folder, not an SQLite file")]
            }
            let store: SQLiteStore
            do {
                store = try SQLiteStore(path: path)
            } catch {
                return [CheckFinding(level: .problem, message: "the database \(path) cannot be written: \(error)")]
            }
            defer { Task { await store.close() } }
            let disk = store.diskSpace().map { checkDiskSpace($0, minimum: minFreeDiskBytes) }
            do {
                try await store.checkWritable()
                let pending = try await store.pendingMigrations()
                let writable = CheckFinding(
                    level: .ok,
                    message: "the database \(path) is writable"
                        + (pending.isEmpty ? "" : "; migrations to apply: \(pending.joined(separator: ", "))")
                )
                return [writable] + (disk.map { [$0] } ?? [])
            } catch StoreError.diskFull {
                // Not a problem that should keep serve from starting: it answers reads, and writes once there is room.
                let full = CheckFinding(
                    level: .warning,
                    message: "the database \(path) cannot be written now: the disk holding it is full. serve answers "
                        + "reads, and refuses writes with 507 until there is room"
                )
                return [full] + (disk.map { [$0] } ?? [])
            } catch {
                return [CheckFinding(level: .problem, message: "the database \(path) cannot be written: \(error)")]
            }
        }
        // Not there yet: the nearest existing folder above it must let us create it.
        var folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            folder = folder.deletingLastPathComponent()
        }
        guard isDirectory.boolValue, FileManager.default.isWritableFile(atPath: folder.path) else {
            return [
                CheckFinding(
                    level: .problem,
                    message: "the database \(path) cannot be created: "
                        + "\(folder.path) is \(isDirectory.boolValue ? "not writable" : "a file, not a folder")"
                )
            ]
        }
        return [CheckFinding(level: .ok, message: "the database \(path) does not exist yet and will be created")]
    }

    /// The room left on the database's disk against `minimum`: a warning below it, which `serve` logs at start and
    /// `/healthz` reports (503) while it lasts.
    static func checkDiskSpace(_ disk: DiskSpace, minimum: Int?) -> CheckFinding {
        if let shortage = ServiceHealth.shortage(disk, minimum: minimum) {
            return CheckFinding(level: .warning, message: "\(disk.folder): \(shortage)")
        }
        return CheckFinding(
            level: .ok,
            message: "the disk holding the database (\(disk.folder)) has \(DiskSpace.text(disk.freeBytes)) free"
                + (minimum.map { " (minFreeDiskBytes: \(DiskSpace.text($0)))" } ?? "")
        )
    }
}
