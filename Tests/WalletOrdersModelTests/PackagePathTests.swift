import Testing
import WalletOrdersModel

@Suite struct PackagePathTests {
    @Test func acceptsImagesPDFsAndLocalizations() {
        for path in ["logo.png", "photo.JPG", "label.pdf", "en.lproj/order.strings", "zh-Hans.lproj/logo.png"] {
            #expect(PackagePath.problem(with: path) == nil, "\(path)")
        }
    }

    @Test func refusesEscapesHiddenFilesAndOtherTypes() {
        let refused = [
            "../logo.png", "/etc/logo.png", "en.lproj/../../x.png", ".DS_Store", "en.lproj/.hidden.png",
            "script.sh", "a/b/c.png", "images/logo.png", "en.lproj/notes.txt", "order.json", "manifest.json",
            "signature", "", "en.lproj\\logo.png", "en.lproj//logo.png",
        ]
        for path in refused {
            #expect(PackagePath.problem(with: path) != nil, "\(path)")
        }
    }

    @Test func identifiersKeepToURLSafeCharacters() {
        #expect(Identifier.isValid("order.com.example.shop"))
        #expect(Identifier.isValid("A-1001_x:y~z"))
        #expect(!Identifier.isValid(""))
        #expect(!Identifier.isValid("a/b"))
        #expect(!Identifier.isValid("a%2Fb"))
        #expect(!Identifier.isValid(String(repeating: "a", count: 129)))
    }
}
