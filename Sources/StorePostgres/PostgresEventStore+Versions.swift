import CLibPQ

extension PostgresEventStore {
    /// The version of the libpq library in use (`PQlibVersion()`), e.g. `16.2` (or `9.6.24`
    /// before PostgreSQL 10).
    public static var libraryVersion: String {
        let number = Int(PQlibVersion())
        let major = number / 10_000
        return major >= 10 ? "\(major).\(number % 10_000)" : "\(major).\(number / 100 % 100).\(number % 100)"
    }
}
