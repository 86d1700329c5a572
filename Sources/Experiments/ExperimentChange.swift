import Core

/// What a change of an experiment does to the people in it, in plain words, said before the
/// change is applied (the console shows it beside the draft's Publish button).
struct ExperimentChange {
    var before: Experiment?
    var after: Experiment

    private static func percent(_ value: Double) -> String {
        let scaled = (value * 1000).rounded() / 10
        return (scaled == scaled.rounded() ? String(Int(scaled)) : String(scaled)) + "%"
    }

    /// Each consequence, one sentence or two.
    var consequences: [String] {
        guard let before else {
            return [
                "A new experiment: \(after.variations.count) variations (`\(after.variations[0])` is the control), \(Self.percent(after.coverage)) of users take part once it is active. Rules or flows that name `\(after.key)` with these variants use it."
            ]
        }
        var said: [String] = []
        if let winner = after.winner, before.winner != winner {
            said.append(
                "Everyone gets `\(winner)` from the moment this is published; nobody is assigned or counted as exposed any more. The results so far stay readable."
            )
            return said
        }
        let reassigned = after.bucketVersion > before.bucketVersion
        if reassigned {
            said.append(
                "The bucket version goes from \(before.bucketVersion) to \(after.bucketVersion): every user is assigned again by the current weights and coverage at their next visit, so some users switch variation. The results mix what users saw before and after."
            )
        }
        if after.coverage > before.coverage, !reassigned {
            said.append(
                "Coverage goes from \(Self.percent(before.coverage)) to \(Self.percent(after.coverage)): the users already in the experiment keep their variation, and about \(Self.percent(after.coverage - before.coverage)) more of all users join, split by the weights. The bucket version stays \(after.bucketVersion), so nobody is reassigned."
            )
        } else if after.coverage < before.coverage, !reassigned {
            said.append(
                "Coverage goes from \(Self.percent(before.coverage)) to \(Self.percent(after.coverage)): users whose hash now falls outside leave the experiment at their next visit and get the control's behaviour; what they did so far stays in the results."
            )
        }
        if after.effectiveWeights != before.effectiveWeights, !reassigned {
            said.append(
                "The weights change to \(after.effectiveWeights.map(Self.percent).joined(separator: " / ")), but users already assigned keep their variation (assignments are sticky): only users joining from now follow the new weights, so exposures will not match the weights exactly and the sample-ratio check may warn. Raise the bucket version to reassign everyone."
            )
        }
        if after.variations != before.variations {
            said.append(
                "The variations become \(after.variations.joined(separator: ", ")); users assigned to a variation that no longer exists are assigned again."
            )
        }
        if after.active != before.active {
            said.append(
                after.active
                    ? "The experiment starts: users are assigned at their next visit (within its dates)."
                    : "The experiment stops: nobody is assigned, and everyone gets the control's behaviour (`\(after.variations[0])`). Kept assignments stay for when it starts again."
            )
        }
        if after.startsAt != before.startsAt {
            said.append(
                after.startsAt.map { "It starts at \(Timestamp.format($0)): before that everyone gets the control." }
                    ?? "It has no start date any more: it runs as soon as it is active.")
        }
        if after.endsAt != before.endsAt {
            said.append(
                after.endsAt.map { "It ends at \(Timestamp.format($0)): after that everyone gets the control." }
                    ?? "It has no end date any more.")
        }
        if after.description != before.description { said.append("The description changes.") }
        return said.isEmpty ? ["Nothing changes for users."] : said
    }
}
