import Core

/// Reads the fields of a request that creates or changes an experiment: each checked as the
/// `experiments:` document checks it, a refusal naming its field by pointer, and each value
/// set returned as the YAML to write.
enum ExperimentFields {
    /// Sets what `fields` asks on `experiment` and appends (field, YAML or nil to remove) to
    /// `written`. Problems stay in `fields.errors`.
    static func read(
        _ fields: inout FieldReader, into experiment: inout Experiment, isNew: Bool,
        written: inout [(String, String?)]
    ) {
        if let description = (try? fields.optionalString("description", maxLength: 500)) ?? nil {
            experiment.description = description
            written.append(("description", ExperimentFileEdit.quoted(description)))
        }
        fields.renamed("variations", to: "variation_names")
        if let variations = (try? fields.optionalStrings("variation_names")) ?? nil {
            if let problem = problem(ofVariations: variations) {
                fields.fail("variation_names", .invalid, problem)
            } else {
                experiment.variations = variations
                written.append(("variations", ExperimentFileEdit.list(variations)))
            }
        } else if isNew && !fields.has("variations") {
            fields.fail("variation_names", .missing, "is required for a new experiment (the control first)")
        }
        if let hashAttribute = (try? fields.optionalString("hash_attribute")) ?? nil {
            if !isNew {
                fields.fail(
                    "hash_attribute", .invalid, "cannot change once an experiment exists: it would reassign everyone")
            } else if !Experiment.hashAttributes.contains(hashAttribute) {
                fields.fail(
                    "hash_attribute", .invalid, "must be one of \(Experiment.hashAttributes.joined(separator: ", "))")
            } else {
                experiment.hashAttribute = hashAttribute
            }
        }
        if isNew { written.append(("hash_attribute", experiment.hashAttribute)) }
        readWeights(&fields, into: &experiment, isNew: isNew, written: &written)
        if let coverage = (try? fields.optionalNumber("coverage")) ?? nil {
            if coverage < 0 || coverage > 1 {
                fields.fail("coverage", .outOfRange, "must be from 0 to 1 (the share of users that take part)")
            } else {
                experiment.coverage = coverage
                written.append(("coverage", ExperimentFileEdit.number(coverage)))
            }
        }
        if let active = (try? fields.optionalBool("active")) ?? nil {
            experiment.active = active
            written.append(("active", active ? "true" : "false"))
        } else if isNew {
            experiment.active = false
            written.append(("active", "false"))
        }
        for name in ["starts_at", "ends_at"] {
            guard let value = fields.member(name) else { continue }
            var time: Double?
            switch value {
            case .null: time = nil
            case .string(let text):
                guard let parsed = Timestamp.parse(text) else {
                    fields.fail(
                        name, .invalid, "must be an RFC 3339 date-time with an offset, such as 2026-12-15T09:00:00Z")
                    continue
                }
                time = parsed
            default:
                fields.fail(name, .wrongType, "must be a date-time (a string) or null, got \(value.typeName)")
                continue
            }
            if name == "starts_at" { experiment.startsAt = time } else { experiment.endsAt = time }
            written.append((name, time.map(Timestamp.format)))
        }
        if let startsAt = experiment.startsAt, let endsAt = experiment.endsAt, endsAt <= startsAt {
            fields.fail(fields.has("ends_at") ? "ends_at" : "starts_at", .invalid, "the end must be after the start")
        }
        if (try? fields.optionalBool("reassign")) ?? nil == true {
            experiment.bucketVersion += 1
            written.append(("bucket_version", String(experiment.bucketVersion)))
        } else if isNew {
            written.append(("bucket_version", String(experiment.bucketVersion)))
        }
    }

    private static func readWeights(
        _ fields: inout FieldReader, into experiment: inout Experiment, isNew: Bool,
        written: inout [(String, String?)]
    ) {
        let variationsChanged = written.contains { $0.0 == "variations" }
        guard let items = (try? fields.optionalArray("weights")) ?? nil else {
            // New variations without weights: an equal split, written out.
            if variationsChanged, !isNew, experiment.weights?.count != experiment.variations.count {
                experiment.weights = nil
                written.append(("weights", nil))
            }
            return
        }
        var weights: [Double] = []
        for (index, item) in items.enumerated() {
            guard case .number(let weight) = item, weight.isFinite, weight >= 0 else {
                fields.fail("weights", at: String(index), .invalid, "must be a number from 0 to 1")
                return
            }
            weights.append(weight)
        }
        guard weights.count == experiment.variations.count else {
            fields.fail(
                "weights", .invalid,
                "must give one weight per variation (\(experiment.variations.count): \(experiment.variations.joined(separator: ", "))), got \(weights.count)"
            )
            return
        }
        guard ExperimentWeights.sumToOne(weights) else {
            fields.fail(
                "weights", .invalid,
                "must sum to 1, they sum to \(ExperimentWeights.sumText(weights)); such as \(ExperimentWeights.text(ExperimentWeights.normalized(weights)))"
            )
            return
        }
        experiment.weights = weights
        written.append(("weights", ExperimentFileEdit.list(weights.map(ExperimentFileEdit.number))))
    }

    /// Why `variations` cannot be an experiment's, nil when they can.
    static func problem(ofVariations variations: [String]) -> String? {
        if variations.count < 2 { return "needs at least two variations (the first is the control)" }
        if variations.count > 20 { return "takes at most 20 variations" }
        for name in variations {
            if let problem = Identifier.problem(name) { return "`\(name)` is not a name: it \(problem.requirement)" }
        }
        if Set(variations).count != variations.count { return "lists a variation twice" }
        return nil
    }
}
