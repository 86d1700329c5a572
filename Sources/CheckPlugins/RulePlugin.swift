import Core
import Engine
import JQ
import RuleEngine

/// A check plugin declared in `Plugins/*.yaml`: two jq rules, `plugin.<type>.content` (kind
/// `check_content`, problems with a block's content) and `plugin.<type>.answer` (kind
/// `check_answer`, the outcome of an answer).
public struct RulePlugin: CheckPlugin {
    public let type: String
    public let summary: String
    public let contentRule: String
    public let answerRule: String

    public init(declaration: PluginDeclaration) {
        type = declaration.type
        summary = declaration.description ?? ""
        contentRule = declaration.contentRule
        answerRule = declaration.answerRule
    }

    public func problems(in content: JSON, evaluator: RuleEvaluator) -> [String] {
        do {
            let result = try evaluator.evaluate(contentRule, input: JV(["content": content]))
            return (result.value?.arrayValue ?? []).compactMap(\.stringValue)
        } catch {
            return ["the \(type) plugin could not check this content: \(error.message)"]
        }
    }

    public func outcome(of answer: JSON, content: JSON, context: CheckContext, evaluator: RuleEvaluator) throws
        -> CheckOutcome
    {
        guard case .object = answer else {
            throw Rejection(.invalid, "the \(type) answer must be an object, got \(answer.typeName)")
        }
        let input: JSON = [
            "content": content, "answer": answer, "dog": context.dog.json, "block": .string(context.blockID),
            "now_local": .string(context.localTime), "records": .array(context.earlierRecords),
        ]
        let result: RuleResult
        do {
            result = try evaluator.evaluate(
                answerRule, input: JV(input), options: EvaluationOptions(now: context.occurredAt))
        } catch {
            if case .object(let object)? = error.value, let code = object["code"]?.stringValue,
                let message = object["message"]?.stringValue
            {
                // `field`: the member of the answer at fault, when the rule names one.
                let field = object["field"]?.stringValue.map { name in
                    FieldError(
                        answer[name] == nil ? .missing : .invalid,
                        at: JSONPointer.appending(name, to: "/payload/answer"), message)
                }
                throw Rejection(Rejection.Code(rawValue: code), message, field: field)
            }
            throw Rejection(.consumerFailed, error.message)
        }
        guard case .object(let object)? = result.value else {
            throw Rejection(.consumerFailed, "rule `\(answerRule)` gave no outcome")
        }
        let records = (object["records"]?.arrayValue ?? []).compactMap { record -> (String, JSONObject)? in
            guard let kind = record["kind"]?.stringValue, let payload = record["payload"]?.objectValue else {
                return nil
            }
            return (kind, payload)
        }
        var reminder: ReminderRequest?
        if case .object(let request)? = object["reminder"] {
            reminder = ReminderRequest(
                kind: request["kind"]?.stringValue ?? "check_later", text: request["text"] ?? "",
                localTime: request["local_time"]?.stringValue,
                after: request["after"]?.stringValue.flatMap(DurationText.parse))
        }
        return CheckOutcome(
            records: records.map { (kind: $0.0, payload: $0.1) },
            completesCheck: object["complete"]?.boolValue ?? false,
            interpretation: object["interpretation"].flatMap { $0 == .null ? nil : $0 }, reminder: reminder,
            analytics: object["analytics"]?.objectValue ?? [:])
    }
}
