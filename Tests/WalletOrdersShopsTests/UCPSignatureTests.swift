import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

@testable import WalletOrdersShops

/// UCP's RFC 9421 signatures, made by `openssl` with ES256 and Ed25519 keys, checked by the code under test; every
/// one-byte change to the body or to a signed header refused, and so are old, future, under-covered and unknown-algorithm
/// signatures.
@Suite(.timeLimit(.minutes(5))) struct UCPSignatureTests {
    func verify(_ request: UCPRequest, _ keys: [UCPSigningKey], freshness: UCPWebhook.Freshness = .init()) -> Bool {
        UCPWebhook.verify(request.request, keys: keys, now: ShopFixture.now, freshness: freshness)
    }

    @Test(arguments: [UCPSigner.Kind.es256, .ed25519])
    func aSignedWebhookVerifiesWithTheKeyAsAJWKOrAsPEM(kind: UCPSigner.Kind) async throws {
        let signer = try await UCPSigner.make(kind)
        let request = try await UCPRequest.signed(by: signer)
        let jwk = try UCPSigningKey(jwk: try await signer.jwk())
        #expect(jwk.id == "merchant-2026")
        #expect(verify(request, [jwk]))
        #expect(verify(request, [try UCPSigningKey(pem: try await signer.publicKeyPEM(), id: "merchant-2026")]))
        #expect(verify(request, [try UCPSigningKey(pem: try await signer.publicKeyPEM())]))
        #expect(UCPWebhook.contentDigest(of: request.body) == request.header("content-digest"))
    }

    @Test func everyOneByteChangeToTheBodyIsRefused() async throws {
        let signer = try await UCPSigner.make(.es256)
        let request = try await UCPRequest.signed(by: signer)
        let key = try UCPSigningKey(jwk: try await signer.jwk())
        for index in Array(request.body.indices.prefix(400)) + [request.body.count - 1] {
            var changed = request
            changed.body[index] ^= 0x01
            #expect(!verify(changed, [key]), "byte \(index)")
        }
        var longer = request
        longer.body.append(0x0A)
        #expect(!verify(longer, [key]))
    }

    @Test(arguments: ["content-digest", "content-type", "webhook-id", "webhook-timestamp", "ucp-agent", "signature-input", "signature"])
    func everyOneByteChangeToASignedHeaderIsRefused(header: String) async throws {
        let signer = try await UCPSigner.make(.ed25519)
        let request = try await UCPRequest.signed(by: signer)
        let key = try UCPSigningKey(jwk: try await signer.jwk())
        #expect(verify(request, [key]))
        for changed in ShopFixture.oneByteChanges(request.header(header)) {
            #expect(!verify(request.replacing(header, with: changed), [key]), "\(header): \(changed)")
        }
        #expect(!verify(request.replacing(header, with: nil), [key]), "\(header) missing")
    }

    @Test func anotherMethodPathOrAuthorityIsRefused() async throws {
        let signer = try await UCPSigner.make(.es256)
        let request = try await UCPRequest.signed(by: signer)
        let key = try UCPSigningKey(jwk: try await signer.jwk())
        for change in [\UCPRequest.method, \.path, \.authority] {
            for changed in ShopFixture.oneByteChanges(request[keyPath: change]) {
                var copy = request
                copy[keyPath: change] = changed
                #expect(!verify(copy, [key]), "\(changed)")
            }
        }
    }

    @Test func anotherKeyOrAnotherKeyIDIsRefused() async throws {
        let signer = try await UCPSigner.make(.es256)
        let other = try await UCPSigner.make(.es256)
        let request = try await UCPRequest.signed(by: signer)
        #expect(!verify(request, [try UCPSigningKey(jwk: try await other.jwk())]))
        let renamed = try await UCPSigner.make(.es256, kid: "rotated-2027").jwk()
        #expect(!verify(request, [try UCPSigningKey(jwk: renamed)]))
        // The right key among others, as a profile lists keys while they rotate.
        #expect(verify(request, [try UCPSigningKey(jwk: try await other.jwk()), try UCPSigningKey(jwk: try await signer.jwk())]))
        #expect(!verify(request, []))
    }

    @Test func anAlgorithmOtherThanTheKeysIsRefused() async throws {
        let signer = try await UCPSigner.make(.es256)
        let key = try UCPSigningKey(jwk: try await signer.jwk())
        #expect(verify(try await UCPRequest.signed(by: signer, extraParameters: ";alg=\"ecdsa-p256-sha256\""), [key]))
        for alg in ["rsa-pss-sha512", "hmac-sha256", "ed25519", "ecdsa-p384-sha384", "ES256"] {
            #expect(!verify(try await UCPRequest.signed(by: signer, extraParameters: ";alg=\"\(alg)\""), [key]), "\(alg)")
        }
    }

    @Test func aSignatureThatLeavesOutARequiredComponentIsRefused() async throws {
        let signer = try await UCPSigner.make(.ed25519)
        let key = try UCPSigningKey(jwk: try await signer.jwk())
        for left in ["@method", "@path", "content-digest", "content-type"] {
            let request = try await UCPRequest.signed(by: signer, components: UCPRequest.components.filter { $0 != left })
            #expect(!verify(request, [key]), "without \(left)")
        }
        let targetURI = UCPRequest.components.map { $0 == "@path" ? "@target-uri" : $0 }
        #expect(verify(try await UCPRequest.signed(by: signer, components: targetURI), [key]))
    }

    @Test func anOldOrFutureSignatureIsRefusedAndOneWithoutATimeOnlyWhenAsked() async throws {
        let signer = try await UCPSigner.make(.es256)
        let key = try UCPSigningKey(jwk: try await signer.jwk())
        let now = Int(ShopFixture.now.timeIntervalSince1970)
        let withoutTimestamp = UCPRequest.components.filter { $0 != "webhook-timestamp" }
        #expect(verify(try await UCPRequest.signed(by: signer, components: withoutTimestamp, created: now - 290), [key]))
        #expect(!verify(try await UCPRequest.signed(by: signer, components: withoutTimestamp, created: now - 301), [key]))
        #expect(!verify(try await UCPRequest.signed(by: signer, components: withoutTimestamp, created: now + 120), [key]))
        #expect(!verify(try await UCPRequest.signed(by: signer, extraParameters: ";expires=\(now - 1)"), [key]))
        // A covered Webhook-Timestamp stands for `created`; neither is refused unless the freshness allows it.
        #expect(verify(try await UCPRequest.signed(by: signer, created: nil), [key]))
        let bare = try await UCPRequest.signed(by: signer, components: withoutTimestamp, created: nil)
        #expect(!verify(bare, [key]))
        #expect(verify(bare, [key], freshness: .init(requireTimestamp: false)))
    }

    @Test func oneValidSignatureAmongSeveralSuffices() async throws {
        let signer = try await UCPSigner.make(.ed25519)
        let key = try UCPSigningKey(jwk: try await signer.jwk())
        let request = try await UCPRequest.signed(by: signer, label: "sig2")
        let input = "sig1=(\"@method\");created=1;keyid=\"x\", " + request.header("signature-input")
        let signature = "sig1=:AAAA:, " + request.header("signature")
        #expect(verify(request.replacing("signature-input", with: input).replacing("signature", with: signature), [key]))
    }

    @Test func oversizedHeadersAndTooManyComponentsOrLabelsAreRefused() async throws {
        let signer = try await UCPSigner.make(.es256)
        let key = try UCPSigningKey(jwk: try await signer.jwk())
        let padded = (1...20).map { "x-pad-\($0)" }
        var request = try await UCPRequest.signed(by: signer)
        for name in padded { request.headers.append((name, "1")) }
        // 28 components, past the 24 taken.
        let many = try await UCPRequest.signed(by: signer, components: UCPRequest.components + padded)
        var manyWithHeaders = many
        for name in padded { manyWithHeaders.headers.append((name, "1")) }
        #expect(!verify(manyWithHeaders, [key]))
        let labels = (1...5).map { "s\($0)=(\"@method\");created=1" }.joined(separator: ", ")
        #expect(!verify(request.replacing("signature-input", with: labels + ", " + request.header("signature-input")), [key]))
        let long = request.header("signature-input") + ";nonce=\"" + String(repeating: "a", count: 5_000) + "\""
        #expect(!verify(request.replacing("signature-input", with: long), [key]))
    }

    @Test func aProfilesKeysAreReadAndThoseOfOtherKindsSkipped() async throws {
        let es256 = try await UCPSigner.make(.es256, kid: "a").jwk()
        let ed25519 = try await UCPSigner.make(.ed25519, kid: "b").jwk()
        let rsa: JSONValue = .object(["kid": .string("c"), "kty": .string("RSA"), "n": .string("AQAB"), "e": .string("AQAB")])
        var encryption = ed25519.objectValue ?? [:]
        encryption["use"] = .string("enc")
        encryption["kid"] = .string("d")
        let profile: JSONValue = .object([
            "ucp": .object(["version": .string("2026-04-08")]), "keys": .array([es256, rsa, ed25519, .object(encryption)]),
        ])
        #expect(UCPSigningKey.keys(inProfile: profile).map(\.id) == ["a", "b"])
        #expect(UCPSigningKey.keys(inProfile: profile).map(\.algorithm) == [.es256, .ed25519])
        #expect(throws: UCPSigningKey.Problem.self) { try UCPSigningKey(jwk: rsa) }
        #expect(throws: UCPSigningKey.Problem.self) { try UCPSigningKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
    }

    /// RFC 9421 appendix B.2.6: the request of appendix B.2 signed with `test-key-ed25519`.
    @Test func theSignatureBaseIsRFC9421sOwnExample() throws {
        let request = UCPWebhook.Request(
            method: "POST",
            authority: "example.com",
            path: "/foo",
            query: "param=Value&Pet=dog",
            headers: [
                ("Host", "example.com"), ("Date", "Tue, 20 Apr 2021 02:07:55 GMT"), ("Content-Type", "application/json"),
                ("Content-Length", "18"),
                (
                    "Signature-Input",
                    "sig-b26=(\"date\" \"@method\" \"@path\" \"@authority\" \"content-type\" \"content-length\");created=1618884473;keyid=\"test-key-ed25519\""
                ),
            ],
            body: Array(#"{"hello": "world"}"#.utf8)
        )
        let expected = """
            "date": Tue, 20 Apr 2021 02:07:55 GMT
            "@method": POST
            "@path": /foo
            "@authority": example.com
            "content-type": application/json
            "content-length": 18
            "@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"
            """
        #expect(UCPWebhook.signatureBase(of: request, label: "sig-b26") == expected)
        #expect(UCPWebhook.signatureBase(of: request, label: "sig1") == nil)
        // The example's signature, by the example's key, over that base.
        let key = try UCPSigningKey(
            pem: "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n-----END PUBLIC KEY-----\n"
        )
        let signature = try #require(Data(base64Encoded: "wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw=="))
        #expect(key.algorithm == .ed25519)
        #expect(key.isValid(signature, for: Data(expected.utf8)))
        // It covers no Content-Digest, which UCP requires: the request is refused all the same.
        var signed = request
        signed.headers.append(("Signature", "sig-b26=:\(signature.base64EncodedString()):"))
        signed.headers.append(("Content-Digest", UCPWebhook.contentDigest(of: request.body)))
        #expect(!UCPWebhook.verify(signed, keys: [key], now: Date(timeIntervalSince1970: 1_618_884_480)))
    }
}
