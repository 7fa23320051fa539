import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersTesting

/// Packages from elsewhere that try to exhaust or mislead `verify`: each is made here by a real tool (Python's
/// zipfile, Info-ZIP's `zip`, or bytes written by hand where a header must lie) and must get a clear problem
/// with bounded work.
@Suite(.timeLimit(.minutes(5))) struct HostilePackageTests {
    let limits = ZipArchive.ReadingLimits.package

    /// Python with `entry(name, data, declared=, crc=, method=, mode=)` and `archive(entries, zip64=)`, which
    /// write local headers, central directory and end record by hand so that any field can lie.
    static let prelude = #"""
        import struct, sys, zlib, zipfile, os

        def deflate(data):
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            return c.compress(data) + c.flush()

        def deflate_zeros(count):
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            chunk = bytes(1 << 20)
            out = []
            while count > 0:
                out.append(c.compress(chunk[:min(count, len(chunk))]))
                count -= len(chunk)
            out.append(c.flush())
            return b''.join(out)

        def entry(name, data=b'', declared=None, crc=None, method=8, mode=0o100644, compressed=None):
            if compressed is None:
                compressed = deflate(data) if method == 8 else data
            return dict(name=name.encode(), compressed=compressed,
                        declared=len(data) if declared is None else declared,
                        crc=zlib.crc32(data) if crc is None else crc, method=method, mode=mode)

        def archive(entries, zip64=False):
            out, central = b'', b''
            for e in entries:
                name, comp = e['name'], e['compressed']
                offset = len(out)
                if zip64:
                    extra = struct.pack('<HHQQ', 1, 16, e['declared'], len(comp))
                    sizes = (0xFFFFFFFF, 0xFFFFFFFF)
                else:
                    extra, sizes = b'', (len(comp), e['declared'])
                out += struct.pack('<IHHHHHIIIHH', 0x04034b50, 45, 0, e['method'], 0, 0x21, e['crc'],
                                   sizes[0], sizes[1], len(name), len(extra)) + name + extra + comp
                central += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 3 << 8 | 45, 45, 0, e['method'], 0, 0x21,
                                       e['crc'], sizes[0], sizes[1], len(name), len(extra), 0, 0, 0, e['mode'] << 16,
                                       offset) + name + extra
            end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, len(entries), len(entries), len(central), len(out), 0)
            return out + central + end

        out = sys.argv[1]
        """#

    /// The bytes of the archive `script` writes to `out` (after the prelude).
    private func make(_ script: String, _ tool: String = "python3") async throws -> Data {
        let folder = try TemporaryDirectory("hostile")
        let path = try folder.write("make.py", Data((Self.prelude + "\n" + script).utf8))
        let result = try await Command.run(tool, [path, folder.path("out.zip")], directory: folder.url.path)
        #expect(result.status == 0, "\(result.error)")
        return try Data(contentsOf: URL(fileURLWithPath: folder.path("out.zip")))
    }

    /// The sample package, as the builder writes it.
    private func package() throws -> Data {
        try PackageBuilder(identity: DevelopmentKeys.shared.identity).build(
            order: SampleOrder.document(),
            template: OrderTemplate(directory: SampleOrder.templateFolder),
            signingTime: Date(timeIntervalSince1970: 1_795_342_530)
        )
    }

    // MARK: Zip bombs

    @Test func aBombDeclaringTenGigabytesIsRefusedBeforeAnythingIsInflated() async throws {
        let bomb = try await make(
            """
            open(out, 'wb').write(archive([entry('order.json', compressed=deflate_zeros(200 << 20), declared=10 << 30,
                                                 crc=0)], zip64=True))
            """
        )
        let contents = ZipArchive.inspect(bomb)
        #expect(
            contents.problems == [
                "order.json declares 10737418240 bytes uncompressed, more than the 8388608 a file in a package may have"
            ]
        )
        #expect(contents.bytesInflated == 0)
        let report = PackageVerifier.verify(bomb)
        #expect(report.problems == contents.problems)
    }

    @Test func aBombThatDeclaresTenBytesStopsAtTheRatioLimit() async throws {
        // 50 MiB of zeros deflate to about 50 KB; the headers claim 10 bytes, so only counting can stop it.
        let bomb = try await make(
            """
            open(out, 'wb').write(archive([entry('order.json', compressed=deflate_zeros(50 << 20), declared=10)]))
            """
        )
        let contents = ZipArchive.inspect(bomb)
        #expect(contents.problems.count == 1)
        #expect(contents.problems.first?.hasPrefix("order.json inflates more than 100 times its ") == true)
        #expect(contents.problems.first?.hasSuffix(" compressed bytes: a zip bomb, not a file of a package") == true)
        // Reading stopped within one buffer of 100 times the compressed size, far below the 50 MiB inside.
        #expect(contents.bytesInflated <= bomb.count * limits.maxRatio + 64 << 10)
        #expect(contents.bytesInflated < limits.maxEntryBytes)
    }

    @Test func aFileThatDeclaresAHugeRatioHonestlyIsRefusedFromItsHeaders() async throws {
        let bomb = try await make(
            """
            with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('en.lproj/order.strings', b' ' * (6 << 20))
            """
        )
        let contents = ZipArchive.inspect(bomb)
        #expect(contents.problems.count == 1)
        #expect(contents.problems.first?.hasPrefix("en.lproj/order.strings inflates more than 100 times its ") == true)
        #expect(contents.bytesInflated == 0)
    }

    @Test func anIncompressibleFileThatLiesAboutItsSizeStopsAtTheFileLimit() async throws {
        // Random bytes do not compress, so the ratio is no help: the per-file limit is.
        let liar = try await make(
            """
            data = os.urandom(9 << 20)
            open(out, 'wb').write(archive([entry('logo.png', data, declared=10, method=0)]))
            """
        )
        let contents = ZipArchive.inspect(liar)
        #expect(
            contents.problems == [
                "logo.png inflates to more than 8388608 bytes, the most a file in a package may have"
            ]
        )
        #expect(contents.bytesInflated <= limits.maxEntryBytes + 64 << 10)
    }

    @Test func filesThatTogetherPassTheTotalLimitStopThere() async throws {
        let archive = try await make(
            """
            with zipfile.ZipFile(out, 'w', zipfile.ZIP_STORED) as z:
                for name in ['a.png', 'b.png', 'c.png']:
                    z.writestr(name, os.urandom(6 << 20))
            """
        )
        let contents = ZipArchive.inspect(archive)
        #expect(contents.problems == ["the archive inflates to more than 16777216 bytes, the most a package may hold"])
        #expect(contents.entries.map(\.path) == ["a.png", "b.png"])
        #expect(contents.bytesInflated <= limits.maxTotalBytes + 64 << 10)
    }

    @Test func aFileThatHoldsFewerBytesThanItDeclaresIsCorrupt() async throws {
        let liar = try await make(
            """
            open(out, 'wb').write(archive([entry('order.json', b'{}', declared=1000)]))
            """
        )
        #expect(
            ZipArchive.inspect(liar).problems == [
                "order.json holds 2 bytes but the archive declares 1000: the archive is corrupt"
            ]
        )
    }

    @Test func aFileWhoseBytesFailTheirCRCIsCorrupt() async throws {
        let liar = try await make(
            """
            open(out, 'wb').write(archive([entry('order.json', b'{"a": 1}', crc=1234)]))
            """
        )
        #expect(
            ZipArchive.inspect(liar).problems == [
                "order.json cannot be read: its bytes fail their CRC check (the archive is corrupt)"
            ]
        )
    }

    // MARK: Entries

    @Test func aHundredThousandEntriesAreRefusedFromTheEndRecordAlone() async throws {
        let many = try await make(
            """
            with zipfile.ZipFile(out, 'w', zipfile.ZIP_STORED) as z:
                for i in range(100000):
                    z.writestr('f%d.png' % i, b'')
            """
        )
        let contents = ZipArchive.inspect(many)
        #expect(
            contents.problems == [
                "the archive has 100000 entries; a package holds a handful of files, and at most 1000 are read"
            ]
        )
        #expect(contents.entries.isEmpty && contents.bytesInflated == 0)
        #expect(
            PackageVerifier.verify(many).problems == [
                "the package is 9577878 bytes; Wallet accepts packages below 5000000 bytes"
            ] + contents.problems
        )
    }

    @Test func anEndRecordThatUnderstatesTheEntriesIsCaughtByLibzipsCount() async throws {
        // Zip64 records counted by the end record's pre-check too: 2^40 entries declared in a 200-byte file.
        let liar = try await make(
            """
            body = archive([entry('order.json', b'{}')])
            end = body[-22:]
            central_offset = struct.unpack('<I', end[16:20])[0]
            central_size = struct.unpack('<I', end[12:16])[0]
            zip64_offset = len(body) - 22
            zip64 = struct.pack('<IQHHIIQQQQ', 0x06064b50, 44, 45, 45, 0, 0, 1 << 40, 1 << 40, central_size, central_offset)
            locator = struct.pack('<IIQI', 0x07064b50, 0, zip64_offset, 1)
            end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, central_size, central_offset, 0)
            open(out, 'wb').write(body[:-22] + zip64 + locator + end)
            """
        )
        #expect(
            ZipArchive.inspect(liar).problems == [
                "the archive has 1099511627776 entries; a package holds a handful of files, and at most 1000 are read"
            ]
        )
    }

    @Test func pathsThatLeaveThePackageAreRefusedEachByName() async throws {
        let archive = try await make(
            """
            with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('../evil.png', b'x')
                z.writestr('/etc/cron.d/evil', b'x')
                z.writestr('en.lproj\\\\..\\\\..\\\\evil.png', b'x')
                z.writestr('fr.lproj/../../evil.png', b'x')
                z.writestr('C:/evil.png', b'x')
                z.writestr('order.json', b'{}')
            """
        )
        let contents = ZipArchive.inspect(archive)
        #expect(
            contents.problems == [
                "../evil.png climbs out of the package with ..; paths in a package stay inside it",
                "/etc/cron.d/evil is an absolute path; paths in a package are relative",
                "en.lproj\\..\\..\\evil.png has a backslash; paths in a package use / between folders",
                "fr.lproj/../../evil.png climbs out of the package with ..; paths in a package stay inside it",
                "C:/evil.png starts with a drive letter; paths in a package are relative",
            ]
        )
        #expect(contents.entries.map(\.path) == ["order.json"])
        #expect(PackageVerifier.verify(archive).problems == contents.problems)
    }

    @Test func aSymbolicLinkMadeByZipIsRefused() async throws {
        let folder = try TemporaryDirectory("hostile-link")
        try folder.write("files/order.json", Data("{}".utf8))
        #expect(symlink("/etc/passwd", folder.path("files/logo.png")) == 0)
        let zipped = try await Command.run(
            "zip",
            ["--symlinks", "-q", "../link.order", "order.json", "logo.png"],
            directory: folder.path("files")
        )
        #expect(zipped.status == 0, "\(zipped.error)")
        let archive = try Data(contentsOf: URL(fileURLWithPath: folder.path("link.order")))
        let contents = ZipArchive.inspect(archive)
        #expect(contents.problems == ["logo.png is a symbolic link; a package holds regular files only"])
        #expect(contents.entries.map(\.path) == ["order.json"])
    }

    @Test func otherEntriesThatAreNotRegularFilesAreRefused() async throws {
        let archive = try await make(
            """
            fifo = zipfile.ZipInfo('logo.png'); fifo.create_system = 3; fifo.external_attr = 0o010644 << 16
            device = zipfile.ZipInfo('mug.png'); device.create_system = 3; device.external_attr = 0o020644 << 16
            with zipfile.ZipFile(out, 'w') as z:
                z.writestr(fifo, b'')
                z.writestr(device, b'')
            """
        )
        #expect(
            ZipArchive.inspect(archive).problems == [
                "logo.png is not a regular file (Unix type 10000); a package holds regular files only",
                "mug.png is not a regular file (Unix type 20000); a package holds regular files only",
            ]
        )
    }

    @Test func aNameThatAppearsTwiceIsNamed() async throws {
        let archive = try await make(
            """
            import warnings; warnings.simplefilter('ignore')
            with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('order.json', b'{}')
                z.writestr('logo.png', b'first')
                z.writestr('logo.png', b'second')
            """
        )
        let contents = ZipArchive.inspect(archive)
        #expect(contents.problems == ["logo.png appears more than once in the archive"])
        #expect(PackageVerifier.verify(archive).problems == contents.problems)
    }

    @Test func anEncryptedEntryMadeByZipIsRefused() async throws {
        let folder = try TemporaryDirectory("hostile-encrypted")
        try folder.write("files/order.json", Data("{}".utf8))
        let zipped = try await Command.run(
            "zip",
            ["-q", "-P", "secret", "../encrypted.order", "order.json"],
            directory: folder.path("files")
        )
        #expect(zipped.status == 0, "\(zipped.error)")
        let archive = try Data(contentsOf: URL(fileURLWithPath: folder.path("encrypted.order")))
        #expect(ZipArchive.inspect(archive).problems == ["order.json is encrypted; Wallet reads no encrypted files"])
    }

    @Test func compressionOtherThanDeflateIsRefused() async throws {
        let archive = try await make(
            """
            with zipfile.ZipFile(out, 'w', zipfile.ZIP_BZIP2) as z:
                z.writestr('order.json', b'{}')
            """
        )
        #expect(
            ZipArchive.inspect(archive).problems == [
                "order.json is compressed with method 12; a package holds deflated or stored files only"
            ]
        )
    }

    // MARK: Truncated and corrupt archives

    @Test func everyTruncationOfARealPackageIsAProblemNotACrash() throws {
        let whole = try package()
        var lengths = Set(stride(from: 0, to: whole.count, by: 97))
        lengths.formUnion((1...64).map { whole.count - $0 })
        for length in lengths.sorted() {
            let contents = ZipArchive.inspect(whole.prefix(length))
            #expect(!contents.problems.isEmpty, "cut at \(length) of \(whole.count) bytes")
            #expect(!PackageVerifier.verify(whole.prefix(length)).isValid, "cut at \(length) of \(whole.count) bytes")
        }
    }

    @Test func truncatedArchivesSayWhy() throws {
        let whole = try package()
        #expect(ZipArchive.inspect(Data()).problems == ["the file is empty, not a zip archive"])
        #expect(
            ZipArchive.inspect(whole.prefix(whole.count / 2)).problems == [
                "not a zip archive: it has no end-of-central-directory record (a truncated file, or not a zip at all)"
            ]
        )
        // The end record kept but the middle gone: the directory points past what is there.
        let gutted = whole.prefix(100) + whole.suffix(whole.count / 3)
        #expect(ZipArchive.inspect(gutted).problems.count == 1)
        #expect(!ZipArchive.inspect(gutted).problems[0].isEmpty)
    }

    @Test func aFlippedByteIsAProblemUnlessItChangedNoFileOfThePackage() throws {
        let whole = [UInt8](try package())
        let original = ZipArchive.inspect(Data(whole)).entries.map { [$0.path: $0.data] }
        var refused = 0
        var flips = 0
        for offset in stride(from: 0, to: whole.count, by: 13) {
            var bytes = whole
            bytes[offset] ^= 0x5a
            flips += 1
            let report = PackageVerifier.verify(Data(bytes))
            if report.isValid {
                // Only bytes no file is made of (a timestamp, an attribute) may change without a problem.
                let read = ZipArchive.inspect(Data(bytes)).entries.map { [$0.path: $0.data] }
                #expect(read == original, "a flip at \(offset) changed a file and the package still passed")
            } else {
                refused += 1
            }
        }
        #expect(refused * 10 >= flips * 9, "\(refused) of \(flips) flips refused")
    }

    // MARK: The file itself

    @Test func aTenGigabyteFileGetsItsSizeProblemWithoutBeingRead() throws {
        let folder = try TemporaryDirectory("hostile-size")
        let path = try folder.write("huge.order", Data())
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 10 << 30)
        try handle.close()
        let report = try PackageVerifier.verify(fileAt: path)
        #expect(report.bytes == 10 << 30)
        #expect(
            report.problems == [
                "the package is 10737418240 bytes; Wallet accepts packages below 5000000 bytes (the file is not looked "
                    + "into: it is larger than 20000000 bytes)"
            ]
        )
    }
}
