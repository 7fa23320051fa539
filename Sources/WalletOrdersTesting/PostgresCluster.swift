import Foundation
import Synchronization

/// A throwaway PostgreSQL server for tests and local tries: `initdb` into a temporary folder, `pg_ctl start` on a
/// free loopback port with its socket in that folder, stopped and removed when the process exits.
///
/// PostgreSQL refuses to run as root, so when the process is root the server runs as the `postgres` user that
/// Debian's `postgresql` package creates (through `runuser`). Needs the server binaries: Debian's `postgresql`.
public final class PostgresCluster: Sendable {
    /// The folder holding the data directory, the socket and the log.
    public let folder: String
    /// The TCP port on 127.0.0.1.
    public let port: Int
    private let binaries: String
    /// The `-c name=value` settings the server starts with.
    private let serverOptions: String
    private let databases = Atomic<Int>(0)

    /// One cluster per process, started on first use (on a thread of its own); each test makes databases of its
    /// own in it.
    public static var shared: PostgresCluster {
        get async throws { try await sharedCluster.cluster() }
    }

    private static let sharedCluster = SharedCluster()

    /// Starts the shared cluster once, for every caller at once.
    private actor SharedCluster {
        private var starting: Task<PostgresCluster, any Error>?

        func cluster() async throws -> PostgresCluster {
            let task =
                starting
                ?? Task {
                    try await onOwnThread {
                        stopAbandonedClusters()
                        let cluster = try PostgresCluster(blocking: [:])
                        registerStopAtExit(cluster)
                        return cluster
                    }
                }
            starting = task
            return try await task.value
        }
    }

    /// Starts a new cluster (on a thread of its own); stop it when done. `settings` are extra server settings
    /// (`-c name=value`).
    public static func start(settings: [String: String] = [:]) async throws -> PostgresCluster {
        try await onOwnThread { try PostgresCluster(blocking: settings) }
    }

    /// Starts a new cluster, waiting on the calling thread.
    private init(blocking settings: [String: String]) throws {
        guard let binaries = Self.findBinaries() else {
            throw ClusterError("PostgreSQL's server programs are not installed (Debian: apt-get install postgresql)")
        }
        self.binaries = binaries
        folder = try Self.makeFolder()
        port = try freePort()
        // Enough connections for tests running side by side, each store with a small pool and a probe connection
        // of its own; durability is not what a test checks, so commits do not wait for the disk.
        var options = [
            "listen_addresses": "127.0.0.1", "port": "\(port)", "unix_socket_directories": folder,
            "max_connections": "1000", "fsync": "off", "synchronous_commit": "off",
            "full_page_writes": "off",
        ]
        options.merge(settings) { $1 }
        serverOptions = options.sorted { $0.key < $1.key }.map { "-c \($0.key)=\($0.value)" }.joined(separator: " ")
        try run("initdb", ["-D", "\(folder)/data", "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"])
        try startServerBlocking()
    }

    /// Starts the server again after `stopServer`, on the same port with the same data.
    public func startServer() async throws {
        try await onOwnThread { try self.startServerBlocking() }
    }

    private func startServerBlocking() throws {
        try run("pg_ctl", ["-D", "\(folder)/data", "-l", "\(folder)/server.log", "-w", "-t", "60", "-o", serverOptions, "start"])
    }

    /// Stops the server at once, as a crash would (`pg_ctl stop -m immediate`), keeping its data for `startServer`.
    public func stopServer() async throws {
        try await onOwnThread { try self.run("pg_ctl", ["-D", "\(self.folder)/data", "-m", "immediate", "-w", "stop"]) }
    }

