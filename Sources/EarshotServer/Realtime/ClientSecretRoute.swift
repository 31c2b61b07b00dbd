import EarshotWire
import Hummingbird

/// `POST /v1/realtime/client_secrets`: a short-lived secret for a caller that holds a key (a SPEECH
/// token or an API key), to hand to a browser, which opens `/v1/realtime` with it and never sees the
/// key. OpenAI's request and answer: optional `expires_after.seconds` (10–7200, 600 by default) and
/// `session` (checked as a `session.update` would be, and echoed; the session itself starts from the
/// defaults, so a client sends its `session.update` once connected); answer `value`, `expires_at`,
/// `session`. Errors in OpenAI's shape, naming the field.
struct ClientSecretRoute: Sendable {
    let authority: TokenAuthority
    let secrets: RealtimeClientSecrets
    let realtime: RealtimeRoute
    let live: LiveConfiguration

    func mint(_ request: Request, context: ServiceRequestContext) async -> Response {
        let configuration = live.current
        let app: String
        switch await authority.check(request.headers[.authorization], for: .speech) {
        case .success(let name): app = name
        case .failure(let refusal):
            var error = ServiceError.unauthorized(realm: configuration.realm, reason: refusal.reason)
            error.text =
                "Incorrect API key provided: \(refusal.reason); use an access token of scope SPEECH from POST "
                + "/oauth/token or an API key of this service as the Bearer key"
            error.variables = ""
            return OpenAIError.response(for: error)
        }
        do {
            let body = try await WholeBody.collect(
                request.body, upTo: 64 << 10, within: WholeBody.deadline, context: context)
            var seconds = RealtimeClientSecrets.defaultLifetime
            var settings = RealtimeSessionSettings()
            if body.readableBytes > 0 {
                guard let object = JSONValue(parsing: String(decoding: body.readableBytesView, as: UTF8.self))?.object
                else {
                    throw ServiceError.badRequest(
                        "the body is not a JSON object; expected {\"expires_after\": {\"seconds\": 600}} or nothing",
                        variables: "body")
                }
                if let expiry = object["expires_after"] {
                    guard let given = expiry["seconds"]?.integer,
                        RealtimeClientSecrets.lifetimes.contains(given)
                    else {
                        throw ServiceError.badRequest(
                            "expires_after.seconds must be a whole number of seconds from 10 to 7200",
                            variables: "expires_after.seconds")
                    }
                    seconds = given
                }
                if let session = object["session"] {
                    guard let session = session.object else {
                        throw ServiceError.badRequest("session must be an object", variables: "session")
                    }
                    settings = try checked(session, against: settings)
                }
            }
            let (value, expiresAt) = secrets.mint(app: app, seconds: seconds)
            let answer: JSONValue = [
                "value": .string(value), "expires_at": .integer(expiresAt),
                "session": settings.sessionObject(id: "sess_client_secret", expiresAt: expiresAt),
            ]
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: answer.text)))
        } catch let error as ServiceError {
            return OpenAIError.response(for: error)
        } catch WholeBody.Failure.tooLarge(let limit) {
            var error = ServiceError.badRequest("the body is larger than \(limit) bytes", variables: "body")
            error.status = .contentTooLarge
            return OpenAIError.response(for: error)
        } catch WholeBody.Failure.tooSlow(let deadline) {
            return OpenAIError.response(for: WholeBody.tooSlowError(deadline, field: "body"))
        } catch {
            return OpenAIError.response(for: .badRequest("the body could not be read: \(error)", variables: "body"))
        }
    }

    /// `settings` with a request's `session` applied, or a 400 naming the field.
    private func checked(_ session: [String: JSONValue], against settings: RealtimeSessionSettings) throws(ServiceError)
        -> RealtimeSessionSettings
    {
        do throws(RealtimeRefusal) {
            return try settings.applying(session, models: realtime.modelNames, languages: realtime.pools.languages)
        } catch {
            throw ServiceError.badRequest(error.message, variables: error.param ?? "session")
        }
    }
}
