import CSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Watches directory trees with inotify: any file created, written, moved, deleted or changed
/// under them. An editor's save (write a temporary file, rename it over the old one) and a
/// half-written file both show as changes; the worker waits for a quiet moment, then reloads
/// (a half-written file then fails to load, and the next write triggers another try).
final class FileWatcher {
    /// Poll this descriptor for readability.
    let descriptor: Int32
    private let roots: [String]
    private var watched: [Int32: String] = [:]

    init(roots: [String]) throws(ServiceError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw ServiceError("inotify is unavailable: \(String(cString: strerror(errno)))") }
        descriptor = fd
        self.roots = roots.map { RuleSnapshotsPath.absolute($0) }
        rescan()
    }

    deinit { close(descriptor) }

    /// Adds watches for every directory under the roots not watched yet (new folders, or a
    /// root that was replaced).
    func rescan() {
        let mask =
            UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM) | UInt32(IN_CREATE)
            | UInt32(IN_DELETE) | UInt32(IN_MODIFY) | UInt32(IN_ATTRIB) | UInt32(IN_DELETE_SELF)
            | UInt32(IN_MOVE_SELF)
        for root in roots {
            var directories = [root]
            if let enumerator = FileManager.default.enumerator(atPath: root) {
                while let relative = enumerator.nextObject() as? String {
                    if let type = enumerator.fileAttributes?[.type] as? FileAttributeType, type == .typeDirectory {
                        directories.append(root + "/" + relative)
                    }
                }
            }
            for directory in directories {
                let wd = inotify_add_watch(descriptor, directory, mask)
                if wd >= 0 { watched[wd] = directory }
            }
        }
    }

    /// Reads the pending events; true when any of them is a change.
    func drain() -> Bool {
        var changed = false
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            changed = true
            var offset = 0
            var structural = false
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.withUnsafeBytes {
                    $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                }
                if event.mask & UInt32(IN_ISDIR) != 0 || event.mask & UInt32(IN_DELETE_SELF) != 0
                    || event.mask & UInt32(IN_MOVE_SELF) != 0 || event.mask & UInt32(IN_IGNORED) != 0
                {
                    structural = true
                }
                if event.mask & UInt32(IN_IGNORED) != 0 { watched[event.wd] = nil }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
            if structural { rescan() }
        }
        return changed
    }
}

enum RuleSnapshotsPath {
    static func absolute(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (absolute as NSString).standardizingPath
    }
}
