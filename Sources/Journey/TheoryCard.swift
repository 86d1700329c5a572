/// A theory card holds one idea in 2–3 sentences (the Dog Journey document: "3–5 cards of 2–3
/// sentences, one idea per card").
enum TheoryCard {
    /// How many sentences a card holds.
    static let sentences = 2...3

    /// The sentences of `text`: runs of `.`, `!`, `?` or `…` that end the text or are followed
    /// by a space. (An abbreviation such as "e.g." counts as an end too: write "for example".)
    static func sentenceCount(_ text: String) -> Int {
        let characters = Array(text)
        var count = 0
        for (index, character) in characters.enumerated() where ".!?…".contains(character) {
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if next == nil || next!.isWhitespace { count += 1 }
        }
        // A last sentence without its full stop still counts.
        if let last = characters.last(where: { !$0.isWhitespace }), !".!?…".contains(last) { count += 1 }
        return count
    }
}
