import Core
import Foundation

/// The service's OpenAPI document, put together from the engine's own part and every feature's.
///
/// A feature's part is an `openapi.json` bundled with its module holding `tags`, `paths` and
/// `components.schemas` (its schemas may refer to the engine's, such as `Error`).
public enum OpenAPIDocument {
    /// Why the parts cannot be put together.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The part kept at `url` (a feature's bundled `openapi.json`).
    public static func part(at url: URL?, feature: String) throws(Failure) -> JSON {
        guard let url else { throw Failure(description: "feature \(feature): no openapi.json in its bundle") }
        do {
            let part = try JSONParser().parse(Array(try Data(contentsOf: url)))
            guard part.objectValue != nil else { throw Failure(description: "not a JSON object") }
            return part
        } catch {
            throw Failure(description: "feature \(feature): \(url.lastPathComponent): \(error)")
        }
    }

    /// `core` with each feature's tags, paths and schemas added, in the features' order. A path,
    /// schema or tag two parts both define is refused, naming the feature.
    public static func merge(core: JSON, features: [any Feature]) throws(Failure) -> JSON {
        guard var document = core.objectValue else { throw Failure(description: "the engine's part is not an object") }
        var tags = document["tags"]?.arrayValue ?? []
        var paths = document["paths"]?.objectValue ?? [:]
        var components = document["components"]?.objectValue ?? [:]
        var schemas = components["schemas"]?.objectValue ?? [:]
        for feature in features {
            guard let part = try feature.openAPI()?.objectValue else { continue }
            for tag in part["tags"]?.arrayValue ?? [] {
                guard !tags.contains(where: { $0["name"] == tag["name"] }) else {
                    throw Failure(
                        description: "feature \(feature.name): tag \(tag["name"]?.compactText ?? "?") is defined twice")
                }
                tags.append(tag)
            }
            try add(part["paths"]?.objectValue ?? [:], to: &paths, what: "path", feature: feature.name)
            try add(
                part["components"]?["schemas"]?.objectValue ?? [:], to: &schemas, what: "schema", feature: feature.name)
        }
        components["schemas"] = .object(schemas)
        document["tags"] = .array(tags)
        document["paths"] = .object(paths)
        document["components"] = .object(components)
        return .object(document)
    }

    private static func add(_ members: JSONObject, to target: inout JSONObject, what: String, feature: String)
        throws(Failure)
    {
        for (key, value) in members {
            guard target[key] == nil else {
                throw Failure(description: "feature \(feature): \(what) \(key) is defined twice")
            }
            target[key] = value
        }
    }
}
