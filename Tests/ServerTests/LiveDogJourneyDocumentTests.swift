import Core
import Foundation
import HTTP
import TestSupport
import Testing

/// The Dog Journey document (seed 000) through the API alone, with the owner's bearer token, on
/// a running `journey serve`: registration and the AI interpretation, Today, the Journey
/// overview, a branch's path, the preview, the manifest and the block content it refers to, the
/// three checks ("find it on yours", "check it now" with its fallback, "predict, then check"),
/// the action and its result, the dog's records, the overview map, and another user's 404.
///
/// It runs for a Russian owner and an English one (by their profile), asserting the document's
/// Russian texts: «Это наблюдение, не диагноз», «Q не рядом — напомнить позже».
@Suite struct LiveDogJourneyDocumentTests {
    struct Reader: Sendable, CustomTestStringConvertible {
        var locale: String
        var observation: String
        var vetCaption: String
        var later: String
        var weightAdded: String
        var recommendedFirst: String
        var progress: String
        /// What predict says to a guess, and to "later" before any guess (its reply and push).
        var guessed: String
        var laterReply: String
        var laterPush: String
        var caption: String
        /// The dog's personal line on its weakest metric's block (seed 000's «Impulse Control 22 —
        /// самая слабая метрика»), in the preview and the registration's notes.
        var weakest: String
        /// The catalog's texts (Rules/locales/journey/*.yaml): a block title, a theory card, an
        /// outcome's interpretation, the return reminder, a metric's insight, the predict texts,
        /// and the first block's card label.
        var bondTitle: String
        var weightTheory: String
        var weighedInterpretation: String
        var reminder: String
        var bondInsight: String
        var predictQuestion: String
        var reference: String
        var testDescription: String { locale }
    }

    static let readers = [
        Reader(
            locale: "ru", observation: "Это наблюдение, не диагноз.",
            vetCaption: "Эта проверка не заменяет ветеринара.",
            later: "Q не рядом — напомнить позже", weightAdded: "Вес добавлен в историю Q",
            recommendedFirst: "С чего начать", progress: "0 из 21",
            guessed: "Ваш прогноз: 10 секунд. Обычно: 8–15 секунд. Q рядом — проверим?",
            laterReply: "Хорошо, напомним вечером.", laterPush: "Q рядом? Сделайте прогноз — и проверим вместе.",
            caption: "Пройдено: 2 из 21", weakest: "Самоконтроль 22 — самая слабая метрика Q",
            bondTitle: "Игры для контакта",
            weightTheory:
                "Щенки от четырёх до восьми месяцев растут быстро, и регулярное взвешивание — самый простой способ следить за этим ростом. Одна цифра сама по себе говорит немного, а серия замеров складывается в кривую.",
            weighedInterpretation:
                "Отлично, первый замер есть. Сохраните его, чтобы следующему взвешиванию было с чем сравнить.",
            // The document's «взвесьте Q через 2 недели», «Bond 55 — Q проверяет, где вы, на прогулке:
            // хорошая ориентация на человека» and «Сколько секунд Q выдержит команду "ждать"?».
            reminder: "Взвесьте Q: прошло 2 недели с первого замера.",
            bondInsight: "Контакт 55 — Q проверяет, где вы, на прогулке: хорошая ориентация на человека.",
            predictQuestion: "Сколько секунд Q выдержит команду \"ждать\"?", reference: "от 8 до 15 секунд"),
        Reader(
            locale: "en", observation: "This is an observation, not a diagnosis.",
            vetCaption: "This check does not replace a vet.", later: "Q isn't nearby — remind me later",
            weightAdded: "Weight added to Q's history", recommendedFirst: "Recommended first", progress: "0 of 21",
            guessed: "Your guess: 10 seconds. Typical: 8–15 seconds. Now check Q?",
            laterReply: "No problem — we'll remind you this evening.",
            laterPush: "Ready to guess, then check with Q?", caption: "2 of 21 completed",
            weakest: "Impulse control 22 — Q's weakest metric",
            bondTitle: "Bond-building games",
            weightTheory:
                "Puppies between four and eight months grow fast, and a regular weight is the simplest way to follow that growth. One number on its own says little, but a series of weights shows a curve.",
            weighedInterpretation:
                "Great, you have a baseline. Save it so the next weigh-in has something to compare with.",
            reminder: "Time to weigh Q again — two weeks since the baseline.",
            bondInsight: "Q's bond score is 55, a solid base.",
            predictQuestion: "How many seconds do you think Q will wait before grabbing the treat?",
            reference: "between 8 and 15 seconds"),
    ]

