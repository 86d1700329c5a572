/// Rows as a plain-text table: the first column left-aligned, the others right-aligned.
func table(header: [String], rows: [[String]]) -> String {
    let all = [header] + rows
    let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
    return all.map { row in
        row.enumerated().map { column, cell in
            column == 0
                ? cell + String(repeating: " ", count: widths[column] - cell.count)
                : String(repeating: " ", count: widths[column] - cell.count) + cell
        }.joined(separator: "  ")
    }.joined(separator: "\n")
}
