/// What the commands need to know about a user to decide: only their current favorites.
///
/// Kept this small on purpose: rebuilding it reads only `Favorited` and `Unfavorited`
/// payloads, and everything a user sees is the projections' business.
public struct UserState: Sendable, Hashable {
    /// The ids of the listings that are favorites now.
    public var favorites: Set<String>

    /// Makes a state.
    public init(favorites: Set<String> = []) {
        self.favorites = favorites
    }
}
