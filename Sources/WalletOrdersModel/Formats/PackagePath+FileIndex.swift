extension PackagePath {
    /// A package's file paths indexed once for the questions order.json's file references ask, so that checking
    /// many references costs one lookup each rather than a pass over every file.
    ///
    /// It answers as `contains(file:in:)` and `imageFiles(forBaseName:in:)` do.
    public struct FileIndex: Sendable {
        /// Every path as given.
        private let paths: Set<String>
        /// The file names inside `.lproj` folders.
        private let localizedNames: Set<String>
        /// The names, without extension, of the images at the top level or in `.lproj` folders.
        private let imageStems: Set<String>

        /// The index of `files`, the paths a package holds.
        public init(_ files: Set<String>) {
            paths = files
            var localizedNames: Set<String> = []
            var imageStems: Set<String> = []
            for path in files {
                let parts = path.split(separator: "/", omittingEmptySubsequences: false)
                let nonEmpty = parts.filter { !$0.isEmpty }
                if nonEmpty.count == 2, nonEmpty[0].hasSuffix(".lproj") { localizedNames.insert(String(nonEmpty[1])) }
                guard parts.count == 1 || (parts.count == 2 && parts[0].hasSuffix(".lproj")),
                    let file = parts.last, let dot = file.lastIndex(of: ".")
                else { continue }
                if PackagePath.imageExtensions.contains(file[file.index(after: dot)...].lowercased()) {
                    imageStems.insert(String(file[..<dot]))
                }
            }
            self.localizedNames = localizedNames
            self.imageStems = imageStems
        }

        /// Whether the file `name` is at the top level or in a `.lproj` folder.
        public func contains(file name: String) -> Bool {
            paths.contains(name) || localizedNames.contains(name)
        }

        /// Whether any file the image base name `name` stands for is in the package (`name.png`, `name@2x.png`,
        /// `name@3x.png`, or JPEGs, at the top level or in `.lproj` folders).
        public func containsImage(forBaseName name: String) -> Bool {
            imageStems.contains(name) || imageStems.contains(name + "@2x") || imageStems.contains(name + "@3x")
        }
    }
}
