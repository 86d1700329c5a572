#if canImport(Glibc)
    import Glibc
#endif

/// Socket addresses, made the one way every listener, client and test here makes them.
public enum SocketAddress {
    /// The IPv4 address of `host` (a literal such as `127.0.0.1`; `localhost` is 127.0.0.1) and
    /// `port`; nil when `host` is not an IPv4 literal.
    public static func ipv4(_ host: String, port: Int) -> sockaddr_in? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else { return nil }
        return address
    }
}
