import Core
import Foundation

/// The digest of every file of a library folder, names and contents: two folders with the same
/// files (a rule set and its snapshot copy) have the same digest, and any edit changes it.
enum LibraryDigest {
    /// The folder's digest; nil when there is no folder or a file of it cannot be read.
    static func of(_ directory: String?) -> String? {
        guard let directory else { return nil }
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: directory) else { return nil }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: directory + "/" + relative, isDirectory: &isDirectory) else { return nil }
            if !isDirectory.boolValue { files.append(relative) }
        }
        var hasher = SHA256()
        for relative in files.sorted() {
            guard let contents = manager.contents(atPath: directory + "/" + relative) else { return nil }
            hasher.update("\(relative.utf8.count):\(relative)\(contents.count):")
            hasher.update(contents)
        }
        return hasher.finalizeHex()
    }
}
