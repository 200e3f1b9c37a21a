import EventLog

/// `Timestamp` of EventLog, named so it cannot be confused with any other in this module.
typealias EventLogTimestamp = EventLog.Timestamp
