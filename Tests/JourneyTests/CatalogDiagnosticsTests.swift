import Core
import Features
import Foundation
import JQ
import Journey
import RuleEngine
import TestSupport
import Testing

/// Broken catalogs are refused at load with a precise error each (Cases/catalog-diagnostics.yaml).
@Suite struct CatalogDiagnosticsTests {
    static let base = """
        catalog: tiny
        title: Tiny
        age_ranges: [4-8m]
        metrics:
          coat:
            label: Coat
            bands: {low: "{name} low {value}.", mid: "{name} mid {value}.", high: "{name} high {value}."}
        branches:
          - id: health
            title: Health & body
            blocks:
              - id: coat
                title: Coat check
                topic: coat
                needs: []
                minutes: 3
                preview: {learn: "How to look at a coat.", why: "{name}'s coat says a lot."}
                theory:
                  - "Brush weekly. This does not replace a vet visit."
                  - "Look at the skin. Note anything new."
                  - "Keep it short. Reward calm."
                check:
                  type: self_screen
                  question: "Which looks like {name}?"
                  options:
                      - {id: a, label: A, image: a.png}
                      - {id: b, label: B, image: b.png}
                      - {id: c, label: C, image: c.png}
                  record: {kind: observation, field: coat}
                  fallback: {text: "Pick the picture."}
                action: {type: save_weight, label: "Weigh {name}", auto_complete: ac.weight}
                reminder: {after: 14d, kind: recheck, text: "Look at {name}'s coat again.", block: gums}
                note: "{name}'s coat, observed."
              - id: gums
                title: Gums check
                topic: coat
                needs: [coat]
                minutes: 4
                preview: {learn: "How to look at gums.", why: "{name}'s gums matter."}
                theory:
                  - "Lift the lip gently. It does not replace a vet."
                  - "Pink is typical. Note the colour."
                  - "Reward after. Keep it short."
                check:
                  type: hands_on
                  instruction: "Lift the lip for three seconds. Then reward."
                  seconds: 30
                  outcomes:
                    - {id: calm, label: Calm, marker: calm, interpretation: Easy.}
                    - {id: wiggly, label: Wiggly, marker: wiggly, interpretation: Normal.}
                    - {id: no, label: Not today, marker: no, interpretation: Try later.}
                  record: {kind: observation, field: gums}
                  fallback: {text: "Later", remind_at: "19:00"}
                action: {type: upload_photo, label: "Photo of {name}'s gums"}
                note: "{name}'s gums, observed."
        """

    static let rule = """
        rule: ac.weight
        kind: auto_complete
        expr: '[.records[] | select(.kind == "weight")]'
        """

    static let wording = """
        wording:
          forbidden:
            - {phrase: dominan, reason: "dominance theory is outdated", instead: "describe the behaviour"}
            - {phrase: cure, reason: "the app does not treat"}
          required:
            - {branch: health, phrase: "does not replace a vet", reason: "the app is not a vet"}
        """

    @Test(
        arguments: try CaseFile("catalog-diagnostics.yaml").cases(
            keys: CaseKeys(
                expecting: ["errors"], others: ["replace"],
                parts: ["errors": CaseKeys(expecting: ["code"], others: ["message"])])))
    func brokenCatalogsAreRefused(_ testCase: NamedCase) throws {
        var catalog = Self.base
        for pair in testCase.json["replace"]?.arrayValue ?? [] {
            let old = try #require(pair[0]?.stringValue)
            #expect(catalog.contains(old), "the case edits text that is not in the base: \(old)")
            catalog = catalog.replacingOccurrences(of: old, with: pair[1]?.stringValue ?? "")
        }
        let folder = try TemporaryDirectory([
            "journey/catalog.yaml": catalog, "ac.yaml": Self.rule, "wording.yaml": Self.wording,
        ])
        let result = Features.all.loader(rulesDirectory: folder.path, pluginsDirectory: Repository.plugins).load()
        let errors = result.diagnostics.filter { $0.severity == .error }
        let expected = testCase.json["errors"]?.arrayValue ?? []
        let rendered = errors.map(\.description).joined(separator: "\n")
        #expect(errors.count == expected.count, "\(rendered)")
        for (error, want) in zip(errors, expected) {
            #expect(error.code == want["code"]?.stringValue, "\(rendered)")
            #expect(error.message.contains(want["message"]?.stringValue ?? ""), "\(rendered)")
            #expect(error.location.file.hasSuffix("catalog.yaml"))
        }
        #expect((result.ruleSet == nil) == !expected.isEmpty)
    }
}
