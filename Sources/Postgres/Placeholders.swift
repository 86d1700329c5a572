/// The shared SQL's placeholders (`?`, `?N`) as PostgreSQL's (`$n`), leaving string literals,
/// quoted names and comments alone.
enum Placeholders {
    /// `sql` with `$n` placeholders, and how many there are.
    static func translate(_ sql: String) -> (sql: String, count: Int) {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 8)
        var next = 0
        var highest = 0
        var characters = Array(sql.unicodeScalars)[...]
        while let c = characters.popFirst() {
            switch c {
            case "'", "\"":
                out.unicodeScalars.append(c)
                while let d = characters.popFirst() {
                    out.unicodeScalars.append(d)
                    if d == c {
                        if characters.first == c {  // a doubled quote stays inside
                            out.unicodeScalars.append(characters.removeFirst())
                        } else {
                            break
                        }
                    }
                }
            case "-" where characters.first == "-":
                out.unicodeScalars.append(c)
                while let d = characters.popFirst() {
                    out.unicodeScalars.append(d)
                    if d == "\n" { break }
                }
            case "?":
                var digits = ""
                while let d = characters.first, d.properties.numericType != nil, d.isASCII {
                    digits.unicodeScalars.append(characters.removeFirst())
                }
                let index: Int
                if let n = Int(digits) {
                    index = n
                } else {
                    next += 1
                    index = next
                }
                highest = max(highest, index)
                out += "$\(index)"
            default:
                out.unicodeScalars.append(c)
            }
        }
        return (out, highest)
    }
}
