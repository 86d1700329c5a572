/// Parses `16MiB`-style sizes for flags.
public enum ByteSize {
    public static func parse(_ text: String) -> Int? {
        let units: [(String, Int)] = [
            ("KiB", 1024), ("MiB", 1 << 20), ("GiB", 1 << 30), ("KB", 1000), ("MB", 1_000_000), ("B", 1),
        ]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            return Int(text.dropLast(suffix.count)).map { $0 * factor }
        }
        return Int(text)
    }
}
