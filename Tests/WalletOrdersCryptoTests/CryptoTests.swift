import Foundation
import Testing
import WalletOrdersCrypto
import WalletOrdersTesting

@Suite(.timeLimit(.minutes(5))) struct CryptoTests {
    let keys = DevelopmentKeys.shared

    @Test func developmentChainVerifiesWithTheOpenSSLCommand() async throws {
        let result = try await Command.run(
            "openssl",
            [
                "verify", "-CAfile", keys.rootPath, "-untrusted", keys.wwdrPath, keys.certificatePath,
            ]
        )
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains(": OK"))
    }

    @Test func orderTypeCertificateNamesTypeAndTeamLikeApples() {
        let certificate = keys.chain.orderTypeCertificate
        #expect(certificate.subjectUserID == DevelopmentKeys.orderType)
        #expect(certificate.subjectOrganizationalUnit == DevelopmentKeys.team)
        #expect(certificate.subjectCommonName == "Order Type ID: \(DevelopmentKeys.orderType)")
        #expect(certificate.isIssued(by: keys.chain.wwdr))
        #expect(!certificate.isIssued(by: keys.chain.root))
        #expect(keys.chain.orderTypeKey.matches(certificate))
        #expect(!keys.chain.apnsKey.matches(certificate))
        #expect(keys.chain.apnsKey.isP256)
        #expect(keys.chain.apnsKeyID.count == 10)
    }

    @Test func detachedSignatureVerifiesWithTheOpenSSLCommand() async throws {
        let folder = try TemporaryDirectory()
        let content = Data(#"{"order.json":"abc"}"#.utf8)
        let time = Date(timeIntervalSince1970: 1_795_342_530)
        let signature = try CMSSignature.sign(
            content,
            certificate: keys.chain.orderTypeCertificate,
            key: keys.chain.orderTypeKey,
            chain: [keys.chain.wwdr],
            signingTime: time
        )
        let contentPath = try folder.write("manifest.json", content)
        let signaturePath = try folder.write("signature", signature)
        let verified = try await Command.run(
            "openssl",
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", signaturePath, "-content", contentPath,
                "-CAfile", keys.rootPath, "-purpose", "any", "-out", "/dev/null",
            ]
        )
        #expect(verified.status == 0, "\(verified.error)")

        let info = try CMSSignature.verify(signature, content: content, trustedRoots: [keys.chain.root])
        #expect(info.signingTime == time)
        #expect(info.signers.first?.isSame(as: keys.chain.orderTypeCertificate) == true)
        #expect(info.certificates.contains { $0.isSame(as: keys.chain.wwdr) })
    }

    @Test func aSignatureOverOtherBytesOrFromAnotherRootFails() throws {
        let content = Data("manifest".utf8)
        let signature = try CMSSignature.sign(
            content,
            certificate: keys.chain.orderTypeCertificate,
            key: keys.chain.orderTypeKey,
            chain: [keys.chain.wwdr],
            signingTime: Date()
        )
        #expect(throws: CryptoError.self) {
            try CMSSignature.verify(signature, content: Data("manifesT".utf8), trustedRoots: nil)
        }
        let stranger = try DevelopmentChain(orderTypeIdentifier: "order.com.example.other", teamIdentifier: "OTHER12345")
        #expect(throws: CryptoError.self) {
            try CMSSignature.verify(signature, content: content, trustedRoots: [stranger.root])
        }
        _ = try CMSSignature.verify(signature, content: content, trustedRoots: nil)
    }

    @Test func sameInputsAndTimeGiveTheSameSignatureBytes() throws {
        let time = Date(timeIntervalSince1970: 1_795_342_530)
        let sign = {
            try CMSSignature.sign(
                Data("m".utf8),
                certificate: keys.chain.orderTypeCertificate,
                key: keys.chain.orderTypeKey,
                chain: [keys.chain.wwdr],
                signingTime: time
            )
        }
        #expect(try sign() == sign())
    }

    @Test func encryptedPEMKeysNeedTheirPassword() async throws {
        let folder = try TemporaryDirectory()
        let encrypted = folder.path("encrypted.key")
        let made = try await Command.run(
            "openssl",
            [
                "pkey", "-in", keys.keyPath, "-aes256", "-passout", "env:KEY_PASSWORD", "-out", encrypted,
            ],
            environment: ["KEY_PASSWORD": "correct horse"]
        )
        #expect(made.status == 0, "\(made.error)")
        let pem = try Data(contentsOf: URL(fileURLWithPath: encrypted))
        let key = try PrivateKey(pem: pem, password: "correct horse")
        #expect(key.matches(keys.chain.orderTypeCertificate))
        let missing = #expect(throws: CryptoError.self) { try PrivateKey(pem: pem) }
        #expect(missing?.operation == "reading the private key: it is encrypted and no password was given")
        let wrong = #expect(throws: CryptoError.self) { try PrivateKey(pem: pem, password: "battery staple") }
        #expect(wrong?.operation == "reading the private key: the password does not decrypt it")
    }

    @Test func pkcs12FilesFromOpenSSLAreRead() async throws {
        let folder = try TemporaryDirectory()
        let p12 = folder.path("order-type.p12")
        let made = try await Command.run(
            "openssl",
            [
                "pkcs12", "-export", "-inkey", keys.keyPath, "-in", keys.certificatePath, "-certfile", keys.wwdrPath,
                "-passout", "env:P12_PASSWORD", "-out", p12,
            ],
            environment: ["P12_PASSWORD": "s3cret"]
        )
        #expect(made.status == 0, "\(made.error)")
        let bundle = try PKCS12Bundle(der: Data(contentsOf: URL(fileURLWithPath: p12)), password: "s3cret")
        #expect(bundle.certificate.isSame(as: keys.chain.orderTypeCertificate))
        #expect(bundle.key.matches(bundle.certificate))
        #expect(bundle.otherCertificates.contains { $0.isSame(as: keys.chain.wwdr) })
        #expect(throws: CryptoError.self) {
            try PKCS12Bundle(der: Data(contentsOf: URL(fileURLWithPath: p12)), password: "wrong")
        }
    }

    @Test func es256SignaturesVerifyWithTheOpenSSLCommand() async throws {
        let folder = try TemporaryDirectory()
        let message = Data("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNIn0".utf8)
        let raw = try keys.chain.apnsKey.signES256(message)
        #expect(raw.count == 64)
        // openssl wants DER: SEQUENCE { INTEGER r, INTEGER s }, written out here by hand.
        func integer(_ bytes: Data) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw.prefix(32)) + integer(raw.suffix(32))
        try folder.write("sig.der", Data([0x30, UInt8(body.count)] + body))
        try folder.write("message", message)
        let result = try await Command.run(
            "openssl",
            [
                "dgst", "-sha256", "-verify", keys.folder.path("apns-public.pem"), "-signature", folder.path("sig.der"),
                folder.path("message"),
            ]
        )
        #expect(result.status == 0, "\(result.output) \(result.error)")
        let publicKey = try PublicKey(pem: Data(contentsOf: URL(fileURLWithPath: keys.folder.path("apns-public.pem"))))
        #expect(publicKey.isValidES256(raw, for: message))
        #expect(!publicKey.isValidES256(raw, for: message + Data("x".utf8)))
    }

    @Test func digestsMatchKnownValues() {
        #expect(
            DigestAlgorithm.sha256.hexDigest(Data("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
        #expect(DigestAlgorithm.sha1.hexDigest(Data("abc".utf8)) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }
}
