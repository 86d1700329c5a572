import Core

/// A JSON Web Key Set's signing keys (RFC 7517, RFC 7518 §6): `kty` RSA with `n` and `e`,
/// `kty` EC with `crv` P-256, `x` and `y`.
enum JWKS {
    static func keys(_ bytes: [UInt8]) throws(KeyError) -> [(kid: String?, key: PublicKey)] {
        let document: JSON
        do {
            document = try JSONParser(maximumDepth: 16).parse(bytes)
        } catch {
            throw KeyError("it is not JSON: \(error)")
        }
        guard let entries = document["keys"]?.arrayValue else {
            throw KeyError("it is not a JWKS: no \"keys\" array")
        }
        var keys: [(kid: String?, key: PublicKey)] = []
        for (index, entry) in entries.enumerated() {
            guard case .object = entry else { throw KeyError("keys[\(index)] is not an object") }
            if let use = entry["use"]?.stringValue, use != "sig" { continue }
            let kid = entry["kid"]?.stringValue
            let name = "keys[\(index)]" + (kid.map { " (kid \($0))" } ?? "")
            let alg = entry["alg"]?.stringValue
            let key: PublicKey
            do throws(KeyError) {
                switch entry["kty"]?.stringValue {
                case "RSA":
                    if let alg, alg != "RS256" { continue }
                    key = try PublicKey(
                        der: DER.rsaPublicKey(modulus: try number(entry, "n"), exponent: try number(entry, "e")))
                case "EC":
                    guard entry["crv"]?.stringValue == "P-256", alg == nil || alg == "ES256" else { continue }
                    let x = try number(entry, "x")
                    let y = try number(entry, "y")
                    guard x.count == 32, y.count == 32 else { throw KeyError("x and y must be 32 bytes each") }
                    key = try PublicKey(der: DER.p256PublicKey(x: x, y: y))
                default:
                    continue
                }
            } catch {
                throw KeyError("\(name): \(error.message)")
            }
            if let kid, keys.contains(where: { $0.kid == kid }) { throw KeyError("\(name): the kid is given twice") }
            keys.append((kid, key))
        }
        guard !keys.isEmpty else { throw KeyError("it has no RS256 or ES256 signing key") }
        return keys
    }

    private static func number(_ entry: JSON, _ member: String) throws(KeyError) -> [UInt8] {
        guard let text = entry[member]?.stringValue else { throw KeyError("\"\(member)\" is missing") }
        guard let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw KeyError("\"\(member)\" is not base64url")
        }
        return bytes
    }
}
