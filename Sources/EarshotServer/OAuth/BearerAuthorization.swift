import Foundation

extension TokenAuthority {
    /// Why a request's credentials were refused, for the 401's description.
    public struct Refusal: Error, Sendable {
        public var reason: String
    }

    /// Checks an `Authorization` header value: `Bearer <access token>` (the scheme in any case, as
    /// the seed's `BEARER`) granting `scope`.
    public func check(_ header: String?, for scope: OAuthScope) -> Result<Void, Refusal> {
        guard let header else { return .failure(Refusal(reason: "no access token was sent")) }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return .failure(Refusal(reason: "the Authorization header is not a Bearer token"))
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        switch authorize(accessToken: token, for: scope) {
        case .authorized: return .success(())
        case .unknownToken: return .failure(Refusal(reason: "the token is not valid"))
        case .expired: return .failure(Refusal(reason: "the token has expired"))
        case .wrongScope(let granted): return .failure(Refusal(reason: "the token grants \(granted), not \(scope)"))
        }
    }
}
