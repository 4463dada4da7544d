/// Tags in one text cell (pins' CSV `tags` column; a place CSV's): separated by `;`, a `;` or
/// `\` inside a tag written with a backslash before it (`a\;b` is the one tag "a;b"), so any tag
/// list reads back as it was written.
public enum TagList {
    public static func join(_ tags: [String]) -> String {
        tags.map { tag in
            var out = ""
            for c in tag {
                if c == ";" || c == "\\" { out.append("\\") }
                out.append(c)
            }
            return out
        }.joined(separator: ";")
    }

    /// The tags of a cell; an empty cell has none, and empty tags are dropped. With `trim`,
    /// spaces around a tag are not part of it (`paris; food` is "paris" and "food"); pins' own
    /// export is read without (its tags are as they were written).
    public static func split(_ text: String, trim: Bool = true) -> [String] {
        var tags: [String] = []
        var current = ""
        var escaped = false
        for c in text {
            if escaped {
                current.append(c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == ";" {
                tags.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        if escaped { current.append("\\") }
        tags.append(current)
        return (trim ? tags.map { $0.trimmingSpaces } : tags).filter { !$0.isEmpty }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
