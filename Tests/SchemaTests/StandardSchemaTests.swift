import FeatureKit
import Features
import RevisionStore
import Store
import Testing

/// The engine's migrations as the features list them: usable, named after their owners, in a
/// deterministic order, and together exactly the numbered list they replaced.
@Suite struct StandardSchemaTests {
    static let schema = Features.all.schema

    @Test func theListIsUsable() {
        #expect(Self.schema.problems == [])
        #expect(Self.schema.migrations.count == 29)
    }

    /// The core's first, then the served rule set's, then each feature's in the order the
    /// features are listed: a feature's tables may reference the core's and those of the
    /// features before it.
    @Test func theOrderIsTheCoresThenTheLayersThenTheFeatures() {
        let owners = Self.schema.migrations.map { String($0.owner) }
        var order: [String] = []
        for owner in owners where order.last != owner { order.append(owner) }
        let features = Features.all.features.filter { !$0.migrations.isEmpty }.map(\.name)
        #expect(order == ["core", "revisions"] + features, "each owner's migrations run together")
        #expect(features == ["journey", "experiments", "onboarding", "habits", "challenges"])
        #expect(
            Self.schema.migrations.map(\.name)
                == Schema([RevisionSchema.migrations] + Features.all.features.map(\.migrations)).migrations.map(\.name))
    }

    /// A feature's migrations are named after it (`habits.1`…), so that two features never
    /// claim one name.
    @Test func eachFeaturesMigrationsAreNamedAfterIt() {
        for feature in Features.all.features {
            #expect(feature.migrations.allSatisfy { $0.owner == feature.name }, "\(feature.name)")
        }
        #expect(RevisionSchema.migrations.allSatisfy { $0.owner == "revisions" })
    }

    /// Each numbered version's statements are exactly those of the named migrations that say
    /// they come from it: a store at that version has what they would make.
    @Test(arguments: 1...18)
    func theNamedMigrationsSplitTheNumberedOnes(version: Int) throws {
        let numbered = try #require(NumberedStore.versions.first { $0.version == version })
        let named = Self.schema.migrations.filter { $0.numbered == version }
        #expect(!named.isEmpty)
        #expect(
            named.flatMap { NumberedStore.statements($0.sql) }.sorted()
                == NumberedStore.statements(numbered.sql).sorted())
    }

    @Test func migrationsAfterTheNumberedListHaveNoNumber() {
        #expect(Self.schema.migrations.compactMap(\.numbered).allSatisfy { (1...18).contains($0) })
        #expect(NumberedStore.versions.map(\.version) == Array(1...18))
    }
}
