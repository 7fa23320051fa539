import Foundation
import Testing
import WalletOrdersModel

@Suite(.timeLimit(.minutes(5))) struct LocalizationsTests {
    let png = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

    private func strings(_ keys: String...) -> Data {
        Data(keys.map { "\"\($0)\" = \"\($0.lowercased())\";" }.joined(separator: "\n").utf8)
    }

    @Test func agreeingLocalizationsHaveNoProblems() {
        #expect(
            Localizations.problems(in: [
                "logo.png": png, "en.lproj/order.strings": strings("A", "B"), "fr.lproj/order.strings": strings("B", "A"),
                "en.lproj/mug.png": png, "fr.lproj/mug.png": png, "de.lproj/order.strings": strings("A", "B"),
                "de.lproj/mug.png": png,
            ]) == []
        )
        #expect(Localizations.problems(in: ["logo.png": png]) == [])
    }

    @Test func aMissingKeyIsNamedWithItsFile() {
        #expect(
            Localizations.problems(in: [
                "en.lproj/order.strings": strings("MERCHANT_NAME", "STATUS_SHIPPED", "ITEM_MUG"),
                "fr.lproj/order.strings": strings("MERCHANT_NAME"),
                "de.lproj/order.strings": strings("MERCHANT_NAME", "ITEM_MUG", "EXTRA"),
            ]) == [
                OrderProblem(path: "de.lproj/order.strings", message: "lacks the key \"STATUS_SHIPPED\", which en.lproj/order.strings has"),
                OrderProblem(path: "en.lproj/order.strings", message: "lacks the key \"EXTRA\", which de.lproj/order.strings has"),
                OrderProblem(path: "fr.lproj/order.strings", message: "lacks the key \"EXTRA\", which de.lproj/order.strings has"),
                OrderProblem(path: "fr.lproj/order.strings", message: "lacks the key \"ITEM_MUG\", which de.lproj/order.strings has"),
                OrderProblem(path: "fr.lproj/order.strings", message: "lacks the key \"STATUS_SHIPPED\", which en.lproj/order.strings has"),
            ]
        )
    }

    @Test func aLocalizationWithoutStringsAndAMalformedStringsFileAreReported() {
        #expect(
            Localizations.problems(in: [
                "en.lproj/order.strings": strings("A"),
                "fr.lproj/order.strings": Data("\"A\" = \"oublié\"".utf8),
                "de.lproj/logo.png": png, "en.lproj/logo.png": png, "fr.lproj/logo.png": png,
            ]) == [
                OrderProblem(
                    path: "fr.lproj/order.strings",
                    message: "cannot be read: line 1: the file ends in the middle of an entry"
                ),
                OrderProblem(path: "de.lproj/order.strings", message: "is missing, while en.lproj/order.strings localizes the order"),
            ]
        )
    }

    @Test func aLocalizedImageMustBeInEveryLocalizationUnlessTheTopLevelHasIt() {
        #expect(
            Localizations.problems(in: [
                "en.lproj/mug.png": png, "fr.lproj/label.pdf": Data("%PDF-".utf8), "de.lproj/mug.png": png,
                "label.pdf": Data("%PDF-".utf8),
            ]) == [
                OrderProblem(
                    path: "fr.lproj/mug.png",
                    message: "is missing: de.lproj/mug.png is localized, so every "
                        + ".lproj folder needs its own (or put one at the top level)"
                )
            ]
        )
    }

    @Test func manyLocalizationsThatEachLackTheOthersAreComparedInBoundedTime() {
        // 400 folders, each with a key and an image the others lack: 2 × 400 × 399 problems, found by indexing
        // each name once. Comparing every folder with every other for every name, and searching the problems found
        // so far for each, took 29 s for 200 folders in a release build, growing with the fourth power.
        var files: [String: Data] = [:]
        for index in 0..<400 {
            files["l\(index).lproj/order.strings"] = Data("\"K\(index)\" = \"v\";".utf8)
            files["l\(index).lproj/i\(index).png"] = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
        }
        let problems = Localizations.problems(in: files)
        #expect(problems.count == 2 * 400 * 399)
        #expect(
            problems.first
                == OrderProblem(
                    path: "l0.lproj/order.strings",
                    message: "lacks the key \"K1\", which l1.lproj/order.strings has"
                )
        )
    }
}
