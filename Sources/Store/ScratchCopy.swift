/// A store that can hand out a private copy of itself as it was before a moment: what a
/// backtest replays events on without touching the real data.
public protocol ScratchCopying {
    /// A copy in which every event that occurred at or after `since` is gone, with what it
    /// stored: the rows that name it and the dogs it registered. Removed when released.
    func scratchCopy(before since: Double) throws -> ScratchStore
}

/// A private copy of a store, removed when released.
public final class ScratchStore {
    public let store: any Store
    private let copying: () throws -> ScratchStore
    private let removing: () -> Void

    /// `store`, copied again by `copy` and removed by `remove` (when this is released).
    public init(store: any Store, copy: @escaping () throws -> ScratchStore, remove: @escaping () -> Void) {
        self.store = store
        copying = copy
        removing = remove
    }

    /// Another scratch copy with this one's content (cheaper than rolling the real store back
    /// again).
    public func copy() throws -> ScratchStore {
        try copying()
    }

    deinit {
        removing()
    }
}