    @Test(arguments: readers)
    func everyScreenOfTheDogJourney(_ reader: Reader) throws {
        let service = try LiveService.withTokens()
        defer { service.stop() }
        let owner = App(service: service, token: AuthFixture.token("quinn"))
        let (set, profile) = try owner.json("PUT", "/v1/users/quinn/profile", ["locale": .string(reader.locale)])
        #expect(set == 200, "\(profile)")
        let registration: JSON = [
            "dog_id": "q-9", "user_id": "quinn", "name": "Q", "age_range": "4-8m", "breed": "border_collie",
            "timezone": "UTC", "metrics": ["impulse_control": 22, "bond": 55, "body_condition": 60, "recall": 40],
        ]
        let (registered, answer) = try owner.json("POST", "/v1/dogs", registration)
        #expect(registered == 201, "\(answer)")
        // The answer to the registration is written in the owner's locale: its note and cards.
        let created = answer["effects"]?.arrayValue?.first { $0["type"] == "manifest_created" }
        #expect(created?["notes"] == [.string(reader.weakest)], "\(answer)")
        let registeredBond = created?["insights"]?.arrayValue?.first { $0["metric"] == "bond" }
        #expect(registeredBond?["text"]?.stringValue?.hasPrefix(reader.bondInsight) == true, "\(answer)")
        let (_, dogs) = try owner.json("GET", "/v1/users/quinn/dogs")
        #expect(dogs["dogs"]?[0]?["links"]?["today"] == "/v1/dogs/q-9/today", "\(dogs)")

        // The AI interpretation: insight cards, then "Recommended first".
        let (_, journey) = try owner.json("GET", "/v1/dogs/q-9/journey")
        let insights = journey["insights"]?.arrayValue ?? []
        #expect(insights.last?["label"] == .string(reader.recommendedFirst), "\(journey)")
        let bondCard = insights.first { $0["metric"] == "bond" }
        #expect(bondCard?["text"]?.stringValue?.hasPrefix(reader.bondInsight) == true, "\(journey)")
        #expect(insights.last?["text"]?.stringValue?.contains("{name}") == false, "\(journey)")
        #expect(journey["label"] == .string(reader.progress) && journey["branches"]?.arrayValue?.count == 3)
        // DJ-43: not read yet, so the app shows it first; read once the app reports it (the
        // cached views follow), a resent report changes nothing, another user's is refused.
        #expect(journey["interpretation_read_at"] == .null, "\(journey)")
        #expect(try owner.json("GET", "/v1/dogs/q-9/today").1["interpretation_read_at"] == .null)
        func read(_ id: String, by user: String, at time: String) -> JSON {
            [
                "event_id": .string(id), "user_id": .string(user), "type": "ai_interpretation_read", "dog_id": "q-9",
                "occurred_at": .string(time),
            ]
        }
        let readAt = Timestamp.format(Date().timeIntervalSince1970.rounded(.down))
        let reported = try owner.json("POST", "/v1/events", ["events": [read("read-1", by: "quinn", at: readAt)]])
        #expect(reported.1["accepted"] == 1, "\(reported)")
        let resent = read("read-1", by: "quinn", at: Timestamp.format(Date().timeIntervalSince1970.rounded(.down) - 60))
        #expect(try owner.json("POST", "/v1/events", ["events": [resent]]).1["duplicates"] == 1)
        let rosa = App(service: service, token: AuthFixture.token("rosa"))
        let foreign = try rosa.json("POST", "/v1/events", ["events": [read("read-r", by: "rosa", at: readAt)]])
        #expect(foreign.1["results"]?[0]?["code"] == "unknown_dog", "\(foreign)")
        for view in ["journey", "today"] {
            let (_, shown) = try owner.json("GET", "/v1/dogs/q-9/\(view)")
            #expect(shown["interpretation_read_at"] == .string(readAt), "\(view): \(shown)")
        }

        // Today: one card, the manifest's recommendation with its personal line.
        let (_, manifest) = try owner.json("GET", "/v1/dogs/q-9/manifest")
        let recommended = try #require(manifest["recommended_block_id"]?.stringValue)
        let (_, today) = try owner.json("GET", "/v1/dogs/q-9/today")
        #expect(today["recommended"]?["block_id"] == .string(recommended))
        let blocks = (manifest["branches"]?.arrayValue ?? []).flatMap { $0["blocks"]?.arrayValue ?? [] }
        #expect(today["recommended"]?["why"] == blocks.first { $0["id"] == .string(recommended) }?["personal_note"])

        // A branch's path with its Now node, and a locked block's preview.
        let (_, path) = try owner.json("GET", "/v1/dogs/q-9/branches/mind")
        #expect(path["nodes"]?.arrayValue?.count ?? 0 >= 5 && path["now_block_id"] != nil, "\(path)")
        let (_, locked) = try owner.json("GET", "/v1/dogs/q-9/blocks/impulse-control-basics/preview")
        #expect(locked["text_lines"]?.arrayValue?.count == 3)
        #expect(locked["text_lines"]?[1] == .string(reader.weakest))
        #expect(locked["finish_first"]?[0] == ["block_id": "bond-building-games", "title": .string(reader.bondTitle)])
        // One shape wherever it appears: the block route's finish_first is the preview's.
        let (_, lockedBlock) = try owner.json("GET", "/v1/dogs/q-9/blocks/impulse-control-basics")
        #expect(lockedBlock["finish_first"] == locked["finish_first"], "\(lockedBlock["finish_first"] ?? .null)")

        func step(_ block: String, _ name: String, _ body: JSON = [:]) throws -> JSON {
            let (status, json) = try owner.json("POST", "/v1/dogs/q-9/blocks/\(block)/\(name)", body)
            #expect(status == 200 && json["status"] == "accepted", "\(block)/\(name): \(json)")
            return json
        }

        // "Find it on yours": self_screen with its reference cards and caption.
        let (_, bond) = try owner.json("GET", "/v1/dogs/q-9/blocks/bond-building-games")
        #expect(bond["check"]?["content"]?["caption"] == .string(reader.observation))
        let option = try #require(bond["check"]?["content"]?["options"]?[0]?["id"])
        _ = try step("bond-building-games", "start")
        _ = try step("bond-building-games", "theory")
        _ = try step("bond-building-games", "check", ["answer": ["option": option]])
        let (_, bondDone) = try owner.json(
            "POST", "/v1/dogs/q-9/blocks/bond-building-games/action",
            ["type": "observation_recorded", "payload": ["field": "play", "value": "tug"]])
        let result = try #require(
            bondDone["effects"]?.arrayValue?.first { $0["type"] == "block_completed" }, "\(bondDone)")
        #expect(result["next_block"] != nil && result["changed"]?.arrayValue?.isEmpty == false)

