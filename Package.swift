// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "imgwarm",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "imgwarm", targets: ["imgwarm"]),
        .library(name: "ImgwarmKit", targets: ["ImgwarmKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        // C libraries from Debian's -dev packages, each behind its own shim.
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        // MagickWand's pkg-config flags are -fopenmp and two -D flags, which SwiftPM refuses with a
        // warning on every build: the shim defines the two (shim.h), and the headers' folders are
        // given to the one target that imports the module, which imports it internally.
        .systemLibrary(name: "CMagickWand", providers: [.apt(["libmagickwand-dev"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        // libarchive's readers: `pull` parses the device's tar stream with them (and creates every
        // file itself, Sources/ImgwarmKit/Device/PullStaging.swift).
        .systemLibrary(
            name: "CArchive", pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"])]),
        // OpenSSL's libcrypto (SHA-1, SHA-256 for other libraries' cache file names).
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),

        // Small C helpers for system calls Glibc does not show Swift (statx, O_TMPFILE, signals),
        // and the one Swift layer over them and the file system calls the engine makes.
        .target(name: "CImgwarmSys"),
        .target(name: "ImgwarmSystem", dependencies: ["CImgwarmSys"]),
        // The imgwarm executable's constructor: the stop signals are handled from its first
        // instruction, before Swift's main (docs/usage.md, "Running unattended").
        .target(name: "CImgwarmStart", dependencies: ["CImgwarmSys"]),

        // Thin Swift owners of the C handles.
        .target(name: "Curl", dependencies: ["CCurl"]),
        .target(
            name: "Magick", dependencies: ["CMagickWand"],
            swiftSettings: [
                .unsafeFlags(
                    [
                        "/usr/include/ImageMagick-6", "/usr/include/x86_64-linux-gnu/ImageMagick-6",
                        "/usr/include/aarch64-linux-gnu/ImageMagick-6",
                    ].flatMap { ["-Xcc", "-I" + $0] })
            ]),
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        .target(name: "Archive", dependencies: ["CArchive"]),

        // The engine: never parses argv, never prints.
        .target(name: "ImgwarmKit", dependencies: ["ImgwarmSystem", "Curl", "Magick", "SQLite", "Archive", "CCrypto"]),

        // The command-line tool.
        .executableTarget(
            name: "imgwarm",
            dependencies: [
                "ImgwarmKit", "ImgwarmSystem", "CImgwarmStart", "Curl", "Magick", "SQLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // A loopback HTTP/1.1 server with misbehaving routes, for the tests and scripts/demo.sh.
        .target(name: "LoopbackServer"),
        .executableTarget(name: "imgwarm-testserver", dependencies: ["LoopbackServer"]),
        // Opens the state database at a given instant, for the tests of concurrent opens.
        .executableTarget(name: "imgwarm-state-probe", dependencies: ["ImgwarmKit"]),
        // Runs a program and reports its own peak memory, for the tests that measure it.
        .executableTarget(name: "imgwarm-peak"),
        // Reads one image on several threads for seconds, for MagickTests.
        .executableTarget(name: "imgwarm-magick-probe", dependencies: ["Magick"]),

        // Fixture paths, temporary folders and a process runner shared by the test targets.
        .target(name: "TestSupport", dependencies: ["LoopbackServer"]),

        .testTarget(name: "CurlTests", dependencies: ["Curl", "LoopbackServer", "TestSupport"]),
        .testTarget(
            name: "MagickTests", dependencies: ["Magick", "imgwarm-magick-probe", "LoopbackServer", "TestSupport"]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "TestSupport"]),
        .testTarget(name: "ImgwarmSystemTests", dependencies: ["ImgwarmSystem", "TestSupport"]),
        .testTarget(name: "ImgwarmKitTests", dependencies: ["ImgwarmKit", "LoopbackServer", "Magick", "TestSupport"]),
        .testTarget(
            name: "imgwarmTests",
            dependencies: ["imgwarm", "imgwarm-state-probe", "imgwarm-peak", "ImgwarmKit", "SQLite", "TestSupport"]),
    ]
)
