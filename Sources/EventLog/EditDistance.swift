/// Levenshtein distance, for "did you mean …?" on a mistyped subcommand or option.
public enum EditDistance {
    /// The number of single-character insertions, deletions and substitutions from `a` to `b`
    /// (a substitution counting `substitution`: 1 is Levenshtein's, 2 counts only insertions
    /// and deletions). Cost: O(|a|·|b|) time, O(|b|) memory.
    public static func between(_ a: String, _ b: String, substitution: Int = 1) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : substitution))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// The candidate nearest to `word`, when it is near enough to be a typo: at most 1 edit
    /// for words up to 4 characters, 2 up to 8, 3 beyond; also a candidate that starts with
    /// `word` (3 characters or more: `fav` for `favorite`). Of candidates equally near, the one
    /// needing fewer insertions and deletions wins (`favorits`: `favorites`, one letter missing,
    /// over `favorite`, one letter changed), then the first.
    public static func nearest(to word: String, among candidates: [String]) -> String? {
        guard !word.isEmpty else { return nil }
        let allowed = word.count <= 4 ? 1 : word.count <= 8 ? 2 : 3
        var best: (name: String, distance: Int, indels: Int)?
        for candidate in candidates {
            let distance = between(word, candidate)
            guard distance <= allowed else { continue }
            let indels = between(word, candidate, substitution: 2)
            if let current = best, (current.distance, current.indels) <= (distance, indels) { continue }
            best = (candidate, distance, indels)
        }
        if let best { return best.name }
        if word.count >= 3 { return candidates.first { $0.hasPrefix(word.lowercased()) } }
        return nil
    }
}
