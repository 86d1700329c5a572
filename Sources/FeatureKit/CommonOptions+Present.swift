import CommandKit
import Core
import Store
import StoreBackends

extension CommonOptions {
    /// Which store a command reads.
    public enum StoreUse {
        /// The `--db` store must exist (a view of someone's data): "no store at PATH" otherwise.
        case existing
        /// The same, for what publishing makes (revisions, the audit trail): the hint says to
        /// publish first.
        case published
        /// The `--db` store when it exists, else an empty one (a view that also makes sense
        /// before anything happened, such as the challenges on offer).
        case existingOrEmpty
        /// The `--db` store, created and migrated when needed (a command that writes).
        case opened
    }

    /// What most feature commands do after reading their options: open the store, compute a JSON
    /// view from it, and print it — the JSON itself with `--format json`, else `text(view)`.
    /// A store that cannot be opened, or an error computing the view, prints `Error: …` and
    /// exits 1.
    public static func present(
        _ arguments: ParsedArguments, spec: CommandSpec, io: CommandIO, engine: FeatureSet, store use: StoreUse,
        compute: (any Store) throws -> JSON, text: (JSON) -> Void
    ) -> ExitCode {
        present(arguments, spec: spec, io: io, engine: engine, store: use, compute: compute, json: { $0 }, text: text)
    }

    /// ``present(_:spec:io:engine:store:compute:text:)`` for a result that is not JSON itself:
    /// `json` gives what `--format json` prints.
    public static func present<View>(
        _ arguments: ParsedArguments, spec: CommandSpec, io: CommandIO, engine: FeatureSet, store use: StoreUse,
        compute: (any Store) throws -> View, json: (View) -> JSON, text: (View) -> Void
    ) -> ExitCode {
        let view: View
        do {
            let store: any Store
            switch use {
            case .existing:
                guard let existing = try requiredStore(arguments, spec: spec, io: io, engine: engine) else {
                    return .failure
                }
                store = existing
            case .published:
                guard
                    let existing = try requiredStore(
                        arguments, spec: spec, io: io, engine: engine,
                        hint: "publish first: journey publish --message TEXT")
                else { return .failure }
                store = existing
            case .existingOrEmpty:
                store =
                    try existingStore(arguments, spec: spec, engine: engine)
                    ?? StoreLocation(":memory:").open(schema: engine.schema)
            case .opened:
                store = try openStore(arguments, spec: spec, engine: engine)
            }
            view = try compute(store)
        } catch {
            io.stderr.line("Error: \(error)")
            return .failure
        }
        if isJSON(arguments, spec: spec) {
            io.stdout.line(json(view).compactText)
        } else {
            text(view)
        }
        return .success
    }
}
