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
        let sortedFolders = folders.keys.sorted()

        // Strings: each file must read; each must hold every key another holds.
        var keys: [String: Set<String>] = [:]
        for folder in sortedFolders {
            guard let data = folders[folder]?[stringsFileName] else { continue }
            do {
                keys[folder] = Set(try StringsFile(data: data).keys)
            } catch {
                problems.append(OrderProblem(path: "\(folder)/\(stringsFileName)", message: "cannot be read: \(error)"))
            }
        }
        // Each key and file name is reported once per folder, naming the first other folder that holds it; holders
        // are found once, so a package of many folders is checked in time proportional to folders times names.
        let keyHolders = holders(of: keys)
        let folderHoldingStrings = sortedFolders.first { folders[$0]?[stringsFileName] != nil }
        for folder in sortedFolders {
            let path = "\(folder)/\(stringsFileName)"
            if folders[folder]?[stringsFileName] == nil {
                if let other = folderHoldingStrings {
                    problems.append(
                        OrderProblem(
                            path: path,
                            message: "is missing, while \(other)/\(stringsFileName) localizes the order"
                        )
                    )
                }
                continue
            }
            guard let own = keys[folder] else { continue }
            for (other, missing) in missingByHolder(own: own, folder: folder, holders: keyHolders) {
                for key in missing {
                    problems.append(
                        OrderProblem(
                            path: path,
                            message: "lacks the key \"\(key)\", which \(other)/\(stringsFileName) has"
                        )
                    )
                }
            }
        }

        // Localized files: one in any .lproj folder is needed in all, unless the top level holds it for everyone.
        let localized = folders.mapValues { Set($0.keys).subtracting([stringsFileName]) }
        let fileHolders = holders(of: localized).filter { files[$0.key] == nil }
        for folder in sortedFolders {
            let own = localized[folder] ?? []
            for (other, missing) in missingByHolder(own: own, folder: folder, holders: fileHolders) {
                for name in missing {
                    problems.append(
                        OrderProblem(
                            path: "\(folder)/\(name)",
                            message: "is missing: \(other)/\(name) is localized, so every "
                                + ".lproj folder needs its own (or put one at the top level)"
                        )
                    )
                }
            }
        }
        return problems
    }

    /// For each name, the first two folders (in name order) that hold it: enough to name one other than any folder.
    private static func holders(of names: [String: Set<String>]) -> [String: [String]] {
        var holders: [String: [String]] = [:]
        for (folder, held) in names.sorted(by: { $0.key < $1.key }) {
            for name in held where holders[name, default: []].count < 2 {
                holders[name, default: []].append(folder)
            }
        }
        return holders
    }

    /// The names `folder` lacks, grouped by the first other folder that holds each, folders and names sorted.
    private static func missingByHolder(
        own: Set<String>,
        folder: String,
        holders: [String: [String]]
    ) -> [(folder: String, names: [String])] {
        var missing: [String: [String]] = [:]
        for (name, folders) in holders where !own.contains(name) {
            guard let other = folders.first(where: { $0 != folder }) else { continue }
            missing[other, default: []].append(name)
        }
        return missing.sorted { $0.key < $1.key }.map { ($0.key, $0.value.sorted()) }
    }
}
