import Foundation
import WalletOrdersModel

/// One input: a target document and a merge patch, separated by the first NUL byte.
///
/// Properties of RFC 7396 besides not crashing: applying a patch twice changes nothing more; a patch that is not
/// an object replaces the target; every non-null, non-object member of a patch object is in the result as sent,
/// and every null member is gone.
func fuzzMergePatch(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    let buffer = UnsafeBufferPointer(start: bytes, count: count)
    let split = buffer.firstIndex(of: 0) ?? count
    guard let target = try? JSONValue.parse(Data(buffer[..<split])),
        let patch = try? JSONValue.parse(split < count ? Data(buffer[(split + 1)...]) : Data("{}".utf8))
    else { return 0 }
    let merged = target.merging(patch: patch)
    precondition(merged.merging(patch: patch) == merged, "the patch is not idempotent")
    guard let members = patch.objectValue else {
        precondition(merged == patch, "a patch that is not an object must replace the target")
        return 0
    }
    for (key, value) in members {
        switch value {
        case .null: precondition(merged[key] == nil, "a null member must remove \(key)")
        case .object: precondition(merged[key]?.objectValue != nil, "an object member must leave an object at \(key)")
        default: precondition(merged[key] == value, "a member must be set as sent at \(key)")
        }
    }
    precondition((try? JSONValue.parse(merged.serialized())) != nil, "the merged document does not serialize")
    if let fields = target.objectValue {
        let order = OrderDocument(fields: fields).withDefaults(patch)
        for (key, value) in fields where value != .null && value.objectValue == nil {
            precondition(order[key] == value, "an order's own value must win over the defaults at \(key)")
        }
    }
    return 0
}
