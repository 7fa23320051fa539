import Configuration
import Foundation
import Testing
import WalletOrdersTesting

@testable import WalletOrdersApplication

/// docs/configuration.md cannot drift from the code: every key the reader reads is a `Setting`, each is in the
/// reference with its environment name, and each environment name is the one the reader really reads.
@Suite(.timeLimit(.minutes(5))) struct ConfigurationReferenceTests {
    static let reference = SampleOrder.repository.appendingPathComponent("docs/configuration.md")

    @Test(arguments: Setting.allCases)
    func everySettingIsInTheReferenceWithItsEnvironmentName(setting: Setting) throws {
        let text = try String(contentsOf: Self.reference, encoding: .utf8)
        #expect(text.contains("`\(setting.rawValue)`"), "docs/configuration.md does not name `\(setting.rawValue)`")
        #expect(
            text.contains("`\(setting.environmentName)`"),
            "docs/configuration.md does not name `\(setting.environmentName)` for `\(setting.rawValue)`"
        )
    }

    @Test(arguments: Setting.allCases)
    func theEnvironmentNameIsTheOneTheReaderReads(setting: Setting) async throws {
        let value = setting == .orderTypes ? "a,b" : "value-\(setting.rawValue)"
        let reader = try await ServiceConfiguration.reader(file: nil, environment: [setting.environmentName: value])
        if setting == .orderTypes || setting == .merchantKeys {
            #expect(reader.texts(setting) == value.split(separator: ",").map(String.init))
        } else {
            #expect(reader.text(setting) == value)
        }
    }

    /// The reader reads only through `Setting`: no key is spelled as a string anywhere else in the application.
    @Test func theApplicationReadsNoKeyOutsideSetting() throws {
        let folder = SampleOrder.repository.appendingPathComponent("Sources/WalletOrdersApplication")
        let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && !$0.hasSuffix("Setting.swift") }
        #expect(!files.isEmpty)
        for file in files {
            let source = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for marker in ["forKey:", "ConfigKey("] {
                #expect(!source.contains(marker), "\(file) reads a key without Setting (\(marker))")
            }
        }
    }
}
