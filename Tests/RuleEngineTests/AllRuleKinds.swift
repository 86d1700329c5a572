import Features
import RuleEngine

/// Every feature's rule kinds (the rule files of these tests use them).
enum AllRuleKinds {
    static let list = Features.all.ruleKinds
}
