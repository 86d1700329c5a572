import Core
import Foundation
import JQ
import TestSupport
import Testing

@testable import RuleEngine

/// Loading the same files again through a memo skips compiling, and gives what a load gives;
/// any change to what was read loads afresh.
@Suite struct RuleSetMemoTests {
    static let files = [
        "lib/util.jq": "def twice: . * 2;\n",
        "a.yaml": "rule: a\nkind: value\nexpr: 'import \"util\" as u; 21 | u::twice'\n",
        "b.yaml": "rule: b\nkind: value\nexpr: '[.[] | . + 1]'\n",
    ]

    func loader(_ directory: String, memo: RuleSetMemo, display: String? = nil) -> RuleSetLoader {
        var loader = RuleSetLoader(rulesDirectory: directory, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list)
        loader.memo = memo
        if let display { loader.displayNames = (display, "Plugins") }
        return loader
    }

    @Test func theSameFilesLoadFromTheMemoAndEvaluateAlike() throws {
        let folder = try TemporaryDirectory(Self.files)
        let memo = RuleSetMemo()
        let first = loader(folder.path, memo: memo).load()
        let second = loader(folder.path, memo: memo).load()
        #expect(memo.statistics == (hits: 1, misses: 1))
        let (a, b) = (try #require(first.ruleSet), try #require(second.ruleSet))
        #expect(a.revision == b.revision && a.rules.map(\.id) == b.rules.map(\.id) && a.files == b.files)
        #expect(first.diagnostics == second.diagnostics)
        for result in [first, second] {
            let evaluator = try #require(result.evaluator)
            #expect(try evaluator.evaluate("a", input: JV(.null)).outputs == [42])
            #expect(try evaluator.evaluate("b", input: JV([1, 2])).outputs == [[2, 3]])
        }
    }

    @Test func aCopyElsewhereImportsFromItsOwnLibrary() throws {
        let memo = RuleSetMemo()
        var first: TemporaryDirectory? = try TemporaryDirectory(Self.files)
        #expect(loader(first!.path, memo: memo, display: "Rules").load().ruleSet != nil)
        first = nil  // its folder is gone: the kept load must not read from it
        let copy = try TemporaryDirectory(Self.files)
        let loaded = loader(copy.path, memo: memo, display: "Rules").load()
        #expect(memo.statistics == (hits: 1, misses: 1))
        let ruleSet = try #require(loaded.ruleSet)
        #expect(ruleSet.libraryDirectory == copy.path + "/lib")
        #expect(try loaded.evaluator?.evaluate("a", input: JV(.null)).outputs == [42])
    }

    @Test(arguments: [
        ("an edited rule", "a.yaml", "rule: a\nkind: value\nexpr: '7'\n"),
        ("an edited library", "lib/util.jq", "def twice: . * 3;\n"),
        ("a new file", "c.yaml", "rule: c\nkind: value\nexpr: '3'\n"),
    ])
    func aChangeLoadsAfresh(change: String, file: String, text: String) throws {
        let folder = try TemporaryDirectory(Self.files)
        let memo = RuleSetMemo()
        #expect(loader(folder.path, memo: memo).load().ruleSet != nil)
        try folder.write(file, text)
        let changed = loader(folder.path, memo: memo).load()
        #expect(memo.statistics == (hits: 0, misses: 2), "\(change)")
        let fresh = RuleSetLoader(rulesDirectory: folder.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list)
            .load()
        #expect(changed.ruleSet?.revision == fresh.ruleSet?.revision)
        #expect(
            try changed.evaluator?.evaluate("a", input: JV(.null)).outputs
                == fresh.evaluator?.evaluate("a", input: JV(.null)).outputs)
    }

    @Test func otherFolderNamesInMessagesLoadAfresh() throws {
        let folder = try TemporaryDirectory(Self.files)
        let memo = RuleSetMemo()
        _ = loader(folder.path, memo: memo, display: "Rules").load()
        let other = loader(folder.path, memo: memo, display: "Elsewhere").load()
        #expect(memo.statistics == (hits: 0, misses: 2))
        #expect(other.ruleSet?.files.allSatisfy { $0.hasPrefix("Elsewhere/") } == true)
    }

    @Test func loadsWithErrorsAreNotKept() throws {
        let folder = try TemporaryDirectory(["a.yaml": "rule: a\nkind: value\nexpr: '1 +'\n"])
        let memo = RuleSetMemo()
        _ = loader(folder.path, memo: memo).load()
        let again = loader(folder.path, memo: memo).load()
        #expect(memo.statistics == (hits: 0, misses: 2))
        #expect(again.diagnostics.contains { $0.code == "jq_compile" })
    }

    @Test func aLoaderWithAProgramCacheDoesNotUseTheMemo() throws {
        let folder = try TemporaryDirectory(Self.files)
        let memo = RuleSetMemo()
        var loader = loader(folder.path, memo: memo)
        loader.programCache = ProgramCache()
        _ = loader.load()
        _ = loader.load()
        #expect(memo.statistics == (hits: 0, misses: 0))
        #expect(loader.programCache?.lastReused == 2)
    }
}
