import Foundation
import XCTest

/// A database file damaged in place by another process, as a disk or a foreign tool could:
/// Python's sqlite3 finds the table's root page, then the type byte of that b-tree page is
/// made 0xFF (no kind of page; on page 1 after the file's 100-byte header), so SQLite reports
/// the file as damaged when it reads the table.
public enum DatabaseDamage {
    public static func damageRootPage(of table: String, in path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            page = c.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (sys.argv[2],)).fetchone()[0]
            size = c.execute("PRAGMA page_size").fetchone()[0]
            c.close()
            with open(sys.argv[1], 'r+b') as f:
                f.seek((page - 1) * size + (100 if page == 1 else 0))
                f.write(b'\\xff')
            """, path, table]
        try probe.run()
        probe.waitUntilExit()
        XCTAssertEqual(probe.terminationStatus, 0, "damaging \(table) in \(path)", file: file, line: line)
    }
}
