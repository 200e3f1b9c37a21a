/// An artist's music profile, as the artist tab shows it.
public struct ArtistProfile: Sendable, Hashable, Codable {
    /// The artist's name.
    public var name: String
    /// How many followers the artist has; not negative.
    public var followers: Int?
    /// The artist's popularity, 0–100.
    public var popularity: Int?
    /// The artist's profile page.
    public var profileLink: String?
    /// Links to album cover images (the apps show up to three).
    public var albumCovers: [String]

    /// Makes an artist profile.
    public init(name: String, followers: Int? = nil, popularity: Int? = nil, profileLink: String? = nil, albumCovers: [String] = []) {
        self.name = name
        self.followers = followers
        self.popularity = popularity
        self.profileLink = profileLink
        self.albumCovers = albumCovers
    }
}
