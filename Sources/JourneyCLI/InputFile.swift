import Foundation

/// A file given with `--input`, read by streaming it to its end: a pipe, a FIFO or a process
/// substitution (`<(…)`, `/dev/fd/63`) has no size to stat, so reading it by its size reads nothing.
enum InputFile {
    /// The bytes of `path`, at most `limit` + 1 of them (one more than fits tells the parser it is
    /// too big); nil when it cannot be opened or read.
    static func read(_ path: String, limit: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limit {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }
}
