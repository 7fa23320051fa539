import Foundation
import NIOCore
import Synchronization
import WalletOrdersStore

/// The current signed package and head (token, version, dates) of recently fetched orders, bounded by bytes, so
/// that a warm fetch does no SQL.
///
/// What it promises, and why:
/// - **Never older than a version this instance knows of.** Every version the store announces
///   (`StoreEvent.orderChanged`) raises the order's *floor*: entries below it are dropped and fills below it
///   refused. A fill carries a `Ticket` taken *before* its store read, and is refused when the cache lost floors
///   since (cleared, or the floor table overflowed), so a read that started before a commit cannot put the old
///   version back after the commit's event was applied: either its version is below the floor, or the floor it
///   would have been checked against is gone and its ticket with it.
/// - **On this instance, never stale once a write is acknowledged.** The service puts each version it commits
///   into the cache (through the same guard) before it answers the write, so no event delivery sits between the
///   acknowledgement and the next fetch.
/// - **Across instances (PostgreSQL), stale at most until this instance hears the write's `NOTIFY`.** PostgreSQL
///   sends it when the writer's transaction commits, so the window is that notification's trip to this
///   instance's listening connection and through the event stream (about a millisecond on one host; measured by
///   the two-instance test). Nothing stricter is possible without a query per fetch. While that connection is
///   down, notifications are lost, so the store announces `.interrupted` and the cache turns itself off (every
///   fetch reads the store) until `.resync` says it listens again; until the first `.resync` it is off too. What
///   it held stays until then, for devices to be answered from (`heldEntry`) while the database is unreachable.
/// - An event stream that overflowed says `.resync` (or `.interrupted`) after the lost events, which clears the
///   cache the same way.
public final class FetchCache: Sendable {
    /// The most bytes of packages, tokens and identifiers it holds.
    public let capacity: Int
    /// The most floors kept for orders without an entry; past it they are all dropped, and fills in flight with them.
    let maxFloors: Int
    private let state: Mutex<State>

    /// What a hit answers: the order's head and the package of that version, as the bytes a response sends
    /// (shared, not copied, by every response).
    public struct Entry: Sendable {
        public let head: OrderHead
        public let package: ByteBuffer
    }

    /// Taken before a miss reads the store: the fill is refused when the cache lost what it would be checked
    /// against meanwhile. Nil-able on purpose: no ticket is given while the cache is off.
    public struct Ticket: Sendable {
        fileprivate let generation: UInt64
    }

    /// A cache of at most `capacity` bytes; floors are kept for up to one order per KiB of it (1,024 at least).
    public init(capacity: Int) {
        self.capacity = capacity
        maxFloors = max(1_024, capacity / 1_024)
        state = Mutex(State())
    }

    /// The entry of an order, when the cache is on and holds it.
    public func entry(type: String, id: String) -> Entry? {
        state.withLock { $0.hit(Key(type: type, id: id)) }
    }

    /// The entry of an order the cache held when it last heard from the store, on or off: what a device is answered
    /// while the database cannot be reached (the version this instance knew before, not a guess). Never when the
    /// store is reachable: then `entry` or the store answers.
    public func heldEntry(type: String, id: String) -> Entry? {
        state.withLock { state in state.index[Key(type: type, id: id)].map { state.slots[$0].entry } }
    }

    /// A ticket for a fill after reading the store; nil while the cache is off.
    public func ticket() -> Ticket? {
        state.withLock { $0.live ? Ticket(generation: $0.generation) : nil }
    }

    /// Keeps `package` as the order's current one, unless a newer version is known or the ticket is too old.
    /// Answers whether it was kept.
    @discardableResult
    public func fill(type: String, id: String, head: OrderHead, package: ByteBuffer, ticket: Ticket?) -> Bool {
        guard let ticket else { return false }
        let key = Key(type: type, id: id)
        let cost = Self.cost(key, head, package)
        let entry = Entry(head: head, package: package)
        return state.withLock { state in
            guard state.live, state.generation == ticket.generation, cost <= capacity else { return false }
            return state.insert(
                key,
                entry,
                cost: cost,
                capacity: capacity,
                maxFloors: maxFloors
            )
        }
    }

    /// Keeps the package of a version this instance just committed: like `fill`, but whatever happens to the
    /// ticket, older versions of the order are gone from the cache when it returns.
    public func written(type: String, id: String, head: OrderHead, package: ByteBuffer, ticket: Ticket?) {
        let key = Key(type: type, id: id)
        let cost = Self.cost(key, head, package)
        let entry = Entry(head: head, package: package)
        state.withLock { state in
            state.raiseFloor(key, to: head.version, maxFloors: maxFloors)
            guard let ticket, state.live, state.generation == ticket.generation, cost <= capacity else { return }
            _ = state.insert(
                key,
                entry,
                cost: cost,
                capacity: capacity,
                maxFloors: maxFloors
            )
        }
    }

