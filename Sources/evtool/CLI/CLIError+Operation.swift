import Transfer

extension CLIError {
    /// The command line's report of a library operation's failure, with its exit code.
    init(_ error: OperationError) {
        let code: ExitCode
        switch error {
        case .notAStore: code = .notAStore
        case .nothingToDo: code = .emptyStore
        case .invalid: code = .invalidData
        case .unsupported: code = .unavailable
        case .newerSchema: code = .newerSchema
        case .interrupted: code = .interrupted
        case .store(_, let storeError): code = ExitCode(storeError)
        case .cannotWrite: code = .ioError
        case .incompleteCopy: code = .incompleteCopy
        }
        self.init(message: error.description, code: code)
    }
}