    /// A URL for `database` as the superuser, over TCP without TLS.
    public func url(database: String = "postgres") -> String {
        "postgres://postgres@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// Makes a new database, a copy of `template` when given, and answers its URL.
    public func createDatabase(named name: String? = nil, template: String? = nil) async throws -> String {
        let name = name ?? "test_\(databases.add(1, ordering: .relaxed).newValue)"
        try await psql("CREATE DATABASE \"\(name)\"" + (template.map { " TEMPLATE \"\($0)\"" } ?? ""))
        return url(database: name)
    }

    /// Runs one SQL statement as the superuser in `database` with `psql`, answering what it printed.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") async throws -> String {
        let result = try await Command.run(
            "\(binaries)/psql",
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres",
                "-d", database, "-c", sql,
            ]
        )
        guard result.status == 0 else { throw ClusterError("psql failed: \(result.error)") }
        return result.output
    }

    /// Stops the server at once and removes its folder.
    public func stop() async {
        _ = try? await onOwnThread { self.stopBlocking() }
    }

    /// `stop`, waiting on the calling thread: at the process's exit.
    fileprivate func stopBlocking() {
        _ = try? run("pg_ctl", ["-D", "\(folder)/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Stops and removes clusters left behind by test processes that died before their exit handler ran
    /// (their folder names the process).
    private static func stopAbandonedClusters() {
        guard let binaries = findBinaries(),
            let names = try? FileManager.default.contentsOfDirectory(atPath: "/tmp")
        else { return }
        for name in names where name.hasPrefix("wo-pg-") {
            let parts = name.split(separator: "-")
            guard parts.count >= 4, let pid = Int32(parts[2]), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let data = "/tmp/\(name)/data"
            let stop = ["\(binaries)/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"]
            _ =
                try?
                (getuid() == 0
                ? Command.runBlocking("runuser", ["-u", "postgres", "--"] + stop)
                : Command.runBlocking(stop[0], Array(stop.dropFirst())))
            try? FileManager.default.removeItem(atPath: "/tmp/\(name)")
        }
    }

    /// The sessions connected to `database`, as `pg_stat_activity` lists them (one line each: pid, application, state,
    /// query); none once every client of it has closed its connections and the server has ended their backends.
    public func sessions(of database: String) async throws -> [String] {
        try await psql(
            "SELECT pid || ' ' || application_name || ' ' || coalesce(state, '') || ' ' || left(coalesce(query, ''), 80) "
                + "FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid()"
        ).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// Everything a database holds, as `pg_dump` writes it (SQL text): what a test reads to see that something is
    /// stored nowhere.
    public func dump(_ url: String) async throws -> String {
        let result = try await Command.run("\(binaries)/pg_dump", ["--dbname", url])
        guard result.status == 0 else { throw ClusterError("pg_dump failed (\(result.status)): \(result.error)") }
        return result.output
    }

    /// The server's log, for a failing test to show.
    public var log: String { (try? String(contentsOfFile: "\(folder)/server.log", encoding: .utf8)) ?? "" }

    /// Runs a server program as the user PostgreSQL accepts, waiting on the calling thread.
    private func run(_ program: String, _ arguments: [String]) throws {
        let path = "\(binaries)/\(program)"
        let result =
            getuid() == 0
            ? try Command.runBlocking("runuser", ["-u", "postgres", "--", path] + arguments, directory: folder)
            : try Command.runBlocking(path, arguments, directory: folder)
        guard result.status == 0 else {
            throw ClusterError("\(program) failed (\(result.status)): \(result.error)\(result.output)\n\(log)")
        }
    }

    /// `/usr/lib/postgresql/<newest version>/bin`, or where `pg_config` says.
    private static func findBinaries() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted()
        if let newest = versions.last, FileManager.default.isExecutableFile(atPath: "\(root)/\(newest)/bin/initdb") {
            return "\(root)/\(newest)/bin"
        }
        if let bindir = try? Command.runBlocking("pg_config", ["--bindir"]), bindir.status == 0 {
            let path = bindir.output.trimmingCharacters(in: .whitespacesAndNewlines)
            if FileManager.default.isExecutableFile(atPath: "\(path)/initdb") { return path }
        }
        return nil
    }

    /// A new folder the server's user owns; short, since a Unix socket path must stay under 108 bytes.
    private static func makeFolder() throws -> String {
        let path = "/tmp/wo-pg-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        if getuid() == 0 {
            let owner = try Command.runBlocking("chown", ["postgres:postgres", path])
            guard owner.status == 0 else {
                throw ClusterError("cannot hand \(path) to the postgres user: \(owner.error)")
            }
        }
        return path
    }

    /// Why the cluster could not be used.
    public struct ClusterError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

/// The shared cluster, stopped when the process exits (an `atexit` handler cannot capture it).
private let clusterToStop = Mutex<PostgresCluster?>(nil)

private func registerStopAtExit(_ cluster: PostgresCluster) {
    clusterToStop.withLock { $0 = cluster }
    atexit {
        clusterToStop.withLock { $0 }?.stopBlocking()
    }
}

extension PostgresCluster {
    /// Waits until no session is connected to `database`, for up to `seconds`; throws the sessions still there then.
    public func waitForNoSessions(of database: String, seconds: Int = 60) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var sessions = try await self.sessions(of: database)
        while !sessions.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            sessions = try await self.sessions(of: database)
        }
        guard sessions.isEmpty else {
            throw ClusterError("sessions still connected to \(database) after \(seconds) s:\n\(sessions.joined(separator: "\n"))")
        }
    }
}
