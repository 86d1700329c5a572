#if canImport(Glibc)
    import Glibc
#endif

/// Calls `body` with C strings for `strings` (nil stays NULL), valid during the call.
func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let storage: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } ?? nil }
    defer { for pointer in storage { free(pointer) } }
    return body(storage.map { $0.map { UnsafePointer($0) } })
}

extension String {
    var trimmingTrailingNewlines: String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
