import AsyncHTTPClient
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Maps what AsyncHTTPClient and NIO throw to the SDK's error codes.
enum HTTPFailure {
    /// The `errno` of a failed connection attempt, whether NIO reports it bare or per address tried.
    static func connectErrno(_ error: any Error) -> Int32? {
        if let error = error as? IOError { return error.errnoCode }
        if let error = error as? NIOConnectionError {
            return error.connectionErrors.lazy.compactMap { ($0.error as? IOError)?.errnoCode }.first
        }
        return nil
    }

    static func classify(_ error: any Error, during what: String) -> SpeechClientError {
        if let error = error as? SpeechClientError { return error }
        if error is CancellationError { return .canceledByUser }
        if let error = error as? HTTPClientError {
            if error == .connectTimeout {
                return .connectionFailure("no connection for \(what) within the connection timeout")
            }
            if error == .readTimeout || error == .deadlineExceeded {
                return .noResponseFromServer("no answer to \(what) within the server response timeout")
            }
            if error == .remoteConnectionClosed || error == .cancelled {
                return .noResponseFromServer("the server closed the connection during \(what)")
            }
            if error == .invalidURL || error == .emptyHost || error == .emptyScheme {
                return .invalidURL("\(what): \(error)")
            }
            return .noResponseFromServer("\(what) failed: \(error)")
        }
        if let code = connectErrno(error),
            [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT, EADDRNOTAVAIL].contains(code)
        {
            // NIO's own description ("connection reset (error set): Connection refused) (errno: 111)")
            // reads badly; the C library's words do not.
            return .connectionFailure("could not connect for \(what): \(String(cString: strerror(code)).lowercased())")
        }
        if error is NIOConnectionError || error is IOError || error is ChannelError {
            if let channel = error as? ChannelError,
                channel == .ioOnClosedChannel || channel == .eof
                    || channel == .outputClosed || channel == .alreadyClosed
            {
                return .noResponseFromServer("the server closed the connection during \(what)")
            }
            if error is NIOConnectionError {
                return .connectionFailure("could not connect for \(what): \(error)")
            }
            return .noResponseFromServer("\(what) failed: \(error)")
        }
        return .connectionFailure("\(what) failed: \(error)")
    }
}
