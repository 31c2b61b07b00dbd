import AsyncHTTPClient
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Maps what AsyncHTTPClient and NIO throw to the SDK's error codes.
enum HTTPFailure {
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
        if let error = error as? IOError,
            [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT, EADDRNOTAVAIL].contains(error.errnoCode)
        {
            return .connectionFailure("could not connect for \(what): \(error)")
        }
        if error is NIOConnectionError || error is IOError || error is ChannelError {
            if let channel = error as? ChannelError, channel == .ioOnClosedChannel || channel == .eof
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
