import Foundation

extension TokenAuthority {
    /// Why a request's credentials were refused, for the 401's description.
    public struct Refusal: Error, Sendable {
        public var reason: String
    }

    /// Checks an `Authorization` header value: `Bearer <access token>` (the scheme in any case, as
    /// the seed's `BEARER`) granting `scope`. Gives the app the token was issued to (its client ID, or
    /// the API key's name).
    public func check(_ header: String?, for scope: OAuthScope) -> Result<String, Refusal> {
        guard let header else { return .failure(Refusal(reason: "no access token was sent")) }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return .failure(Refusal(reason: "the Authorization header is not a Bearer token"))
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        switch authorize(accessToken: token, for: scope) {
        case .authorized(let clientID): return .success(clientID)
        case .unknownToken: return .failure(Refusal(reason: "the token is not valid"))
        case .expired: return .failure(Refusal(reason: "the token has expired"))
        case .wrongScope(let granted): return .failure(Refusal(reason: "the token grants \(granted), not \(scope)"))
        }
    }
}
