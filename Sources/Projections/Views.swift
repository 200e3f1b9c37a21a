import Commands
import EventLog
import Foundation

/// The domain's views, by name.
public enum Views {
    /// Favorites per user.
    public static let favorites = FavoritesProjection()
    /// Recent searches per user.
    public static let recentSearches = RecentSearchesProjection()
    /// Recently viewed listings per user.
    public static let recentlyViewed = RecentlyViewedProjection()
    /// Cached details per listing.
    public static let cachedDetails = CachedDetailsProjection()

    /// Every materialized view. (A user's history is their stream itself: see ``History``.)
    public static let all: [any Projection] = [favorites, recentSearches, recentlyViewed, cachedDetails]

    /// The view documents that hold a user's data, which an erasure deletes in its own
    /// transaction (``Erasure/Request/views``): the user's document of every view keyed by
    /// user, and the cached details of each listing whose latest details the user fetched
    /// (they name the user in `fetchedBy`).
    public static let erasedDocuments = Erasure.ViewDocuments(keyedByUser: all.filter(\.isKeyedByUser).map(\.name),
                                                              namingUser: [cachedDetails.name: "fetchedBy"])

    /// Whether events of this type are meant for the views (so failing to read one is worth counting).
    static func concernsViews(_ type: String) -> Bool {
        DomainEvent.typeNames.contains(type)
    }
}
