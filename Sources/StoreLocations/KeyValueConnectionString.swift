/// Reads libpq key/value connection strings (`host=db dbname='my app' password=\'x`) as libpq
/// does (conninfo_parse in fe-connect.c): `keyword = value` pairs separated by white space, a
/// value in single quotes may hold spaces, a backslash escapes the next character. Used to
/// take evtool's own `schema=` out before libpq sees the string.
enum KeyValueConnectionString {
    /// Each pair's keyword, its value (quotes and escapes removed) and its text as written.
    /// Text that is not a pair (libpq would refuse the string) is kept as a pair with an
    /// empty keyword, so nothing is lost.
    static func pairs(in text: String) -> [(keyword: String, value: String, text: String)] {
        var pairs: [(keyword: String, value: String, text: String)] = []
        let characters = Array(text)
        var index = 0
        func skipSpaces() { while index < characters.count, characters[index].isWhitespace { index += 1 } }
        while true {
            skipSpaces()
            guard index < characters.count else { break }
            let start = index
            while index < characters.count, characters[index] != "=", !characters[index].isWhitespace { index += 1 }
            let keyword = String(characters[start..<index])
            skipSpaces()
            guard index < characters.count, characters[index] == "=" else {
                pairs.append(("", "", String(characters[start..<index])))
                continue
            }
            index += 1
            skipSpaces()
            var value = ""
            if index < characters.count, characters[index] == "'" {
                index += 1
                while index < characters.count, characters[index] != "'" {
                    if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                    value.append(characters[index])
                    index += 1
                }
                if index < characters.count { index += 1 }   // the closing quote
            } else {
                while index < characters.count, !characters[index].isWhitespace {
                    if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                    value.append(characters[index])
                    index += 1
                }
            }
            pairs.append((keyword, value, String(characters[start..<index])))
        }
        return pairs
    }
}
