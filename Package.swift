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
        .systemLibrary(name: "CQREncode", providers: [.apt(["libqrencode-dev"])]),
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
        .target(name: "PassboxProcess", dependencies: ["CLinux"]),
        .target(name: "CZxcvbnSupport", dependencies: ["CZxcvbn"]),
        .target(name: "CCryptoSupport", dependencies: ["CCrypto"]),
        .target(name: "CPSLSupport", dependencies: ["CPSL"]),
        .target(name: "CIDN2Support", dependencies: ["CIDN2"]),
        .target(name: "CICUSupport", dependencies: ["CICU"]),
        .target(name: "CPNGSupport", dependencies: ["CPNG"]),
        .target(name: "CTurboJPEGSupport", dependencies: ["CTurboJPEG"]),
        .target(name: "CZbarSupport", dependencies: ["CZbar"]),
        .target(name: "CCurlSupport", dependencies: ["CCurl"]),
        .target(name: "CXMLSupport"),
        .target(name: "CLogindSupport", dependencies: ["CLogind"]),
        .target(name: "CPAMSupport", dependencies: ["CPAM"]),
        .target(name: "CXcbSupport", dependencies: ["CXcb"]),
        // libseccomp is loaded with dlopen; its header comes from libseccomp-dev.
        .target(name: "CSandboxSupport"),
        // The account server's /v1 wire types, the shared error vocabulary and the JSON coding: what the server
        // and its clients speak. The agent's protocol (PassboxProtocol) builds on it; the server never sees that.
        .target(name: "PassboxServerAPI"),
        .target(name: "PassboxProtocol", dependencies: ["PassboxServerAPI"]),
        .target(name: "PassboxCrypto", dependencies: ["CSodium", "CArgon2", "CCryptoSupport", "CLinux"]),
        .target(name: "PassboxCore", dependencies: ["PassboxCrypto", "CZxcvbnSupport"]),
        // Every sentence for people, English and German: imported by the surfaces only (the CLI, the web page's
        // assets, the printed documents of the service); the libraries below throw codes with facts.
        .target(name: "PassboxWording"),
        .target(name: "PassboxStore", dependencies: ["PassboxCore", "PassboxCrypto", "CZlib", "CLinux"]),
        // The manifest chain, apart from the vault's code: the server checks manifests and never imports Core.
        .target(name: "PassboxManifest", dependencies: ["PassboxCrypto"]),
        .target(name: "PassboxSync", dependencies: ["PassboxCore", "PassboxCrypto", "PassboxManifest"]),
        .target(name: "PassboxInterop", dependencies: ["PassboxCore", "PassboxCrypto", "PassboxStore", "CXMLSupport"]),
        .target(name: "PassboxSQL"),
        .target(name: "PassboxSQLite", dependencies: ["PassboxSQL", "CSQLite"]),
        .systemLibrary(name: "CPQ", providers: [.apt(["libpq-dev"])]),
        .target(name: "CPQSupport", dependencies: ["CPQ"]),
        .target(name: "PassboxPostgres", dependencies: ["PassboxSQL", "CPQSupport"]),
        .target(name: "CMicroHTTPDSupport", dependencies: ["CMicroHTTPD"]),
        .target(name: "PassboxHTTP", dependencies: ["CMicroHTTPDSupport"]),
        .target(name: "CKitSupport", dependencies: ["CCairo"]),
        .target(name: "CQRSupport", dependencies: ["CQREncode"]),
        .target(name: "PassboxKit", dependencies: ["CKitSupport", "CQRSupport"]),
        .target(name: "PassboxServer", dependencies: ["PassboxServerAPI", "PassboxCrypto", "PassboxSQL", "PassboxSQLite", "PassboxPostgres", "PassboxHTTP", "PassboxManifest", "PassboxCurl"]),
        .target(name: "PassboxImaging", dependencies: ["CZbarSupport", "CPNGSupport", "CTurboJPEGSupport"]),
        .target(name: "PassboxDomains", dependencies: ["PassboxCore", "CPSLSupport", "CIDN2Support", "CICUSupport"]),
        .target(name: "PassboxCurl", dependencies: ["CCurlSupport"]),
        .target(name: "PassboxClient", dependencies: ["PassboxCore", "PassboxCrypto", "PassboxProtocol", "PassboxCurl"]),
        .target(
            name: "PassboxService",
            dependencies: [
                "PassboxImaging", "PassboxProtocol", "PassboxCore", "PassboxWording", "PassboxStore", "PassboxCrypto", "PassboxDomains", "PassboxClient", "PassboxSync", "PassboxManifest", "PassboxKit", "PassboxInterop",
                "PassboxProcess", "CSandboxSupport",
            ],
            resources: [.copy("Data")]),
        .target(name: "PassboxWeb", dependencies: ["PassboxHTTP", "PassboxCore", "PassboxWording", "PassboxCrypto"], resources: [.copy("UI")]),
        .target(name: "PassboxAgent", dependencies: ["PassboxWeb", "PassboxImaging", "PassboxService", "PassboxProcess", "PassboxProtocol", "PassboxCore", "PassboxStore", "CLinux", "CLogindSupport", "CPAMSupport"]),
        .target(
            name: "PassboxCLI", dependencies: ["PassboxService", "PassboxProtocol", "PassboxStore", "PassboxCore", "PassboxWording", "PassboxCrypto", "PassboxImaging", "PassboxDomains", "PassboxClient", "PassboxAgent", "PassboxServer", "PassboxHTTP", "PassboxKit", "PassboxSQLite", "PassboxPostgres", "PassboxInterop", "PassboxProcess", "CXcbSupport"]),
        .executableTarget(name: "passbox", dependencies: ["PassboxCLI"]),
        // The tests' kit depends on no module of the app (ModuleLayoutTests): the unit tests of `make check` use
        // it alone; the server's and the CLI's tests add the PostgreSQL cluster of PassboxTestSupport.
        .target(name: "PassboxTestKit", dependencies: ["PassboxProcess"], resources: [.copy("Scripts")]),
        .target(name: "PassboxTestSupport", dependencies: ["PassboxTestKit", "PassboxPostgres", "PassboxProcess"]),
        // The store's fakes (a clock the test moves, a file system that fails where told), for the store's and the agent's tests.
        .target(name: "PassboxStoreFakes", dependencies: ["PassboxStore"]),
        .testTarget(
            name: "PassboxCryptoTests", dependencies: ["PassboxCrypto", "PassboxTestKit"],
            resources: [.copy("Vectors")]),
        .testTarget(name: "PassboxCoreTests", dependencies: ["PassboxCore", "PassboxWording", "PassboxProtocol", "PassboxTestKit"], resources: [.copy("Data")]),
        .testTarget(name: "PassboxServerTests", dependencies: ["PassboxServer", "PassboxProtocol", "PassboxCore", "PassboxCrypto", "PassboxSQLite", "PassboxPostgres", "PassboxTestKit", "PassboxTestSupport"]),
        .testTarget(
            name: "PassboxInteropTests", dependencies: ["PassboxInterop", "PassboxCore", "PassboxCrypto", "PassboxStore", "PassboxTestKit"],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "PassboxSyncTests", dependencies: ["PassboxSync", "PassboxManifest", "PassboxCore", "PassboxCrypto", "PassboxProtocol", "PassboxTestKit"]),
        .testTarget(name: "PassboxHTTPTests", dependencies: ["PassboxHTTP", "PassboxTestKit"]),
        .testTarget(name: "PassboxSQLiteTests", dependencies: ["PassboxSQLite", "PassboxTestKit"]),
        .testTarget(name: "PassboxWebTests", dependencies: ["PassboxWeb", "PassboxWording", "PassboxCore", "PassboxProtocol", "PassboxTestKit"]),
        .testTarget(name: "PassboxAgentTests", dependencies: ["PassboxAgent", "PassboxWording", "PassboxTestKit", "PassboxStoreFakes"]),
        .testTarget(name: "PassboxCheckTests", dependencies: ["PassboxCore", "PassboxWording", "PassboxDomains", "PassboxClient", "PassboxTestKit"]),
        .testTarget(name: "PassboxImagingTests", dependencies: ["PassboxImaging", "PassboxTestKit"], resources: [.copy("Images")]),
        .testTarget(
            name: "PassboxStoreTests", dependencies: ["PassboxStore", "PassboxCore", "PassboxCrypto", "PassboxManifest", "PassboxTestKit", "PassboxStoreFakes"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "PassboxCLITests",
            dependencies: [
                "PassboxCLI", "PassboxProtocol", "PassboxWording", "PassboxAgent", "PassboxHTTP", "PassboxSQLite", "PassboxTestKit", "PassboxTestSupport", "PassboxService", "PassboxClient", "PassboxCore",
                "PassboxStore", "PassboxSync", "PassboxManifest", "PassboxCrypto", "PassboxInterop", "PassboxImaging", "PassboxProcess",
            ],
            resources: [.copy("Transcripts")]),
    ],
    swiftLanguageModes: [.v6]
)
