import Testing
import WalletOrdersModel

@Suite(.timeLimit(.minutes(5))) struct PackagePathTests {
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

    @Test func theFileIndexAnswersAsTheSearchesOverEveryFileDo() {
        let files: Set<String> = [
            "logo.png", "logo@2x.PNG", "mug.jpeg", "fr.lproj/label.pdf", "de.lproj/beans@3x.jpg", "en.lproj//strip.png",
            "x.lproj/y/deep.png", "a//b.png", "notes.txt", ".png", "dot.", "lproj/side.png", "en.lproj/order.strings",
        ]
        let index = PackagePath.FileIndex(files)
        let names = [
            "logo", "logo.png", "logo@2x.PNG", "mug", "mug.jpeg", "label.pdf", "beans", "beans@3x.jpg", "strip",
            "strip.png", "deep", "deep.png", "b", "b.png", "notes", "notes.txt", "", ".png", "dot", "dot.", "side",
            "order.strings", "fr.lproj/label.pdf", "a//b.png", "missing",
        ]
        for name in names {
            #expect(index.contains(file: name) == PackagePath.contains(file: name, in: files), "\(name)")
            #expect(
                index.containsImage(forBaseName: name)
                    == !PackagePath.imageFiles(forBaseName: name, in: files).isEmpty,
                "\(name)"
            )
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct PackagePathFileSystemNamesTests {
    @Test func pathsThatDifferByLetterCaseOrUnicodeFormCollideAndTheSamePathDoesNot() {
        var names = PackagePath.FileSystemNames()
        #expect(names.add("a.png", label: "the template's a.png") == nil)
        #expect(names.add("a.png") == nil, "the same path again replaces the file")
        #expect(names.add("A.png") == "collides with the template's a.png on case-insensitive file systems, such as Apple's")
        #expect(names.add("EN.lproj/logo.png") == nil)
        #expect(names.add("en.lproj/LOGO.png") == "collides with EN.lproj/logo.png on case-insensitive file systems, such as Apple's")

        // é as one scalar (NFC) and as e with a combining acute accent (NFD): one name on APFS and HFS+.
        let composed = "caf\u{E9}.png"
        let decomposed = "cafe\u{301}.png"
        #expect(names.add(composed) == nil)
        #expect(
            names.add(decomposed)
                == "collides with café.png, the same name in another Unicode normalization form (NFC, NFD), which "
                + "Apple's file systems do not tell apart"
        )
        #expect(
            names.add("CAFE\u{301}.png")
                == "collides with café.png on Apple's file systems, which tell neither letter case nor Unicode "
                + "normalization forms (NFC, NFD) apart"
        )
        #expect(names.add("cafe.png") == nil, "an accent makes another name")
    }
}
