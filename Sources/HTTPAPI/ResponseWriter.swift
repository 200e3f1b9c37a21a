import JSONKit

/// Writes the API's JSON responses: the package's one writer (``JSONKit/JSONWriter``), under
/// the name the API's code has used.
package typealias ResponseWriter = JSONWriter
