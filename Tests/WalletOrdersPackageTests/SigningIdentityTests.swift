import Foundation
import Testing
import WalletOrdersCrypto
import WalletOrdersPackage
import WalletOrdersTesting

@Suite(.timeLimit(.minutes(5))) struct SigningIdentityTests {
    let keys = DevelopmentKeys.shared

    private func message(_ body: () throws -> SigningIdentity) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as PackageError {
            guard case .signingIdentity(let text) = error else { return "\(error)" }
            return text
        } catch {
            return "\(error)"
        }
    }

    @Test func matchingFilesLoad() throws {
        let identity = try SigningIdentity.load(
            certificateFile: keys.certificatePath,
            keyFile: keys.keyPath,
            password: nil,
            wwdrFile: keys.wwdrPath,
            orderTypeIdentifier: DevelopmentKeys.orderType
        )
        #expect(identity.orderTypeIdentifier == DevelopmentKeys.orderType)
        #expect(identity.teamIdentifier == DevelopmentKeys.team)
    }

    @Test func eachMismatchNamesTheFileAndTheProblem() throws {
        let other = try DevelopmentKeys(orderType: "order.com.example.other", team: "OTHER12345")
        #expect(
            message {
                try SigningIdentity.load(
                    certificateFile: keys.certificatePath,
                    keyFile: other.keyPath,
                    password: nil,
                    wwdrFile: keys.wwdrPath
                )
            } == "\(other.keyPath) is not the private key of the certificate in \(keys.certificatePath)"
        )
        #expect(
            message {
                try SigningIdentity.load(
                    certificateFile: keys.certificatePath,
                    keyFile: keys.keyPath,
                    password: nil,
                    wwdrFile: other.wwdrPath
                )
            }?.hasPrefix("\(keys.certificatePath) (") == true
        )
        #expect(
            message {
                try SigningIdentity.load(
                    certificateFile: keys.certificatePath,
                    keyFile: keys.keyPath,
                    password: nil,
                    wwdrFile: keys.wwdrPath,
                    orderTypeIdentifier: "order.com.example.shop"
                )
            } == "\(keys.certificatePath) is the certificate for order.com.example.dev, not for order.com.example.shop"
        )
        #expect(
            message {
                try SigningIdentity.load(
                    certificateFile: keys.certificatePath,
                    keyFile: keys.keyPath,
                    password: nil,
                    wwdrFile: keys.wwdrPath,
                    now: Date().addingTimeInterval(5 * 365 * 86_400)
                )
            }?.hasPrefix("\(keys.certificatePath) expired on") == true
        )
        #expect(
            message {
                try SigningIdentity.load(
                    certificateFile: keys.certificatePath,
                    keyFile: "/nonexistent.key",
                    password: nil,
                    wwdrFile: keys.wwdrPath
                )
            } == "/nonexistent.key: cannot read the signing key file"
        )
        #expect(
            message {
                try SigningIdentity.load(
                    certificateFile: keys.wwdrPath,
                    keyFile: keys.keyPath,
                    password: nil,
                    wwdrFile: keys.wwdrPath
                )
            }?.contains("is not the private key of the certificate") == true
        )
    }

    @Test func aPKCS12FileCarriesItsOwnCertificate() async throws {
        let folder = try TemporaryDirectory()
        let p12 = folder.path("order-type.p12")
        let made = try await Command.run(
            "openssl",
            [
                "pkcs12", "-export", "-inkey", keys.keyPath, "-in", keys.certificatePath, "-passout", "env:PASS", "-out", p12,
            ],
            environment: ["PASS": "s3cret"]
        )
        #expect(made.status == 0, "\(made.error)")
        let identity = try SigningIdentity.load(
            certificateFile: nil,
            keyFile: p12,
            password: "s3cret",
            wwdrFile: keys.wwdrPath
        )
        #expect(identity.orderTypeIdentifier == DevelopmentKeys.orderType)
        #expect(
            message {
                try SigningIdentity.load(certificateFile: nil, keyFile: p12, password: "nope", wwdrFile: keys.wwdrPath)
            } == "\(p12): reading a PKCS #12 file: the password does not open it"
        )
    }
}
