import Foundation

/// One step of a PostgreSQL store's schema, as literal SQL frozen once shipped (in the style
/// of GRDB's `DatabaseMigrator`): named, applied once and only once, in order. The store's
/// `schema_version` row counts the steps applied; each step runs in the install transaction
/// with the version update that records it.
struct PostgresMigration: Sendable {
    /// The schema version this step produces (1 for the first).
    let version: Int
    /// A short name, for messages and docs.
    let name: String
    /// The SQL text with `{{schema}}` for the quoted schema name, `{{schema_name}}` for the
    /// name itself (a plain lowercase identifier, for names built from it, since version 10)
    /// and `{{lock_key}}` for the schema's advisory-lock key; nothing else is substituted.
    let template: String

    /// The SQL for one schema.
    func sql(schema: PostgresSchema) -> String {
        template.replacingOccurrences(of: "{{schema}}", with: schema.quoted)
            .replacingOccurrences(of: "{{schema_name}}", with: schema.name)
            .replacingOccurrences(of: "{{lock_key}}", with: String(schema.lockKey))
    }
}
