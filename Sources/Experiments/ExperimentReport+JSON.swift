import Core
import ExperimentStatistics

/// The report as `journey experiments report --format json` and `GET /v1/experiments/{key}/report`
/// give it: stable snake_case keys, every number exact.
extension ExperimentReport {
    public var json: JSON {
        .object([
            "experiment": .string(experiment),
            "as_of": .string(Timestamp.format(now)),
            "exposed_users": .number(Double(exposedUsers)),
            "variations": .array(
                variations.map { variation in
                    .object([
                        "variation": .string(variation.variation), "weight": .number(variation.weight),
                        "users": .number(Double(variation.users)),
                    ])
                }),
            "multiple_exposures": .object([
                "users": .number(Double(multipleExposures)), "share": .number(multipleExposureShare),
                "excluded": .bool(true),
            ]),
            "other_variation_users": .number(Double(otherVariationUsers)),
            "sample_ratio": .object([
                "status": .string(sampleRatio.status.rawValue), "p_value": .number(sampleRatio.pValue),
                "threshold": .number(Self.mismatchThreshold), "minimum_users": .number(Double(Self.minimumUsers)),
                "small_variations": .array(sampleRatio.smallVariations.map(JSON.string)),
            ]),
            "metric_results": .array(metrics.map(\.json)),
        ])
    }
}

extension ExperimentReport.MetricResult {
    var json: JSON {
        guard case .object(var object) = metric.json else { return .null }
        object["users_with_open_window"] = .number(Double(openWindows))
        object["condition_errors"] = .number(Double(conditionErrors))
        object["first_condition_error"] = firstConditionError.map(JSON.string) ?? .null
        object["variations"] = .array(rows.map(\.json))
        return .object(object)
    }
}

extension ExperimentReport.Row {
    var json: JSON {
        var object: JSONObject = [
            "variation": .string(variation), "users": .number(Double(users)),
            "conversions": .number(Double(conversions)), "rate": .number(rate),
        ]
        object["absolute"] = Self.json(absolute)
        object["relative"] = Self.json(relative)
        let unavailable: TwoSidedTTest.Unavailable? =
            if case .failure(let reason)? = relative { reason } else { nil }
        object["unavailable"] =
            unavailable.map { reason in
                .object(["code": .string(reason.rawValue.lowercased()), "message": .string(reason.explanation)])
            } ?? .null
        return .object(object)
    }

    /// `{estimate, ci_lower, ci_upper, p_value, standard_error, degrees_of_freedom}`; null for the
    /// control and when there is no estimate.
    static func json(_ result: Result<TwoSidedTTest.Estimate, TwoSidedTTest.Unavailable>?) -> JSON {
        guard case .success(let estimate)? = result else { return .null }
        return .object([
            "estimate": .number(estimate.estimate), "ci_lower": .number(estimate.lower),
            "ci_upper": .number(estimate.upper), "p_value": .number(estimate.pValue),
            "standard_error": .number(estimate.standardError),
            "degrees_of_freedom": .number(estimate.degreesOfFreedom),
        ])
    }
}
