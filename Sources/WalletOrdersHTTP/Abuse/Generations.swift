/// A map that forgets its oldest generation of keys rather than grow past `capacity`.
struct Generations<Value> {
    let capacity: Int
    private var current: [String: Value] = [:]
    private var previous: [String: Value] = [:]

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { current.count + previous.count }

    func peek(_ key: String) -> Value? {
        current[key] ?? previous[key]
    }

    mutating func remove(_ key: String) -> Value? {
        current.removeValue(forKey: key) ?? previous.removeValue(forKey: key)
    }

    mutating func insert(_ key: String, _ value: Value) {
        if current[key] == nil, current.count >= capacity / 2 {
            previous = current
            current = [:]
        }
        previous.removeValue(forKey: key)
        current[key] = value
    }
}