        // "Predict, then check": the guess alone reveals the reference; the measurement completes the pair.
        let (_, impulse) = try owner.json("GET", "/v1/dogs/q-9/blocks/impulse-control-basics")
        #expect(impulse["check"]?["content"]?["reference"]?["revealed"] == "after_guess")
        // Issue 42: the reference's text tells the range the reply names (a border collie's 8–15).
        #expect(impulse["check"]?["content"]?["reference"]?["range"] == [8, 15])
        #expect(
            impulse["check"]?["content"]?["reference"]?["text"]?.stringValue?.contains(reader.reference) == true,
            "\(impulse)")
        #expect(impulse["check"]?["content"]?["question"] == .string(reader.predictQuestion), "\(impulse)")
        _ = try step("impulse-control-basics", "start")
        _ = try step("impulse-control-basics", "theory")
        // A guess sent as text is refused naming the body's field and what it must be.
        let (textStatus, text) = try owner.json(
            "POST", "/v1/dogs/q-9/blocks/impulse-control-basics/check", ["answer": ["guess": "10"]])
        #expect(textStatus == 422 && text["code"] == "invalid", "\(text)")
        #expect(text["message"] == "`guess` must be a number from 0 to 60 seconds, got string", "\(text)")
        #expect(text["errors"]?[0]?["path"] == "/answer/guess" && text["errors"]?[0]?["field"] == "answer.guess")
        // "Later" before any guess: the reply and the evening push, written in the owner's
        // locale in the answer (never a key), and kept as a key for the push.
        let later = try step("impulse-control-basics", "check", ["answer": ["outcome": "later"]])
        let laterEffects = later["effects"]?.arrayValue ?? []
        #expect(
            laterEffects.first { $0["type"] == "check_answered" }?["interpretation"] == .string(reader.laterReply),
            "\(later)")
        #expect(
            laterEffects.first { $0["type"] == "reminder_scheduled" }?["payload"]?["text"]
                == .string(reader.laterPush), "\(later)")
        #expect(!later.compactText.contains("$text"), "\(later)")
        // The same through the batch route: each result in its user's locale.
        let (posted, batch) = try owner.json(
            "POST", "/v1/events",
            [
                "events": [
                    [
                        "event_id": "q-9-later", "user_id": "quinn", "type": "check_answered", "dog_id": "q-9",
                        "occurred_at": .string(Timestamp.format(Date().timeIntervalSince1970)),
                        "payload": ["block_id": "impulse-control-basics", "answer": ["outcome": "later"]],
                    ]
                ]
            ])
        let batchEffects = batch["results"]?[0]?["effects"]?.arrayValue ?? []
        #expect(posted == 200 && !batch.compactText.contains("$text"), "\(batch)")
        #expect(
            batchEffects.first { $0["type"] == "reminder_scheduled" }?["payload"]?["text"]
                == .string(reader.laterPush), "\(batch)")
        let guessed = try step("impulse-control-basics", "check", ["answer": ["guess": 10]])
        #expect(
            guessed["effects"]?.arrayValue?.first { $0["type"] == "check_answered" }?["interpretation"]
                == .string(reader.guessed), "\(guessed)")
        let measured = try step("impulse-control-basics", "check", ["answer": ["measured": 30]])
        #expect(measured.compactText.contains("\"measured\":30"), "\(measured)")

        // "Check it now", with its fallback check when Q isn't nearby; then the action's result.
        _ = try step("weight-baseline", "start")
        _ = try step("weight-baseline", "theory")
        let (_, weightBlock) = try owner.json("GET", "/v1/dogs/q-9/blocks/weight-baseline")
        #expect(weightBlock["theory"]?[0] == .string(reader.weightTheory), "\(weightBlock)")
        let weighed = try step("weight-baseline", "check", ["answer": ["outcome": "weighed"]])
        #expect(weighed.compactText.contains(reader.weighedInterpretation), "\(weighed)")
        #expect(weighed.compactText.contains(reader.vetCaption), "DJ-31: \(weighed)")
        // Issue 42: one button, one text — the block's "later" and the manifest's fallback.
        let (_, weight) = try owner.json("GET", "/v1/dogs/q-9/blocks/weight-baseline")
        #expect(weight["check"]?["content"]?["later"]?["label"] == .string(reader.later), "\(weight)")
        #expect(blocks.first { $0["id"] == "weight-baseline" }?["check"]?["fallback"]?["text"] == .string(reader.later))
        let saved = try step("weight-baseline", "action", ["type": "weight_saved", "payload": ["kg": 9.5]])
        let weightDone = try #require(saved["effects"]?.arrayValue?.first { $0["type"] == "block_completed" })
        #expect(
            weightDone["changed"]?.arrayValue?.contains { $0["text"] == .string(reader.weightAdded) } == true,
            "\(weightDone)")
        #expect(weightDone["return_reminder"]?["leads_to"] == "growth-check")
        #expect(weightDone["return_reminder"]?["text"] == .string(reader.reminder), "\(weightDone)")
        let (_, bcs) = try owner.json("GET", "/v1/dogs/q-9/blocks/body-condition-score")
        #expect(bcs["check"]?["fallback"]?["type"] == "self_screen")
        let silhouette = try #require(bcs["check"]?["fallback"]?["content"]?["options"]?[0]?["id"])
        _ = try step("body-condition-score", "start")
        _ = try step("body-condition-score", "check", ["answer": ["option": silhouette], "answers_fallback": true])

        // The profile's dated records, and the map's caption.
        let (_, records) = try owner.json("GET", "/v1/dogs/q-9/records")
        let kinds = Set((records["records"]?.arrayValue ?? []).compactMap { $0["kind"]?.stringValue })
        #expect(kinds.isSuperset(of: ["observation", "prediction", "weight"]), "\(kinds)")
        let (_, map) = try owner.json("GET", "/v1/dogs/q-9/map")
        // Bond games and the weight baseline; the impulse block waits for its course.
        #expect(map["caption"] == .string(reader.caption), "\(map["caption"] ?? .null)")
        // The dog as on Today; a node names its block as a path's node does.
        #expect(map["dog"] == today["dog"] && map["dog"]?["name"] == "Q", "\(map["dog"] ?? .null)")
        #expect(
            map["lines"]?[1]?["branch_id"] == "mind"
                && map["lines"]?[1]?["nodes"]?[0]?["block_id"] == path["nodes"]?[0]?["block_id"])

        // Another user sees nothing of Q.
        let (status, _) = try App(service: service, token: AuthFixture.token("rosa")).json("GET", "/v1/dogs/q-9/today")
        #expect(status == 404)
    }
}
