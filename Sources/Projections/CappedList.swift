extension Array {
    /// Puts `element` first, removing whatever `isSame` matches, and keeps at most `capacity`
    /// elements: the "most recent, newest first, no duplicates" lists of the views.
    mutating func insertFirst(_ element: Element, replacing isSame: (Element) -> Bool, capacity: Int) {
        removeAll(where: isSame)
        insert(element, at: 0)
        if count > capacity { removeLast(count - capacity) }
    }
}
