import Foundation
import Testing
import WalletOrdersSQLite
import WalletOrdersTesting

/// The SQLite database holds every order's authentication token and every push token: its files are readable by
/// their owner alone.
@Suite(.timeLimit(.minutes(5))) struct SQLiteFileModeTests {
    @Test func theDatabaseAndItsLogAndSharedMemoryFilesAreCreatedForTheOwnerAlone() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("orders.sqlite")
        let store = try SQLiteStore(path: path)
        do {
            _ = try await store.migrate()
            try await store.checkWritable()
            for file in [path, path + "-wal", path + "-shm"] {
                let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
                #expect(mode & 0o077 == 0, "\(file) is \(String(mode, radix: 8))")
                #expect(mode & 0o600 == 0o600, "\(file) is \(String(mode, radix: 8))")
            }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }
}
