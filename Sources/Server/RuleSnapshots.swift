import Core
import Foundation
import RevisionStore
import RuleEngine

/// Immutable copies of the rules and plugins directories, kept in the service's state
/// directory under their revision: `snapshots/<revision>/Rules` and `…/Plugins`.
///
/// The service never compiles from the live directories a product manager edits: it copies
/// them first, so a rule set (and every program compiled for it later, with the `lib/` it
/// imports) stays exactly what was tested. The last good revision is remembered in
/// `last-good`, so a worker that restarts while the live files are broken serves it; and a
/// revision whose tests crashed a worker is remembered in `poisoned`, so that it is not tried
/// again until the files change.
struct RuleSnapshots: Sendable {
    /// One snapshot: its revision and where its copies are.
    struct Snapshot: Sendable, Equatable {
        var revision: String
        var directory: String
        var rules: String { directory + "/Rules" }
        var plugins: String { directory + "/Plugins" }
    }

    let rulesDirectory: String
    let pluginsDirectory: String?
    let stateDirectory: String
    var snapshotsDirectory: String { stateDirectory + "/snapshots" }

    /// Creates the state directory when missing.
    func prepare() throws(ServiceError) {
        do {
            try FileManager.default.createDirectory(atPath: snapshotsDirectory, withIntermediateDirectories: true)
        } catch {
            throw ServiceError("cannot create the state directory \(stateDirectory): \(error.localizedDescription)")
        }
    }

    /// Copies the live directories into a snapshot named by their revision (computed as the
    /// rule set's revision is). An existing snapshot of the same revision is reused.
    func capture() throws(ServiceError) -> Snapshot {
        let rulesRoot = RuleSetLoader.absolutePath(rulesDirectory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: rulesRoot, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ServiceError("rules directory \(rulesDirectory) not found")
        }
        var hasher = RevisionHasher()
        var files: [(target: String, data: Data)] = []
        for relative in RuleSetLoader.listFiles(in: rulesRoot) {
            guard let data = FileManager.default.contents(atPath: rulesRoot + "/" + relative) else { continue }
            hasher.add(root: "Rules", relative: relative, data)
            files.append(("Rules/" + relative, data))
        }
        if let pluginsDirectory {
            let pluginsRoot = RuleSetLoader.absolutePath(pluginsDirectory)
            for relative in RuleSetLoader.listFiles(in: pluginsRoot) {
                guard let data = FileManager.default.contents(atPath: pluginsRoot + "/" + relative) else { continue }
                hasher.add(root: "Plugins", relative: relative, data)
                files.append(("Plugins/" + relative, data))
            }
        }
        return try keep(files, revision: hasher.finalize())
    }

    /// Keeps a published revision's files as its snapshot (reused when kept already).
    func keep(_ revision: RevisionFiles) throws(ServiceError) -> Snapshot {
        try keep(revision.files.map { ($0.key, Data($0.value.utf8)) }, revision: revision.revision)
    }

    private func keep(_ files: [(target: String, data: Data)], revision: String) throws(ServiceError) -> Snapshot {
        let final = snapshotsDirectory + "/" + revision
        if FileManager.default.fileExists(atPath: final + "/complete") {
            return Snapshot(revision: revision, directory: final)
        }
        let staging = snapshotsDirectory + "/.staging-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        do {
            for file in files {
                let path = staging + "/" + file.target
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try file.data.write(to: URL(fileURLWithPath: path))
            }
            try FileManager.default.createDirectory(atPath: staging + "/Rules", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: staging + "/Plugins", withIntermediateDirectories: true)
            try Data().write(to: URL(fileURLWithPath: staging + "/complete"))
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw ServiceError("cannot copy the rules into \(stateDirectory): \(error.localizedDescription)")
        }
        // Another worker may have made the same snapshot meanwhile: theirs is identical.
        if rename(staging, final) != 0 {
            try? FileManager.default.removeItem(atPath: staging)
            guard FileManager.default.fileExists(atPath: final + "/complete") else {
                throw ServiceError("cannot keep the rules snapshot \(final): \(String(cString: strerror(errno)))")
            }
        }
        return Snapshot(revision: revision, directory: final)
    }

    /// The snapshot of `revision`, when it is kept.
    func snapshot(_ revision: String) -> Snapshot? {
        let directory = snapshotsDirectory + "/" + revision
        guard FileManager.default.fileExists(atPath: directory + "/complete") else { return nil }
        return Snapshot(revision: revision, directory: directory)
    }

    // MARK: Last good and poisoned revisions

    /// The last revision that loaded and passed its tests.
    var lastGood: Snapshot? {
        guard let text = try? String(contentsOfFile: stateDirectory + "/last-good", encoding: .utf8) else { return nil }
        return snapshot(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Records `snapshot` as the last good revision; one that passed is no longer poisoned.
    func markGood(_ snapshot: Snapshot) {
        writeAtomically(snapshot.revision + "\n", to: stateDirectory + "/last-good")
        prune(keeping: snapshot.revision)
        let poisoned = self.poisoned
        if poisoned.contains(snapshot.revision) {
            let rest = poisoned.subtracting([snapshot.revision]).sorted()
            writeAtomically(rest.map { $0 + "\n" }.joined(), to: stateDirectory + "/poisoned")
        }
    }

    /// Revisions whose tests crashed a worker twice in a row.
    var poisoned: Set<String> {
        guard let text = try? String(contentsOfFile: stateDirectory + "/poisoned", encoding: .utf8) else { return [] }
        return Set(text.split(separator: "\n").map(String.init))
    }

    func poison(_ revision: String) {
        guard !revision.isEmpty, !poisoned.contains(revision) else { return }
        let recent = Array(poisoned.sorted().suffix(99)) + [revision]
        writeAtomically(recent.joined(separator: "\n") + "\n", to: stateDirectory + "/poisoned")
    }

    private func writeAtomically(_ text: String, to path: String) {
        let temporary = path + ".tmp-\(getpid())"
        guard (try? text.write(toFile: temporary, atomically: false, encoding: .utf8)) != nil else { return }
        if rename(temporary, path) != 0 { unlink(temporary) }
    }

    /// Keeps the 8 newest snapshots and `revision`; removes the others.
    private func prune(keeping revision: String) {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: snapshotsDirectory) else { return }
        let snapshots = names.filter { !$0.hasPrefix(".") }.compactMap { name -> (String, Date)? in
            let attributes = try? manager.attributesOfItem(atPath: snapshotsDirectory + "/" + name)
            return (name, attributes?[.modificationDate] as? Date ?? .distantPast)
        }.sorted { $0.1 > $1.1 }
        for (name, _) in snapshots.dropFirst(8) where name != revision {
            try? manager.removeItem(atPath: snapshotsDirectory + "/" + name)
        }
    }
}
