// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Passbox",
    products: [
        .executable(name: "passbox", targets: ["passbox"])
    ],
    dependencies: [],
    targets: [
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(name: "CCrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCairo", providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZxcvbn", providers: [.apt(["libzxcvbn-dev"])]),
        .systemLibrary(name: "CPSL", providers: [.apt(["libpsl-dev", "publicsuffix"])]),
        .systemLibrary(name: "CIDN2", providers: [.apt(["libidn2-dev"])]),
        .systemLibrary(name: "CICU", providers: [.apt(["libicu-dev"])]),
        .systemLibrary(name: "CZbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CPNG", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CLogind", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CPAM", providers: [.apt(["libpam0g-dev"])]),
        .systemLibrary(name: "CXcb", providers: [.apt(["libxcb1-dev"])]),
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CTurboJPEG", providers: [.apt(["libturbojpeg0-dev"])]),
        // C code: the Linux calls Swift cannot make, and the logic over the system libraries above (dlopen
        // loaders, callbacks, loops). Swift imports these, not the system libraries they build on.
        .target(name: "CLinux"),
        .target(name: "CZxcvbnSupport", dependencies: ["CZxcvbn"]),
        .target(name: "CCryptoSupport", dependencies: ["CCrypto"]),
        .target(name: "CPSLSupport", dependencies: ["CPSL"]),
        .target(name: "CIDN2Support", dependencies: ["CIDN2"]),
        .target(name: "CICUSupport", dependencies: ["CICU"]),
        .target(name: "CPNGSupport", dependencies: ["CPNG"]),
        .target(name: "CTurboJPEGSupport", dependencies: ["CTurboJPEG"]),
        .target(name: "CZbarSupport", dependencies: ["CZbar"]),
        .target(name: "CCurlSupport", dependencies: ["CCurl"]),
        .target(name: "CLogindSupport", dependencies: ["CLogind"]),
        .target(name: "CPAMSupport", dependencies: ["CPAM"]),
        .target(name: "CXcbSupport", dependencies: ["CXcb"]),
        .target(name: "PassboxProtocol"),
        .target(name: "PassboxCrypto", dependencies: ["CSodium", "CArgon2", "CCryptoSupport", "CLinux"]),
        .target(name: "PassboxCore", dependencies: ["PassboxCrypto", "CZxcvbnSupport"]),
        .target(name: "PassboxStore", dependencies: ["PassboxCore", "PassboxCrypto", "CZlib", "CLinux"]),
        .target(name: "PassboxSQLite", dependencies: ["CSQLite"]),
        .target(name: "CMicroHTTPDSupport", dependencies: ["CMicroHTTPD"]),
        .target(name: "PassboxHTTP", dependencies: ["CMicroHTTPDSupport"]),
        .target(name: "CKitSupport", dependencies: ["CCairo"]),
        .target(name: "PassboxKit", dependencies: ["CKitSupport"]),
        .target(name: "PassboxServer", dependencies: ["PassboxProtocol", "PassboxCrypto", "PassboxSQLite", "PassboxHTTP"]),
        .target(name: "PassboxImaging", dependencies: ["CZbarSupport", "CPNGSupport", "CTurboJPEGSupport"]),
        .target(name: "PassboxDomains", dependencies: ["PassboxCore", "CPSLSupport", "CIDN2Support", "CICUSupport"]),
        .target(name: "PassboxClient", dependencies: ["PassboxCore", "PassboxCrypto", "PassboxProtocol", "CCurlSupport"]),
        .target(
            name: "PassboxService", dependencies: ["PassboxProtocol", "PassboxCore", "PassboxStore", "PassboxCrypto", "PassboxDomains", "PassboxClient"],
            resources: [.copy("Data")]),
        .target(name: "PassboxAgent", dependencies: ["PassboxService", "PassboxProtocol", "PassboxCore", "PassboxStore", "CLinux", "CLogindSupport", "CPAMSupport"]),
        .target(
            name: "PassboxCLI", dependencies: ["PassboxService", "PassboxProtocol", "PassboxStore", "PassboxCore", "PassboxCrypto", "PassboxImaging", "PassboxDomains", "PassboxClient", "PassboxAgent", "PassboxServer", "PassboxHTTP", "PassboxKit", "CXcbSupport"]),
        .executableTarget(name: "passbox", dependencies: ["PassboxCLI"]),
        .target(name: "PassboxTestSupport", dependencies: ["PassboxStore", "PassboxCore", "PassboxCrypto", "PassboxAgent"], resources: [.copy("Scripts")]),
        .testTarget(
            name: "PassboxCryptoTests", dependencies: ["PassboxCrypto", "PassboxTestSupport"],
            resources: [.copy("Vectors")]),
        .testTarget(name: "PassboxCoreTests", dependencies: ["PassboxCore", "PassboxProtocol", "PassboxTestSupport"], resources: [.copy("Data")]),
        .testTarget(name: "PassboxServerTests", dependencies: ["PassboxServer", "PassboxProtocol", "PassboxCore", "PassboxCrypto", "PassboxSQLite", "PassboxTestSupport"]),
        .testTarget(name: "PassboxHTTPTests", dependencies: ["PassboxHTTP", "PassboxTestSupport"]),
        .testTarget(name: "PassboxSQLiteTests", dependencies: ["PassboxSQLite", "PassboxTestSupport"]),
        .testTarget(name: "PassboxAgentTests", dependencies: ["PassboxAgent", "PassboxTestSupport"]),
        .testTarget(name: "PassboxCheckTests", dependencies: ["PassboxCore", "PassboxDomains", "PassboxClient", "PassboxTestSupport"]),
        .testTarget(name: "PassboxImagingTests", dependencies: ["PassboxImaging", "PassboxTestSupport"], resources: [.copy("Images")]),
        .testTarget(
            name: "PassboxStoreTests", dependencies: ["PassboxStore", "PassboxCore", "PassboxCrypto", "PassboxTestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "PassboxCLITests", dependencies: ["PassboxCLI", "PassboxProtocol", "PassboxAgent", "PassboxHTTP", "PassboxTestSupport"],
            resources: [.copy("Transcripts")]),
    ],
    swiftLanguageModes: [.v6]
)
