import EventLog
import Foundation
import JSONKit
import StorePostgres

/// `evtool roles sql`: the SQL for least-privilege PostgreSQL roles.
enum RolesCommand {
    static let spec = CommandSpec(
        name: "roles", summary: "Print the SQL that creates least-privilege PostgreSQL roles: owner, app, auditor",
        usage: "sql --owner ROLE --app ROLE --auditor ROLE [--schema NAME] [--json]",
        arguments: [("sql", "Print the SQL on standard output (run it with psql as a superuser)")],
        options: [
            .init(name: "owner", value: "ROLE", help: "Owns the schema: schema changes, 'evtool seal' and 'evtool forget'"),
            .init(name: "app", value: "ROLE", help: "Appends and reads events, maintains views; cannot change or delete an event"),
            .init(name: "auditor", value: "ROLE", help: "Reads everything, changes nothing ('evtool verify')"),
            .init(name: "schema", value: "NAME", help: "The store's schema (default evtool)"),
            .init(name: "json", value: nil, help: "Print the roles and the SQL as one JSON object"),
        ],
        discussion: """
            Run it after the store's schema exists (evtool creates it on first open). Existing
            roles are kept and given their privileges; new ones are created with LOGIN and no
            password. Appending needs only INSERT on the events table; no role but the owner
            can UPDATE, DELETE or TRUNCATE it, and the trigger refuses even the owner unless
            the owner disables it (which PostgreSQL logs as DDL). See docs/explanation/audit.md.
            """,
        examples: ["evtool roles sql --owner evtool_owner --app evtool_app --auditor evtool_auditor | psql -v ON_ERROR_STOP=1 postgres://admin@db/evtool"],
        run: { arguments, console in
            guard arguments.positional == ["sql"] else {
                throw CLIError.usage("say 'evtool roles sql …'", arguments.command)
            }
            do {
                let (schema, owner, app, auditor) = (arguments.value("schema") ?? "evtool", try arguments.required("owner"),
                                                     try arguments.required("app"), try arguments.required("auditor"))
                let sql = try PostgresRoles.sql(schema: schema, owner: owner, app: app, auditor: auditor)
                guard arguments.flag("json") else { return try console.output(sql) }
                try console.output(JSONOutput.object { writer in
                    writer.key("schema"); writer.string(schema)
                    writer.key("owner"); writer.string(owner)
                    writer.key("app"); writer.string(app)
                    writer.key("auditor"); writer.string(auditor)
                    writer.key("sql"); writer.string(sql)
                })
            } catch let error as EventStoreError {
                throw CLIError.usage(error.description, arguments.command)
            }
        })
}
