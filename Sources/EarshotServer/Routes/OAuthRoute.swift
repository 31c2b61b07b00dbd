import EarshotWire
import Foundation
import Hummingbird
import Logging

/// `POST /oauth/token` (section 3.5): the client-credentials and refresh-token grants.
struct OAuthRoute: Sendable {
    let authority: TokenAuthority

    /// The largest form accepted (413 beyond): credentials and a refresh token need a few hundred bytes.
    static let maxBodyBytes = 16 * 1024

    func respond(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let logger = context.logger
        if let type = request.headers[.contentType],
            !type.lowercased().hasPrefix("application/x-www-form-urlencoded")
        {
            return Self.error("invalid_request", status: .badRequest)
        }
        let body: ByteBuffer
        do {
            body = try await WholeBody.collect(
                request.body, upTo: Self.maxBodyBytes, within: WholeBody.deadline, context: context)
        } catch WholeBody.Failure.tooLarge(let limit) {
            logger.info("token request refused: body too large")
            var response = Self.json(
                OAuthErrorDocument(
                    error: "invalid_request", errorDescription: "the form is over \(limit) bytes"),
                status: .contentTooLarge)
            response.headers[.connection] = "close"
            return response
        } catch WholeBody.Failure.tooSlow(let deadline) {
            logger.info("token request refused: body too slow")
            var response = Self.json(
                OAuthErrorDocument(
                    error: "invalid_request",
                    errorDescription: "the form did not arrive within \(deadline.components.seconds) s"),
                status: .requestTimeout)
            response.headers[.connection] = "close"
            return response
        }
        let form = Self.parseForm(String(buffer: body))
        let clientID = form["client_id"] ?? ""
        // Failures count against the app key and the address, so neither guessing one app's secret
        // nor trying many apps from one address goes fast.
        let keys = ["client:" + clientID, "address:" + context.remoteAddress]
        if let wait = await authority.retryAfter(for: keys) {
            let seconds = max(
                1, Int((Double(wait.components.seconds) + 1e-18 * Double(wait.components.attoseconds)).rounded(.up)))
            logger.info("token request refused: too many failed attempts", metadata: ["retry_after": "\(seconds)"])
            var response = Self.json(
                OAuthErrorDocument(
                    error: "too_many_attempts",
                    errorDescription:
                        "too many failed token requests for this app or address; retry after \(seconds) s"),
                status: .tooManyRequests)
            response.headers[.retryAfter] = String(seconds)
            return response
        }
        let grant: TokenIssuer.Grant
        do {
            switch form["grant_type"] {
            case "client_credentials":
                grant = try await authority.issue(
                    clientID: clientID, clientSecret: form["client_secret"] ?? "", scope: form["scope"])
            case "refresh_token":
                grant = try await authority.refresh(
                    clientID: clientID, clientSecret: form["client_secret"] ?? "",
                    refreshToken: form["refresh_token"] ?? "")
            default:
                logger.info("token request refused: unsupported grant_type")
                return Self.error("unsupported_grant_type", status: .badRequest)
            }
        } catch {
            await authority.recordFailure(for: keys)
            logger.info("token request refused", metadata: ["reason": "\(error)"])
            switch error {
            case .invalidClient: return Self.error("invalid_client", status: .unauthorized)
            case .invalidGrant: return Self.error("invalid_grant", status: .badRequest)
            case .invalidScope: return Self.error("invalid_scope", status: .badRequest)
            }
        }
        logger.info("token issued", metadata: ["scope": "\(grant.scope)", "expires_in": "\(grant.expiresIn)"])
        // expires_in is a string, as the seed's example 3-5 shows it.
        let document = OAuthTokenDocument(
            accessToken: grant.accessToken, expiresIn: Double(grant.expiresIn), refreshToken: grant.refreshToken)
        return Self.json(document, status: .ok)
    }

    /// Parses `application/x-www-form-urlencoded`: `+` is a space, `%XX` a byte; whitespace around a
    /// name (a line break from a wrapped command line) is ignored. Values are taken exactly as sent:
    /// a credential with a stray `%0A` is a different credential.
    static func parseForm(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            let name = decode(parts[0]).trimmingCharacters(in: .whitespacesAndNewlines)
            fields[name] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

    static func error(_ code: String, status: HTTPResponse.Status) -> Response {
        json(OAuthErrorDocument(error: code), status: status)
    }

    static func json(_ document: some Encodable, status: HTTPResponse.Status) -> Response {
        let data = (try? JSONEncoder.wire.encode(document)) ?? Data()
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
