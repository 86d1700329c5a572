import Core
import YAML

/// YAML → JSON for case files, strictly: scalars by the YAML 1.2 core schema, mapping keys must
/// be text and written once, and every problem names the file, the line and the column.
enum CaseJSON {
    /// `node` as JSON; `path` is the file it comes from, for errors.
    static func convert(_ node: YAMLNode, in path: String) throws(CaseFileError) -> JSON {
        switch node.content {
        case .scalar:
            do {
                switch try node.resolvedScalar() {
                case .null?, nil: return .null
                case .bool(let b)?: return .bool(b)
                case .number(let n)?: return .number(n)
                case .string(let s)?: return .string(s)
                }
            } catch {
                throw CaseFileError(error.message, in: path, at: error.mark)
            }
        case .sequence(let items):
            var elements: [JSON] = []
            elements.reserveCapacity(items.count)
            for item in items { elements.append(try convert(item, in: path)) }
            return .array(elements)
        case .mapping(let pairs):
            var object = JSONObject()
            for pair in pairs {
                guard let key = pair.key.scalar?.value else {
                    throw CaseFileError("keys must be text, found a \(pair.key.kindName)", in: path, at: pair.key.start)
                }
                guard object[key] == nil else {
                    throw CaseFileError("key `\(key)` is given twice", in: path, at: pair.key.start)
                }
                object[key] = try convert(pair.value, in: path)
            }
            return .object(object)
        }
    }
}
