import Foundation

/// Whether a package's localizations agree, as Apple's troubleshooting list for orders asks: every
/// `order.strings` reads and has the same keys, and a file localized in one `.lproj` folder is in all of them.
///
/// Wallet shows the raw key for a string its language's `order.strings` lacks, and no image where its
/// localization lacks the file.
public enum Localizations {
    /// The strings file of each localization.
    public static let stringsFileName = "order.strings"

    /// Every disagreement among the `.lproj` folders of `files` (package paths and their bytes), each at the path
    /// of the file that is wrong or missing, with the key or file name in the message.
    public static func problems(in files: [String: Data]) -> [OrderProblem] {
        var folders: [String: [String: Data]] = [:]
        for (path, data) in files {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].hasSuffix(".lproj") else { continue }
            folders[String(parts[0]), default: [:]][String(parts[1])] = data
        }
        var problems: [OrderProblem] = []

        // Strings: each file must read; each must hold every key another holds.
        var keys: [String: Set<String>] = [:]
        for (folder, contents) in folders {
            guard let data = contents[stringsFileName] else { continue }
            do {
                keys[folder] = Set(try StringsFile(data: data).keys)
            } catch {
                problems.append(OrderProblem(path: "\(folder)/\(stringsFileName)", message: "cannot be read: \(error)"))
            }
        }
        let folderHoldingStrings = folders.keys.sorted().first { folders[$0]?[stringsFileName] != nil }
        for folder in folders.keys.sorted() {
            let path = "\(folder)/\(stringsFileName)"
            if folders[folder]?[stringsFileName] == nil {
                if let other = folderHoldingStrings {
                    problems.append(OrderProblem(
                        path: path, message: "is missing, while \(other)/\(stringsFileName) localizes the order"))
                }
                continue
            }
            guard let own = keys[folder] else { continue }
            for (other, theirs) in keys.sorted(by: { $0.key < $1.key }) where other != folder {
                for key in theirs.subtracting(own).sorted() where !alreadyReported(key, at: path, in: problems) {
                    problems.append(OrderProblem(
                        path: path, message: "lacks the key \"\(key)\", which \(other)/\(stringsFileName) has"))
                }
            }
        }

        // Localized files: one in any .lproj folder is needed in all, unless the top level holds it for everyone.
        for folder in folders.keys.sorted() {
            for (other, contents) in folders.sorted(by: { $0.key < $1.key }) where other != folder {
                for name in contents.keys.sorted() where name != stringsFileName {
                    let path = "\(folder)/\(name)"
                    guard folders[folder]?[name] == nil, files[name] == nil,
                          !problems.contains(where: { $0.path == path }) else { continue }
                    problems.append(OrderProblem(
                        path: path, message: "is missing: \(other)/\(name) is localized, so every .lproj folder "
                            + "needs its own (or put one at the top level)"))
                }
            }
        }
        return problems
    }

    private static func alreadyReported(_ key: String, at path: String, in problems: [OrderProblem]) -> Bool {
        problems.contains { $0.path == path && $0.message.hasPrefix("lacks the key \"\(key)\",") }
    }
}
