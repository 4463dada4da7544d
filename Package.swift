// swift-tools-version:6.0
// pins: a folder of photos in, one pin per visited place out (see README.md).
import PackageDescription

/// `-O` in debug builds too, for PinCore, whose loading and lookups every command runs (figures
/// at its target; breakpoints and `@testable import` still work: testability is a separate flag).
let optimisedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "pins",
    products: [
        .executable(name: "pins", targets: ["pins"]),
    ],
    targets: [
        // System libraries: the only C dependencies, all from Debian.
        .systemLibrary(
            name: "CExif",
            pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // zlib, for PNG zTXt/iTXt text chunks (docs/formats.md 4.1).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Brotli, for JPEG XL `brob` boxes (compressed Exif and XMP, docs/formats.md 9.2).
        .systemLibrary(
            name: "CBrotli",
            pkgConfig: "libbrotlidec",
            providers: [.apt(["libbrotli-dev"])]
        ),
        // HTTP for `pins serve`: libevent's evhttp (libevent_extra, over libevent_core); Argon2id
        // password hashes, random tokens and constant-time compares: libsodium. Both link
        // statically into the NAS package (scripts/package).
        .systemLibrary(
            name: "CEvent",
            pkgConfig: "libevent_extra",
            providers: [.apt(["libevent-dev"])]
        ),
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // The syscalls Swift cannot make: ioprio_set (for --nice), getrandom (for pin ids), O_TMPFILE
        // (the import's scratch file); and a cache prefetch for PinCore's place lookups.
        .target(name: "CSupport"),
        // The grammars every reader of text shares, each written once (issue 35 item 3): decimal
        // numbers, civil dates. No dependency, below PinCore, PinMetadata and PinFormats, so that
        // none of them writes its own. Optimised in debug builds as PinCore is (locate's lines
        // and the country lookups' tests go through it).
        .target(name: "PinGrammar", swiftSettings: optimisedInDebug),
        // Byte-level streaming readers with no knowledge of pins: the one XML pull parser (track
        // and place files here, XMP packets and sidecars in PinMetadata, with options), a JSON token
        // reader and the one JSON writer (JSONText), the track formats (GPX, KML, NMEA, TCX, ...)
        // and Google's location exports; CSV (RFC 4180) and ZIP (for KMZ, inflated through zlib).
        // Below PinCore and PinMetadata (it knows only PinGrammar), so each grammar is written
        // once for all of them (issue 35 item 3).
        // Release builds skip the dynamic exclusivity checks of its readers: their state is class
        // properties touched at every byte run, and the checks took 40 % of reading a GPX track
        // (debug builds, the tests and scripts/fuzz keep them).
        .target(name: "PinFormats", dependencies: ["PinGrammar", "CZlib"],
                swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
        // The app's model and rules: no file or database I/O. Above PinFormats, which must never
        // import it.
        // Optimised even in a debug build: the country index and the gazetteer are loaded and
        // queried through this code by most commands, and by most CLI tests. Measured on
        // 2026-12-03 (debug builds of the same tree with and without this flag, median of 7 runs
        // on a loaded 2-core machine, Fixtures/library's database): `pins locate --json` of one
        // line 0.27-0.38 s with -O, 1.14-1.28 s without; `pins stats` 0.27-0.42 s vs 1.27-1.31 s;
        // `pins report` 0.56-0.70 s vs 1.72-1.82 s; `pins locate` 0.13-0.18 s vs 0.40 s.
        .target(name: "PinCore", dependencies: ["PinGrammar", "PinFormats", "CSupport"], swiftSettings: optimisedInDebug),
        // Container readers and the one libexif wrapper.
        .target(name: "PinMetadata", dependencies: ["PinCore", "PinGrammar", "PinFormats", "CExif", "CZlib", "CBrotli", "CSupport"]),
        // The data files (Resources/, share/pins when installed) found, read or mapped, and loaded:
        // the one loader of the CLI, the benchmark and the tests.
        .target(name: "PinData", dependencies: ["PinCore"]),
        // SQLite storage: connection, migrations, repositories, run lock; the system source of
        // new ids (getrandom); the runs' scratch storage (a SQLite scratch database, a file with no
        // name), shared with the photo import and import-places through `package` access.
        .target(name: "PinStore", dependencies: ["PinCore", "CSQLite", "CSupport"]),
        // The photo import end to end: lock, run record, scanner, pipeline stages, reports, as
        // plain values (the caller, PinApp, draws a run over the map page).
        .target(name: "PinImport", dependencies: ["PinCore", "PinGrammar", "PinMetadata", "PinStore", "PinFormats", "CSupport"], exclude: ["THREADS.md"]),
        // `pins import-places`: the place-file readers (CSV, JSON, XML: Readers/, which know
        // PinCore, PinGrammar and PinFormats only), their scratch spool, and the run that adds the
        // places as pins, with its report writers. No photo in it: it does not need PinImport.
        .target(name: "PinPlaces", dependencies: ["PinCore", "PinGrammar", "PinFormats", "PinStore"]),
        // The offline HTML map page, and exports: plain values in, files out (AtomicFile). The page's script,
        // style sheet and template (Sources/PinReport/Page) are compiled in by EmbedFiles.
        .target(name: "PinReport", dependencies: ["PinCore", "PinGrammar", "PinFormats"], plugins: ["EmbedFiles"]),
        // The application layer: one use case per thing a person does, called by the CLI and by
        // `pins serve` alike; plain values in and out, one connection per call (THREADS.md).
        .target(name: "PinApp", dependencies: ["PinCore", "PinGrammar", "PinFormats", "PinData", "PinStore", "PinMetadata", "PinImport", "PinPlaces", "PinReport"], exclude: ["THREADS.md"]),
        // `pins serve`: HTTP through evhttp, the gate (sessions, CSRF, Host/Origin, limits), routes
        // that call the use cases, the browser's own scripts (Assets, compiled in by EmbedFiles).
        // CServe: the few evhttp calls, in C (libevent's headers and Foundation clash as Swift modules).
        .target(name: "CServe", dependencies: ["CEvent"], linkerSettings: [.linkedLibrary("event_extra"), .linkedLibrary("event_core")]),
        .target(name: "PinServe", dependencies: ["PinApp", "PinCore", "PinFormats", "PinImport", "PinReport", "PinStore", "CServe", "CSodium", "CSupport", "CZlib"], plugins: ["EmbedFiles"]),
        .executableTarget(
            name: "pins",
            dependencies: ["PinApp", "PinCore", "PinData", "PinGrammar", "PinFormats", "PinMetadata", "PinImport", "PinPlaces", "PinReport", "PinServe", "CSupport"]
        ),
        // The build step that turns text files into string constants (Plugins/EmbedFiles).
        .executableTarget(name: "embed-files", path: "Sources/embed-files"),
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["embed-files"]),
        // Benchmarks of the rules and the resolver alone (scripts/bench).
        .executableTarget(name: "pins-bench", dependencies: ["PinCore", "PinData"]),
        // Writes Resources/Countries.bin, the country index, from Countries.geojson (scripts/build-countries).
        .executableTarget(name: "build-country-index", dependencies: ["PinCore"]),
        // What the test targets share: the repository root, fixtures, the Eiffel Tower check.
        .target(name: "TestSupport", dependencies: ["PinCore", "PinData"], path: "Tests/TestSupport"),
        .testTarget(name: "PinGrammarTests", dependencies: ["PinGrammar"]),
        .testTarget(name: "PinCoreTests", dependencies: ["PinCore", "PinGrammar", "TestSupport"]),
        .testTarget(name: "PinFormatsTests", dependencies: ["PinFormats", "PinGrammar", "TestSupport"]),
        .testTarget(name: "PinStoreTests", dependencies: ["PinStore", "PinCore", "TestSupport"]),
        .testTarget(name: "PinMetadataTests", dependencies: ["PinMetadata", "PinCore", "TestSupport"]),
        .testTarget(name: "PinImportTests", dependencies: ["PinImport", "PinCore", "PinGrammar", "PinMetadata", "PinStore", "PinFormats", "TestSupport"]),
        .testTarget(name: "PinPlacesTests", dependencies: ["PinPlaces", "PinCore", "PinGrammar", "PinFormats", "PinStore", "TestSupport"]),
        .testTarget(name: "PinReportTests", dependencies: ["PinReport", "PinCore", "PinFormats", "TestSupport"]),
        .testTarget(name: "PinAppTests", dependencies: ["PinApp", "PinCore", "PinStore", "TestSupport"]),
        .testTarget(name: "PinServeTests", dependencies: ["PinServe", "PinApp", "PinCore", "PinImport", "PinPlaces", "PinStore", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["PinCore", "PinStore", "TestSupport"], exclude: ["golden", "schemas"]),
    ],
    swiftLanguageModes: [.v6]
)
