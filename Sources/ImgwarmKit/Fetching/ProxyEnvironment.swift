/// The proxy variables of the environment, as libcurl 7.88 reads them when no proxy is set
/// (`FetchConfiguration.proxy` nil): `http_proxy` for http URLs (never `HTTP_PROXY`), `https_proxy`
/// or else `HTTPS_PROXY` for https URLs, `all_proxy` or else `ALL_PROXY` for either when that one
/// is unset; `no_proxy` or else `NO_PROXY` unless `FetchConfiguration.noProxy` is set. libcurl
/// reads them itself; the engine reads no environment, so the CLI hands them over for what the
/// engine says of a proxy (its name in messages, the client fingerprint).
public struct ProxyEnvironment: Sendable, Equatable {
    public var http: Variable?
    public var https: Variable?
    public var all: Variable?
    public var noProxy: String?

    /// A variable's name (as set: `https_proxy` or `HTTPS_PROXY`) and value.
    public struct Variable: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init() {}

    /// The variables libcurl would read from `environment`.
    public init(environment: [String: String]) {
        func first(_ names: String...) -> Variable? {
            for name in names { if let value = environment[name] { return Variable(name: name, value: value) } }
            return nil
        }
        http = first("http_proxy")
        https = first("https_proxy", "HTTPS_PROXY")
        all = first("all_proxy", "ALL_PROXY")
        noProxy = environment["no_proxy"] ?? environment["NO_PROXY"]
    }

    /// The variables that name a proxy (set and not empty).
    public var proxies: [Variable] { [http, https, all].compactMap { $0 }.filter { !$0.value.isEmpty } }

    /// The variable libcurl takes for a URL of `scheme` (`http` or `https`), if one is set.
    func variable(forScheme scheme: String) -> Variable? {
        (scheme == "https" ? https : http) ?? all
    }

    /// What the client fingerprint holds of them: the same text as before they counted
    /// (`(environment)`) when none is set, so older blacklist entries keep their force.
    var fingerprintText: String {
        let set = [http, https, all].compactMap { $0 }
        guard !set.isEmpty else { return "(environment)" }
        return "(environment)" + set.map { " \($0.name)=\($0.value)" }.joined()
    }
}
