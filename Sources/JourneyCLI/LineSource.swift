import Foundation

/// Lines of a file read in chunks (bounded memory for files of millions of events), or of
/// bytes already in memory (standard input), pulled one at a time.
final class LineSource {
    /// The longest line accepted (an event larger than this is refused as a whole).
    static let maximumLineBytes = 1 << 20

    /// One line: its 1-based number, and its bytes without the newline (nil when it was longer
    /// than ``maximumLineBytes`` and skipped).
    struct Line {
        var number: Int
        var bytes: ArraySlice<UInt8>?
    }

    private let handle: FileHandle?
    private var buffer: [UInt8]
    private var start = 0
    private var ended: Bool
    private var number = 0
    private var skipping = false
    /// Bytes read so far (for progress).
    private(set) var bytesRead = 0
    /// The size of the input, when known.
    let totalBytes: Int?

    /// Lines of the file at `path`.
    init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CLIError(FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file")
        }
        self.handle = handle
        buffer = []
        ended = false
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        totalBytes = size
    }

    /// Lines of `bytes`.
    init(bytes: [UInt8]) {
        handle = nil
        buffer = bytes
        ended = true
        bytesRead = bytes.count
        totalBytes = bytes.count
    }

    /// The next line, or nil at the end of the input.
    func next() throws -> Line? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                number += 1
                defer { start = newline + 1 }
                if skipping {
                    skipping = false
                    return Line(number: number, bytes: nil)
                }
                return Line(number: number, bytes: buffer[start..<newline])
            }
            if buffer.count - start > Self.maximumLineBytes {
                // Too long: drop what we have and skip to the next newline.
                skipping = true
                buffer.removeAll(keepingCapacity: true)
                start = 0
            }
            guard !ended, let handle else {
                guard start < buffer.count else { return nil }
                number += 1
                defer { start = buffer.count }
                if skipping {
                    skipping = false
                    return Line(number: number, bytes: nil)
                }
                return Line(number: number, bytes: buffer[start...])
            }
            guard let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty else {
                ended = true
                continue
            }
            bytesRead += chunk.count
            buffer.removeFirst(start)
            start = 0
            buffer.append(contentsOf: chunk)
        }
    }
}
