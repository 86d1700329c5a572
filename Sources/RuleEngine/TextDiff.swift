/// A line diff for test failures: `-` lines only in the expected text, `+` lines only in the
/// actual one, two-space lines in both.
public enum TextDiff {
    public enum Line: Equatable, Sendable {
        case same(String), removed(String), added(String)

        /// The line with its marker: `  x`, `- x`, `+ x`.
        public var text: String {
            switch self {
            case .same(let s): "  " + s
            case .removed(let s): "- " + s
            case .added(let s): "+ " + s
            }
        }
    }

    /// The diff of `expected` against `actual` by longest common subsequence of lines.
    public static func lines(expected: String, actual: String) -> [Line] {
        let a = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Texts here are pretty-printed values: small enough for the quadratic table.
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var result: [Line] = []
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                result.append(.same(a[i]))
                i += 1
                j += 1
            } else if i < a.count, j == b.count || table[i + 1][j] >= table[i][j + 1] {
                result.append(.removed(a[i]))
                i += 1
            } else {
                result.append(.added(b[j]))
                j += 1
            }
        }
        return result
    }
}
