import Foundation
import Testing
import WalletOrdersCrypto
import WalletOrdersTesting

@Suite(.timeLimit(.minutes(5))) struct CMSSignerTests {
    let keys = DevelopmentKeys.shared

    private var signer: CMSSigner {
        CMSSigner(certificate: keys.chain.orderTypeCertificate, key: keys.chain.orderTypeKey, chain: [keys.chain.wwdr])
    }

    private func openSSLSignature(_ content: Data, at time: Date) throws -> Data {
        try CMSSignature.sign(
            content,
            certificate: keys.chain.orderTypeCertificate,
            key: keys.chain.orderTypeKey,
            chain: [keys.chain.wwdr],
            signingTime: time
        )
    }

    @Test func rsaSignaturesAreByteForByteWhatOpenSSLsCMSSignWrites() throws {
        let content = Data(#"{"order.json":"abc"}"#.utf8)
        // UTCTime until the end of 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5), as ASN1_TIME_set picks.
        for seconds in [1_795_342_530, 2_524_607_999, 2_524_608_000, 0] {
            let time = Date(timeIntervalSince1970: TimeInterval(seconds))
            let signature = try signer.sign(content, signingTime: time)
            #expect(signature.der == (try openSSLSignature(content, at: time)), "signing time \(time)")
            let info = try CMSSignature.verify(signature.der, content: content, trustedRoots: [keys.chain.root])
            #expect(info.signingTime == time)
        }
    }

    @Test func theCertificateSetIsTheSameBytesInEverySignature() throws {
        let signer = self.signer
        let first = try signer.sign(Data("a".utf8), signingTime: Date(timeIntervalSince1970: 1_795_342_530))
        let second = try signer.sign(Data("b".utf8), signingTime: Date(timeIntervalSince1970: 1_795_342_532))
        #expect(first.certificateSet == signer.certificateSet)
        #expect(second.certificateSet == signer.certificateSet)
        #expect(first.head == second.head)
        #expect(first.tail != second.tail)
        let der = first.der
        #expect(der.range(of: keys.chain.orderTypeCertificate.der) != nil)
        #expect(der.range(of: keys.chain.wwdr.der) != nil)
    }

    @Test func aSignatureIsAssembledAgainFromItsValueWithoutTheKey() throws {
        let ecKey = try PrivateKey.generateP256()
        let ecCertificate = try Certificate.issue(
            subject: [("UID", "order.com.example.ec"), ("CN", "EC signer")],
            subjectKey: ecKey,
            issuer: nil,
            issuerKey: ecKey,
            role: .signer,
            serial: 9,
            notBefore: Date().addingTimeInterval(-60),
            notAfter: Date().addingTimeInterval(3_600)
        )
        let ec = CMSSigner(certificate: ecCertificate, key: ecKey, chain: [keys.chain.wwdr])
        let time = Date(timeIntervalSince1970: 1_795_342_530)
        let content = Data(#"{"order.json":"abc"}"#.utf8)
        for signer in [self.signer, ec] {
            let signed = try signer.sign(content, signingTime: time)
            let value = try #require(signed.value)
            // ECDSA signs with a random nonce: only the value kept gives the same bytes again.
            let again = try #require(try signer.signature(over: content, signingTime: time, value: value))
            #expect(again.der == signed.der)
            #expect(try CMSSignature.verify(again.der, content: content, trustedRoots: nil).signingTime == time)
            // The same value over other content or at another time is no signature of it.
            for (other, at) in [(Data("other".utf8), time), (content, time.addingTimeInterval(1))] {
                let wrong = try #require(try signer.signature(over: other, signingTime: at, value: value))
                #expect(throws: (any Error).self) { try CMSSignature.verify(wrong.der, content: other, trustedRoots: nil) }
            }
        }
    }

    @Test func signaturesFromManyThreadsAtOnceAreAllRight() async throws {
        let signer = self.signer
        let time = Date(timeIntervalSince1970: 1_795_342_530)
        let contents = (0..<64).map { Data("manifest \($0)".utf8) }
        let expected = try contents.map { try openSSLSignature($0, at: time) }
        let signed = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for (index, content) in contents.enumerated() {
                group.addTask { (index, try signer.sign(content, signingTime: time).der) }
            }
            var signed = [Data](repeating: Data(), count: contents.count)
            for try await (index, der) in group { signed[index] = der }
            return signed
        }
        #expect(signed == expected)
    }

    @Test func ecKeysSignToo() async throws {
        let key = try PrivateKey.generateP256()
        let now = Date()
        let certificate = try Certificate.issue(
            subject: [("UID", "order.com.example.ec"), ("CN", "EC signer")],
            subjectKey: key,
            issuer: nil,
            issuerKey: key,
            role: .signer,
            serial: 9,
            notBefore: now.addingTimeInterval(-60),
            notAfter: now.addingTimeInterval(3_600)
        )
        let signer = CMSSigner(certificate: certificate, key: key, chain: [keys.chain.wwdr])
        let content = Data("manifest".utf8)
        let signature = try signer.sign(content, signingTime: now)
        let info = try CMSSignature.verify(signature.der, content: content, trustedRoots: nil)
        #expect(info.signers.first?.isSame(as: certificate) == true)

        let folder = try TemporaryDirectory()
        let verified = try await Command.run(
            "openssl",
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", try folder.write("signature", signature.der),
                "-content", try folder.write("manifest.json", content), "-noverify", "-out", "/dev/null",
            ]
        )
        #expect(verified.status == 0, "\(verified.error)")
    }
}
