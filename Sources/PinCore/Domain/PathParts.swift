/// A path's folder and name, worked out on its bytes as dirname(3) and basename(3) do.
/// Foundation's `NSString.deletingLastPathComponent` and `lastPathComponent` trap on a
/// one-character string on Linux (`--out x`, `--db d`): every path in pins is split here.
public enum PathParts {
    private static let slash = UInt8(ascii: "/")

    /// The folder part: `a/b` → `a`, `b` → `.`, `./b` → `.`, `/b` → `/`, `a/b/` → `a`,
    /// `a//b` → `a`, `/` → `/`, `` → `.`.
    static func folder(_ path: [UInt8]) -> [UInt8] {
        var end = path.count
        while end > 1, path[end - 1] == slash { end -= 1 }  // trailing slashes
        guard let last = path[..<end].lastIndex(of: slash) else { return [UInt8(ascii: ".")] }
        var folderEnd = last
        while folderEnd > 0, path[folderEnd - 1] == slash { folderEnd -= 1 }
        return folderEnd == 0 ? [slash] : Array(path[..<folderEnd])
    }

    /// The name part, trailing slashes left out: `a/b` → `b`, `b` → `b`, `a/b/` → `b`,
    /// `/` → `/`, `` → ``.
    public static func name(_ path: [UInt8]) -> [UInt8] {
        var end = path.count
        while end > 1, path[end - 1] == slash { end -= 1 }
        let start = path[..<end].lastIndex(of: slash).map { $0 + 1 } ?? 0
        return start >= end ? Array(path[..<end]) : Array(path[start..<end])
    }

    /// `folder` of a path held as text (cutting at an ASCII `/` keeps UTF-8 whole).
    public static func folder(of path: String) -> String {
        String(decoding: folder(Array(path.utf8)), as: UTF8.self)
    }

    /// `name` of a path held as text.
    public static func name(of path: String) -> String {
        String(decoding: name(Array(path.utf8)), as: UTF8.self)
    }
}

extension RawPath {
    /// The folder part (`PathParts.folder`): `.` for a bare name.
    public var folder: RawPath { RawPath(bytes: PathParts.folder(bytes)) }
}
