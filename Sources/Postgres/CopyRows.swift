/// Rows for one table's `COPY … FROM STDIN`, in its text format: columns separated by tabs,
/// a row a line, `\N` for NULL, and backslash, tab, newline and carriage return escaped.
struct CopyRows {
    let table: String
    /// The column list, as in the COPY (`a, b, c`).
    let columns: String
    private(set) var data: [UInt8] = []

    /// Rows are sent once this much is queued, so that a long transaction keeps little.
    static let flushBytes = 4 << 20

    init(table: String, columns: String) {
        self.table = table
        self.columns = columns
    }

    mutating func append(_ values: [PostgresValue]) {
        for (index, value) in values.enumerated() {
            if index > 0 { data.append(0x09) }
            guard let text = value.text else {
                data.append(contentsOf: [0x5C, 0x4E])  // \N
                continue
            }
            for byte in text.utf8 {
                switch byte {
                case 0x5C: data.append(contentsOf: [0x5C, 0x5C])
                case 0x09: data.append(contentsOf: [0x5C, 0x74])
                case 0x0A: data.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: data.append(contentsOf: [0x5C, 0x72])
                default: data.append(byte)
                }
            }
        }
        data.append(0x0A)
    }
}
