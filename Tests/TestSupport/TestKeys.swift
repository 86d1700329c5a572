import Auth
import Core
import Foundation

/// Keys made at test time with the `openssl` command (nothing private is committed): two RSA 2048
/// pairs, EC P-256 and P-384 pairs, their JWKS, and tokens signed with them.
public final class TestKeys: Sendable {
    let folder: TemporaryDirectory
    /// The shared secret (HS256).
    public static let secret = Array("a-shared-secret-of-at-least-32-bytes!".utf8)

    /// Made once for the whole suite (key generation takes a moment).
    public static let shared: TestKeys = {
        do { return try TestKeys() } catch { fatalError("cannot make test keys: \(error)") }
    }()

    private init() throws {
        folder = try TemporaryDirectory()
        try Self.openssl([
            "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", folder.file("rsa.pem"),
        ])
        try Self.openssl([
            "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", folder.file("rsa2.pem"),
        ])
        try Self.openssl([
            "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", folder.file("ec.pem"),
        ])
        try Self.openssl([
            "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", folder.file("ec384.pem"),
        ])
        for name in ["rsa", "rsa2", "ec", "ec384"] {
            try Self.openssl([
                "pkey", "-in", folder.file("\(name).pem"), "-pubout", "-out", folder.file("\(name).pub.pem"),
            ])
            try Self.openssl([
                "pkey", "-in", folder.file("\(name).pem"), "-pubout", "-outform", "DER", "-out",
                folder.file("\(name).pub.der"),
            ])
        }
        let set: JSON = [
            "keys": [
                try jwk("rsa", kid: "r1"), try jwk("rsa2", kid: "r2"), try jwk("ec", kid: "e1"),
                ["kty": "oct", "kid": "s1", "k": "c2VjcmV0"],
                ["kty": "RSA", "use": "enc", "kid": "x1", "n": "AQAB", "e": "AQAB"],
            ]
        ]
        _ = try folder.write("keys.json", set.compactText)
    }

    /// The JWKS file: the RSA key (kid r1), the second RSA key (r2), the EC key (e1), and two
    /// keys the service leaves out (an HMAC key, an encryption key).
    public var jwksPath: String { folder.file("keys.json") }

    /// The file `name` in the keys' folder (`rsa.pub.pem`, `ec.pem`, …).
    public func path(_ name: String) -> String { folder.file(name) }

    public func publicPEM(_ name: String) throws -> String {
        try String(contentsOfFile: folder.file("\(name).pub.pem"), encoding: .utf8)
    }

    /// The signature `openssl dgst -sha256 -sign` makes (PKCS #1 v1.5, or DER ECDSA turned into
    /// JOSE's r || s).
    public func sign(_ message: [UInt8], with name: String) throws -> [UInt8] {
        let input = folder.file("message-\(UUID().uuidString)")
        precondition(FileManager.default.createFile(atPath: input, contents: Data(message)), "cannot create \(input)")
        let output = try Self.openssl(["dgst", "-sha256", "-sign", folder.file("\(name).pem"), input])
        guard name.hasPrefix("ec") else { return output }
        let (sequence, _) = try DERReader.element(output[...])
        let (r, rest) = try DERReader.element(sequence)
        let (s, _) = try DERReader.element(rest)
        func fixed(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            let digits = Array(bytes.drop { $0 == 0 })
            return [UInt8](repeating: 0, count: 32 - digits.count) + digits
        }
        return fixed(r) + fixed(s)
    }

    /// A token of `claims` with `alg` signed by key `name` (nil: the shared secret).
    public func token(_ claims: JSONObject, alg: String, key name: String?, kid: String? = nil) throws -> String {
        var header: JSONObject = ["alg": .string(alg), "typ": "JWT"]
        if let kid { header["kid"] = .string(kid) }
        var failure: Error?
        let token = TokenMinter.sign(header: header, claims: claims) { input in
            guard let name else { return HMACSHA256.mac(key: Self.secret, message: input) }
            do { return try sign(input, with: name) } catch {
                failure = error
                return []
            }
        }
        if let failure { throw failure }
        return token
    }

    /// A token of the raw header and claims texts, signed with the shared secret.
    public static func hs256(header: String, claims: String) -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(HMACSHA256.mac(key: secret, message: Array(input.utf8)))
    }

    /// The JWK of public key `name`.
    public func jwk(_ name: String, kid: String) throws -> JSON {
        let der = Array(try Data(contentsOf: URL(fileURLWithPath: folder.file("\(name).pub.der"))))
        let (info, _) = try DERReader.element(der[...])
        let (_, afterAlgorithm) = try DERReader.element(info)
        let (bits, _) = try DERReader.element(afterAlgorithm)
        let key = bits.dropFirst()  // the unused-bits byte
        if name.hasPrefix("ec") {
            let point = Array(key.dropFirst())  // 0x04
            let half = point.count / 2
            return [
                "kty": "EC", "crv": "P-256", "kid": .string(kid), "use": "sig",
                "x": .string(Base64URL.encode(Array(point[..<half]))),
                "y": .string(Base64URL.encode(Array(point[half...]))),
            ]
        }
        let (numbers, _) = try DERReader.element(key)
        let (n, rest) = try DERReader.element(numbers)
        let (e, _) = try DERReader.element(rest)
        return [
            "kty": "RSA", "kid": .string(kid), "alg": "RS256",
            "n": .string(Base64URL.encode(Array(n.drop { $0 == 0 }))), "e": .string(Base64URL.encode(Array(e))),
        ]
    }

    @discardableResult
    public static func openssl(_ arguments: [String]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestKeyError("openssl \(arguments.joined(separator: " ")) failed")
        }
        return Array(data)
    }
}

/// Reads DER: one element's contents and what follows it.
public enum DERReader {
    /// The element at the start of `bytes`: its contents, and the bytes after it.
    public static func element(_ bytes: ArraySlice<UInt8>) throws -> (
        contents: ArraySlice<UInt8>, rest: ArraySlice<UInt8>
    ) {
        var index = bytes.startIndex + 1
        guard index < bytes.endIndex else { throw TestKeyError("DER too short") }
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7f
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
        }
        guard index + length <= bytes.endIndex else { throw TestKeyError("DER length past the end") }
        return (bytes[index..<index + length], bytes[(index + length)...])
    }
}

/// A key or signature the test could not make.
public struct TestKeyError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
