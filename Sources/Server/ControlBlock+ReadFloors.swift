import CSupport

/// What the workers share about reading views from a standby (`--read-url`): each user's and
/// dog's *read floor* — the primary's WAL position after this service last wrote for them,
/// which the standby must have replayed before it may answer their views — and the counts of
/// views each server answered.
///
/// The floors are a table of words by hash of the key: two keys sharing a word only make
/// each other's views wait for a later position (read from the primary a little longer),
/// never earlier. A floor only grows.
extension ControlBlock {
    /// After the rate tables (which end at 3 MiB).
    static let readRegionOffset = (3 << 20) + (512 << 10)
    /// The counters first, then the floors.
    static let readCounterWords = 8
    static let readFloors = 32_768

    /// Which server answered a view.
    enum ViewSource: Int {
        case standby = 0
        /// The primary, because of a floor the standby had not replayed (or no floor known yet).
        case primaryBehind = 1
        /// The primary, because the standby could not be reached or failed the view.
        case primaryStandbyDown = 2
    }

    private func readFloorWord(_ key: String) -> UnsafeMutablePointer<UInt64> {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let index = Self.readCounterWords + Int(hash % UInt64(Self.readFloors))
        return word(at: Self.readRegionOffset + index * 8)
    }

    /// The WAL position `key`'s views must see (0: none recorded).
    func readFloor(_ key: String) -> UInt64 { journey_atomic_load(readFloorWord(key)) }

    /// Raises `key`'s floor to `position` (a lower one leaves it as it is).
    func raiseReadFloor(_ key: String, to position: UInt64) {
        let word = readFloorWord(key)
        while true {
            let current = journey_atomic_load(word)
            if current >= position || journey_atomic_compare_exchange(word, current, position) { return }
        }
    }

    /// Counts one view answered by `source`.
    func countView(_ source: ViewSource) {
        _ = journey_atomic_add(word(at: Self.readRegionOffset + source.rawValue * 8), 1)
    }

    /// Views answered by `source` since the service started.
    func views(_ source: ViewSource) -> UInt64 {
        journey_atomic_load(word(at: Self.readRegionOffset + source.rawValue * 8))
    }
}
