"""GrowthBook's stats engine (gbstats) on given counts: the reference the experiment report is
tested against (Tests/ExperimentsTests/GBStatsReferenceTests.swift runs it with the python of
scripts/gbstats, which installs gbstats 0.8.0).

Reads one JSON object on standard input:
  {"comparisons": [{"control": [users, conversions], "treatment": [users, conversions]}, ...],
   "srm": [{"users": [...], "weights": [...]}, ...]}
and writes, in the same order:
  {"comparisons": [{"relative": RESULT, "absolute": RESULT}, ...], "srm": [p_value, ...]}
where RESULT is {"expected", "ci": [lower, upper], "p_value", "error_message"}: gbstats'
frequentist TwoSidedTTest of two ProportionStatistics (alpha 0.05) with that difference_type.
"""
import json
import sys

from gbstats.frequentist.tests import FrequentistConfig, TwoSidedTTest
from gbstats.models.statistics import ProportionStatistic
from gbstats.utils import check_srm


def compare(control, treatment, difference_type):
    a = ProportionStatistic(n=control[0], sum=control[1])
    b = ProportionStatistic(n=treatment[0], sum=treatment[1])
    result = TwoSidedTTest(a, b, FrequentistConfig(difference_type=difference_type, alpha=0.05)).compute_result()
    return {
        "expected": float(result.expected),
        "ci": [float(result.ci[0]), float(result.ci[1])],
        "p_value": float(result.p_value),
        "error_message": result.error_message,
    }


request = json.load(sys.stdin)
answer = {
    "comparisons": [
        {kind: compare(pair["control"], pair["treatment"], kind) for kind in ("relative", "absolute")}
        for pair in request.get("comparisons", [])
    ],
    "srm": [float(check_srm(case["users"], case["weights"])) for case in request.get("srm", [])],
}
json.dump(answer, sys.stdout)
