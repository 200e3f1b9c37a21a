// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "evtool",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "EventLog", targets: ["EventLog"]),
        .library(name: "StoreSQLite", targets: ["StoreSQLite"]),
        .library(name: "StorePostgres", targets: ["StorePostgres"]),
        .library(name: "Commands", targets: ["Commands"]),
        .library(name: "Projections", targets: ["Projections"]),
        .library(name: "EvtoolKit", targets: ["EvtoolKit", "StoreLocations", "Transfer", "Audit"]),
        // The phone apps' client: Foundation (FoundationNetworking on Linux) and SQLite only.
        .library(name: "EvtoolClient", targets: ["EvtoolClient"]),
        .executable(name: "evtool", targets: ["evtool"]),
    ],
    targets: [
        // MARK: - C libraries
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            path: "Sources/CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            path: "Sources/CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            path: "Sources/CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
        ),

        // MARK: - Core and domain (no I/O)
        // The one JSON scanner, writer and escaper (internal: no product names it).
        .target(name: "JSONKit"),
        .target(name: "EventLog", dependencies: ["CCrypto", "JSONKit"]),
        .target(name: "Commands", dependencies: ["EventLog", "JSONKit"]),
        .target(name: "Projections", dependencies: ["EventLog", "Commands", "JSONKit"]),
        // Seeded user activity for `evtool demo`, the benchmarks and the tests (not a product).
        .target(name: "Simulation", dependencies: ["Commands"]),
        // The auditor's HTML pages (pure rendering plus reads through the store protocols).
        .target(name: "AuditReport", dependencies: ["EventLog", "Commands", "Projections", "Transfer", "Audit"]),

        // MARK: - Stores (I/O at the edges)
        .target(name: "StoreSQLite", dependencies: ["EventLog", "CSQLite"]),
        .target(name: "StorePostgres", dependencies: ["EventLog", "CLibPQ"]),

        // MARK: - Application library and the HTTP API
        // Where a store is and how to open it (part of the EvtoolKit product).
        .target(name: "StoreLocations", dependencies: ["EventLog", "StoreSQLite", "StorePostgres"]),
        // Moving events between logs and files (records, export, import, copy, migrate), and the
        // errors and progress of long operations (part of the EvtoolKit product).
        .target(name: "Transfer", dependencies: ["EventLog", "Commands", "Projections", "StoreLocations", "JSONKit"]),
        // The auditor's operations: verify, seal, forget, archives, checkpoints and proofs (part of
        // the EvtoolKit product).
        .target(name: "Audit", dependencies: ["EventLog", "Commands", "Projections", "StoreSQLite", "StorePostgres", "StoreLocations", "Transfer", "JSONKit"]),
        .target(name: "EvtoolKit", dependencies: ["EventLog", "Commands", "Projections", "StoreSQLite", "StorePostgres", "StoreLocations", "Transfer", "Audit", "JSONKit"]),
        // docs/openapi.json (linked into the target) is compiled into the binary: served without a file at run time.
        .target(name: "HTTPAPI", dependencies: ["EventLog", "Commands", "Projections", "EvtoolKit", "Transfer", "Audit", "AuditReport", "JSONKit"], resources: [.embedInCode("openapi.json")]),
        .target(name: "HTTPServer", dependencies: ["EventLog", "EvtoolKit", "StoreLocations", "StorePostgres", "HTTPAPI", "CMicroHTTPD", "JSONKit"]),

        // MARK: - The phone apps' client (Foundation and SQLite only: builds for Apple platforms and Linux)
        .target(name: "EvtoolClient", dependencies: ["CSQLite"]),

        // MARK: - Command line
        .executableTarget(
            name: "evtool",
            dependencies: ["AuditReport", "EventLog", "Commands", "Projections", "Simulation", "StoreSQLite", "StorePostgres", "EvtoolKit", "StoreLocations", "Transfer", "Audit", "HTTPAPI", "HTTPServer", "JSONKit"],
            plugins: ["BuildCommit"]
        ),
        // Writes the git commit `evtool version` prints (scripts/build-commit.sh, every build).
        .plugin(name: "BuildCommit", capability: .buildTool()),

        // MARK: - Examples (not a product: swift run AppBackend STORE)
        .executableTarget(name: "AppBackend", dependencies: ["Commands", "Projections", "EvtoolKit", "StoreLocations"], path: "Examples/AppBackend"),
        // The Event Search app's screens through EvtoolClient, on the command line (swift run PhoneApp).
        .executableTarget(name: "PhoneApp", dependencies: ["EvtoolClient"], path: "Examples/PhoneApp"),

        // MARK: - Benchmarks (not a product: swift run -c release evtool-bench)
        .executableTarget(
            name: "evtool-bench",
            dependencies: ["EventLog", "Commands", "Projections", "Simulation", "StoreSQLite", "StorePostgres", "CSQLite", "CLibPQ", "EvtoolKit", "StoreLocations"],
            path: "Benchmarks/evtool-bench"
        ),

        // MARK: - Tests
        .target(name: "TestSupport", dependencies: ["EventLog", "StoreSQLite", "StorePostgres"], path: "Tests/TestSupport"),
        .testTarget(
            name: "EventLogTests",
            dependencies: ["EventLog", "Simulation", "StoreSQLite", "StorePostgres", "TestSupport"],
            exclude: ["MerkleVectors"]
        ),
        .testTarget(name: "StoreSQLiteTests", dependencies: ["EventLog", "StoreSQLite", "TestSupport", "evtool"]),
        .testTarget(name: "evtoolTests", dependencies: ["EventLog", "StoreSQLite", "StorePostgres", "StoreLocations", "TestSupport", "evtool", "AppBackend"]),
        // The processes the fault suite kills and loads the stores with (see its main.swift).
        .executableTarget(name: "FaultDriver", dependencies: ["EventLog", "Commands", "Simulation", "StoreSQLite", "StorePostgres"], path: "Tests/FaultDriver"),
        .testTarget(
            name: "FaultTests",
            dependencies: ["EventLog", "Commands", "Projections", "Simulation", "StoreSQLite", "StorePostgres", "TestSupport", "evtool", "FaultDriver"]
        ),
        .testTarget(name: "HTTPAPITests", dependencies: ["EventLog", "Commands", "Projections", "StoreSQLite", "StorePostgres", "EvtoolKit", "StoreLocations", "Transfer", "Audit", "HTTPAPI", "HTTPServer", "TestSupport", "evtool"],
                    exclude: ["Clients"]),
        .testTarget(name: "JSONKitTests", dependencies: ["JSONKit"]),
        // The client process EvtoolClientTests kills between a send and its outbox update.
        .executableTarget(name: "ClientDriver", dependencies: ["EvtoolClient"], path: "Tests/ClientDriver"),
        .testTarget(name: "EvtoolClientTests", dependencies: ["EvtoolClient", "EvtoolKit", "HTTPAPI", "TestSupport", "evtool", "ClientDriver", "PhoneApp"]),
        .testTarget(name: "EvtoolKitTests", dependencies: ["EventLog", "Commands", "Projections", "StorePostgres", "EvtoolKit", "StoreLocations", "Transfer", "Audit", "TestSupport"]),
        .testTarget(name: "StorePostgresTests", dependencies: ["EventLog", "StorePostgres", "TestSupport"]),
        .testTarget(name: "CommandsTests", dependencies: ["EventLog", "JSONKit", "Commands", "Simulation", "StoreSQLite", "StorePostgres", "TestSupport"]),
        // Loads `evtool report` pages in headless Chromium (Tests/Browser/report_page.py, Selenium).
        .testTarget(name: "ReportTests", dependencies: ["AuditReport", "EventLog", "JSONKit", "StoreSQLite", "StorePostgres", "TestSupport", "evtool"]),
        .testTarget(name: "BenchTests", dependencies: ["EventLog", "TestSupport", "evtool", "evtool-bench"]),
        .testTarget(name: "ProjectionsTests", dependencies: ["EventLog", "JSONKit", "Commands", "Projections", "Simulation", "StoreSQLite", "StorePostgres", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
