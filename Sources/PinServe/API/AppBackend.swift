import Foundation
import PinCore

/// The routes past the gate, each one use case of the application layer.
public final class AppBackend: Backend {
    public let databasePath: String
    /// The --library folders, by real path: the roots photos are served from.
    public let libraries: [String]

    public init(databasePath: String, libraries: [String]) throws {
        self.databasePath = databasePath
        self.libraries = libraries
    }

    public func respond(_ route: Route, _ target: RequestTarget, _ request: HTTPRequest, _ caller: Gate.Caller) throws -> HTTPResponse {
        switch route {
        case .version: return .json(200, ["version": ChangeCounter.version(of: databasePath)])
        default: return .error(501, "not made yet")
        }
    }
}

/// What changed in the database since the page last asked, without opening it: the modification
/// times and sizes of the file and its write-ahead log (every commit of any process, the CLI's
/// or a nightly import's, changes one of them). The page polls this and reloads its data when it
/// differs.
public enum ChangeCounter {
    public static func version(of path: String) -> String {
        var text = ""
        for file in [path, path + "-wal"] {
            var info = stat()
            if stat(file, &info) == 0 {
                text += "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec).\(info.st_size);"
            } else {
                text += "-;"
            }
        }
        return text
    }
}
