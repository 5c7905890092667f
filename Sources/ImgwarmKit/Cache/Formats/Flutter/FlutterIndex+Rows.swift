extension FlutterIndex {
    /// What the index keeps of a row: what a hit, the LRU order and the size need (not its URL
    /// and eTag, which only the database holds).
    struct Listed {
        var id: Int64
        var key: String
        var relativePath: String
        var validTill: Int64
        var touched: Int64
        /// `length`, `Int64.min` for NULL: 64 bytes a row where an optional made it 72 (a
        /// megabyte of a 100,000-row hits-only pass's 64 MB, docs/performance.md).
        private var storedLength: Int64

        /// The row's `length` column (NULL: nil).
        var length: Int64? { storedLength == .min ? nil : storedLength }

        init(_ row: FlutterDatabase.Row) {
            (id, key, relativePath, validTill, touched, storedLength) = (
                row.id, row.key, row.relativePath, row.validTill, row.touched, row.length ?? .min
            )
        }
    }

    /// The rows in one array, found by key and by file name through two tables of `Int32`
    /// positions in it (open addressing, linear probing): a few bytes a slot where two
    /// dictionaries of strings took 72 and 32, which kept a 100,000-line hits-only pass above its
    /// 64 MB (docs/performance.md, "Indexed formats"). Rows are only added or changed, never
    /// removed (`load` starts again): a row whose file name changed leaves a slot that no
    /// longer matches its name, and a growth drops those.
    struct Rows {
        private(set) var all: [Listed] = []
        private var byKey = Slots(capacity: 16)
        private var byName = Slots(capacity: 16)

        /// The position of the row of `key`.
        func position(ofKey key: String) -> Int? {
            byKey.find(key) { all[$0].key == key }
        }

        /// The position of the row that names `name` (the last one written, when two do).
        func position(ofName name: String) -> Int? {
            byName.find(name) { all[$0].relativePath == name }
        }

        subscript(key key: String) -> Listed? {
            position(ofKey: key).map { all[$0] }
        }

        subscript(position: Int) -> Listed {
            get { all[position] }
            set {
                let renamed = all[position].relativePath != newValue.relativePath
                all[position] = newValue
                guard renamed else { return }
                let rows = all
                byName.insert(newValue.relativePath, position) { rows[$0].relativePath == newValue.relativePath }
                growIfFull()
            }
        }

        /// Adds `row`, or replaces the row of its key.
        mutating func put(_ row: Listed) {
            if let position = position(ofKey: row.key) {
                self[position] = row
                return
            }
            all.append(row)
            let (rows, position) = (all, all.count - 1)
            byKey.insert(row.key, position) { _ in false }
            byName.insert(row.relativePath, position) { rows[$0].relativePath == row.relativePath }
            growIfFull()
        }

        private mutating func growIfFull() {
            guard byKey.isFull || byName.isFull else { return }
            var capacity = byKey.capacity * 2
            while capacity < all.count * 3 { capacity *= 2 }
            (byKey, byName) = (Slots(capacity: capacity), Slots(capacity: capacity))
            let rows = all
            for (position, row) in rows.enumerated() {
                byKey.insert(row.key, position) { _ in false }
                byName.insert(row.relativePath, position) { rows[$0].relativePath == row.relativePath }
            }
        }
    }

    /// An open-addressing table of positions (−1 an empty slot), its capacity a power of two,
    /// at most half full.
    struct Slots {
        private var slots: [Int32]
        private var used = 0

        init(capacity: Int) { slots = Array(repeating: -1, count: capacity) }

        var capacity: Int { slots.count }
        var isFull: Bool { used * 2 > slots.count }

        private func start(_ text: String) -> Int {
            var hasher = Hasher()
            hasher.combine(text)
            return hasher.finalize() & (slots.count - 1)
        }

        func find(_ text: String, matches: (Int) -> Bool) -> Int? {
            var slot = start(text)
            while slots[slot] >= 0 {
                if matches(Int(slots[slot])) { return Int(slots[slot]) }
                slot = (slot + 1) & (slots.count - 1)
            }
            return nil
        }

        /// Points the slot of `text` at `position`: the slot whose position `matches`, or a new one.
        mutating func insert(_ text: String, _ position: Int, matches: (Int) -> Bool) {
            var slot = start(text)
            while slots[slot] >= 0 {
                if matches(Int(slots[slot])) {
                    slots[slot] = Int32(position)
                    return
                }
                slot = (slot + 1) & (slots.count - 1)
            }
            slots[slot] = Int32(position)
            used += 1
        }
    }
}