    /// Applies what the store announced.
    public func apply(_ event: StoreEvent) {
        state.withLock { state in
            switch event {
            case .orderChanged(let type, let id, let version):
                state.raiseFloor(Key(type: type, id: id), to: version, maxFloors: maxFloors)
            case .pushesQueued, .webhooksQueued:
                break
            case .merchantsChanged:
                // A merchant's template may have changed: packages made with the old one go (rare: an operator's
                // change).
                state.clear(live: state.live)
            case .resync:
                state.clear(live: true)
            case .interrupted:
                // Off, but what it holds stays for `heldEntry` while the database cannot be asked; the next
                // `resync` clears it.
                state.live = false
                state.generation &+= 1
            }
        }
    }

    /// How many orders and bytes it holds, and whether it is on.
    public var usage: (entries: Int, bytes: Int, live: Bool) {
        state.withLock { ($0.index.count, $0.bytes, $0.live) }
    }

    static func cost(_ key: Key, _ head: OrderHead, _ package: ByteBuffer) -> Int {
        // Bytes held plus a rough allowance for the entry, its list links and its slot in the index.
        package.readableBytes + key.type.utf8.count + key.id.utf8.count + head.authenticationToken.utf8.count + 160
    }

    struct Key: Hashable {
        let type: String
        let id: String
    }

    /// Entries in a doubly linked list by slot number, most recently used first, found through `index`.
    struct State {
        var live = false
        /// Moves whenever floors may have been lost: clears and floor-table overflows.
        var generation: UInt64 = 0
        var slots: [Slot] = []
        var freeSlots: [Int] = []
        var index: [Key: Int] = [:]
        var first = -1
        var last = -1
        var bytes = 0
        /// The newest version announced of orders that have no entry (evicted, dropped, or never fetched).
        var floors: [Key: Int] = [:]

        struct Slot {
            var key: Key
            var entry: Entry
            var cost: Int
            var previous = -1
            var next = -1
        }

        mutating func hit(_ key: Key) -> Entry? {
            guard live, let slot = index[key] else { return nil }
            if slot != first {
                unlink(slot)
                pushFront(slot)
            }
            return slots[slot].entry
        }

        mutating func insert(_ key: Key, _ entry: Entry, cost: Int, capacity: Int, maxFloors: Int) -> Bool {
            let version = entry.head.version
            if let floor = floors[key], version < floor { return false }
            if let slot = index[key] {
                guard slots[slot].entry.head.version < version else { return false }
                remove(slot)
            }
            floors[key] = nil
            while bytes + cost > capacity, last >= 0 {
                let victim = slots[last]
                remove(last)
                // The evicted version stays the floor: a fill read before it was written must not come back.
                setFloor(victim.key, victim.entry.head.version, maxFloors: maxFloors)
            }
            let slot: Int
            if let free = freeSlots.popLast() {
                slots[free] = Slot(key: key, entry: entry, cost: cost)
                slot = free
            } else {
                slots.append(Slot(key: key, entry: entry, cost: cost))
                slot = slots.count - 1
            }
            index[key] = slot
            bytes += cost
            pushFront(slot)
            return true
        }

        mutating func raiseFloor(_ key: Key, to version: Int, maxFloors: Int) {
            if let slot = index[key] {
                let held = slots[slot].entry.head.version
                guard held < version else { return }
                remove(slot)
            }
            setFloor(key, max(version, floors[key] ?? version), maxFloors: maxFloors)
        }

        mutating func setFloor(_ key: Key, _ version: Int, maxFloors: Int) {
            if floors[key] == nil, floors.count >= maxFloors {
                // Forgetting floors would let fills in flight put back versions they guard against: refuse those.
                floors.removeAll(keepingCapacity: true)
                generation &+= 1
            }
            floors[key] = version
        }

        mutating func clear(live: Bool) {
            self.live = live
            generation &+= 1
            slots.removeAll()
            freeSlots.removeAll()
            index.removeAll()
            floors.removeAll()
            first = -1
            last = -1
            bytes = 0
        }

        private mutating func remove(_ slot: Int) {
            unlink(slot)
            index[slots[slot].key] = nil
            bytes -= slots[slot].cost
            // Let the package go now rather than when the slot is reused.
            slots[slot].entry = Entry(head: slots[slot].entry.head, package: ByteBuffer())
            freeSlots.append(slot)
        }

        private mutating func unlink(_ slot: Int) {
            let (previous, next) = (slots[slot].previous, slots[slot].next)
            if previous >= 0 { slots[previous].next = next } else { first = next }
            if next >= 0 { slots[next].previous = previous } else { last = previous }
            slots[slot].previous = -1
            slots[slot].next = -1
        }

        private mutating func pushFront(_ slot: Int) {
            slots[slot].next = first
            slots[slot].previous = -1
            if first >= 0 { slots[first].previous = slot }
            first = slot
            if last < 0 { last = slot }
        }
    }
}
