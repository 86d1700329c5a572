import Core
import Experiments
import JQ
import TestSupport
import Testing

/// GrowthBook's algorithm, vector by vector (Cases/growthbook.yaml).
struct GrowthBookTests {
    @Test(
        arguments: try CaseFile("growthbook.yaml").list(
            "hashes", keys: CaseKeys(expecting: ["hash"], others: ["seed", "value", "version"])))
    func hash(_ vector: JSON) {
        let seed = vector["seed"]!.stringValue!
        let value = vector["value"]!.stringValue!
        let version = Int(vector["version"]!.numberValue!)
        let hash = GrowthBook.hash(seed: seed, value: value, version: version)
        #expect(hash == vector["hash"]!.numberValue, "hash(\(seed), \(value), v\(version))")
    }

    @Test(
        arguments: try CaseFile("growthbook.yaml").list(
            "fnv32a", keys: CaseKeys(expecting: ["value"], others: ["text"])))
    func fnv32a(_ vector: JSON) {
        #expect(GrowthBook.fnv32a(vector["text"]!.stringValue!) == UInt32(vector["value"]!.numberValue!))
    }

    @Test(
        arguments: try CaseFile("growthbook.yaml").list(
            "ranges", keys: CaseKeys(expecting: ["ranges"], others: ["count", "coverage", "weights"])))
    func bucketRanges(_ vector: JSON) {
        let weights = vector["weights"]!.arrayValue?.map { $0.numberValue! }
        let ranges = GrowthBook.bucketRanges(
            count: Int(vector["count"]!.numberValue!), coverage: vector["coverage"]!.numberValue!, weights: weights)
        let expected = vector["ranges"]!.arrayValue!.map { pair in
            GrowthBook.BucketRange(pair[0]!.numberValue!, pair[1]!.numberValue!)
        }
        #expect(ranges.count == expected.count, "\(vector["name"]!.stringValue!)")
        for (range, want) in zip(ranges, expected) {
            #expect(abs(range.start - want.start) < 1e-8 && abs(range.end - want.end) < 1e-8, "\(vector["name"]!)")
        }
    }

    @Test(
        arguments: try CaseFile("growthbook.yaml").list(
            "choices", keys: CaseKeys(expecting: ["index"], others: ["n", "ranges"])))
    func chooseVariation(_ vector: JSON) {
        let ranges = vector["ranges"]!.arrayValue!.map { pair in
            GrowthBook.BucketRange(pair[0]!.numberValue!, pair[1]!.numberValue!)
        }
        let index = GrowthBook.chooseVariation(vector["n"]!.numberValue!, ranges: ranges)
        #expect(index == vector["index"]!.numberValue.map { Int($0) })
    }

    /// 100,000 ids land in each variation within ±1 percentage point of its weight, for both
    /// hash versions; with coverage 0.6, 40% ± 1 are outside.
    @Test(arguments: [1, 2])
    func distribution(version: Int) {
        let weights = [0.2, 0.3, 0.5]
        let ranges = GrowthBook.bucketRanges(count: 3, coverage: 1, weights: weights)
        let covered = GrowthBook.bucketRanges(count: 3, coverage: 0.6, weights: weights)
        var counts = [0, 0, 0]
        var outside = 0
        let total = 100_000
        for n in 0..<total {
            let hash = GrowthBook.hash(seed: "distribution-test", value: "user-\(n)", version: version)!
            counts[GrowthBook.chooseVariation(hash, ranges: ranges)!] += 1
            if GrowthBook.chooseVariation(hash, ranges: covered) == nil { outside += 1 }
        }
        for (count, weight) in zip(counts, weights) {
            #expect(abs(Double(count) / Double(total) - weight) < 0.01, "\(counts)")
        }
        #expect(abs(Double(outside) / Double(total) - 0.4) < 0.01, "outside: \(outside)")
    }
}
