import Foundation

/// Values looked up by a UUID: the ids sorted by their bytes, each with its value, 16 bytes a
/// key and the value's. For the 100,000 pins pins serve keeps, a dictionary took 84 bytes an
/// entry, and one grown pin by pin half as much again at once (each pin's trip, each pin's place
/// in the map data).
public struct IDIndex<Value: Sendable>: Sendable {
    typealias Key = IDOrder.Key

    private let keys: [Key]
    /// In the keys' order: the ids' bytes.
    public let values: [Value]

    /// `ids` and their `values`, pair by pair (as many of each); of an id given twice, its last
    /// value, as a dictionary's last write.
    public init(ids: [UUID], values given: [Value]) {
        precondition(ids.count == given.count, "an id without a value")
        let keyed = ids.map(Key.init)
        let order = IDOrder.sorted(keyed)
        var keys: [Key] = [], values: [Value] = []
        keys.reserveCapacity(order.count)
        values.reserveCapacity(order.count)
        for index in order where keys.last != keyed[index] {
            keys.append(keyed[index])
            values.append(given[index])
        }
        self.keys = keys
        self.values = values
    }

    /// The value of `id`, nil when it has none.
    public subscript(_ id: UUID) -> Value? {
        IDOrder.position(of: Key(id), in: keys).map { values[$0] }
    }

    /// How many ids have a value.
    public var count: Int { keys.count }
}

/// `IDIndex`'s keys and their order, apart from its values' type: the sort, in a generic type's
/// init called from another module, ran unspecialised (a tenth of pins serve's map data).
enum IDOrder {
    struct Key: Comparable, Sendable {
        let high: UInt64, low: UInt64

        init(_ id: UUID) {
            let b = id.uuid
            high = UInt64(b.0) << 56 | UInt64(b.1) << 48 | UInt64(b.2) << 40 | UInt64(b.3) << 32
                | UInt64(b.4) << 24 | UInt64(b.5) << 16 | UInt64(b.6) << 8 | UInt64(b.7)
            low = UInt64(b.8) << 56 | UInt64(b.9) << 48 | UInt64(b.10) << 40 | UInt64(b.11) << 32
                | UInt64(b.12) << 24 | UInt64(b.13) << 16 | UInt64(b.14) << 8 | UInt64(b.15)
        }

        static func < (a: Key, b: Key) -> Bool { a.high != b.high ? a.high < b.high : a.low < b.low }
    }

    /// The indices of `keyed` in the keys' order; of equal ids, the later one first.
    static func sorted(_ keyed: [Key]) -> [Int] {
        keyed.indices.sorted { keyed[$0] != keyed[$1] ? keyed[$0] < keyed[$1] : $0 > $1 }
    }

    /// Where `key` is in `keys` (sorted), nil when it is not.
    static func position(of key: Key, in keys: [Key]) -> Int? {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? low : nil
    }
}
