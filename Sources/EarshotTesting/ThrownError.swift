public import EarshotCore

/// The ``EarshotError`` that `body` throws, or nil if it throws nothing. Any other error is rethrown,
/// so a test that expects an Earshot error with a code and message fails when it gets something else.
public func thrownEarshotError(_ body: () throws -> Void) throws -> EarshotError? {
    do {
        try body()
        return nil
    } catch let error as EarshotError {
        return error
    }
}
