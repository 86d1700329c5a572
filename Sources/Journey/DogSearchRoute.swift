import Core
import FeatureKit
import HTTP
import Store

/// `GET /v1/dogs?find=TEXT` (admin): the dogs whose id or owner's user id is `TEXT`, or whose
/// name is it (any case), at most 20, so that the console finds a dog by what a person knows.
enum DogSearchRoute {
    static func find(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let text = (request.query("find") ?? "").trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.count <= 200 else {
            throw APIError(
                400, "invalid_query", "find must be a dog's id, its name or its owner's user id (1 to 200 characters)")
        }
        return try APIError.answering {
            let ids = try service.store.rows(
                """
                SELECT dog_id FROM dogs WHERE dog_id = ? OR user_id = ? OR LOWER(name) = LOWER(?)
                ORDER BY registered_at, dog_id LIMIT 20
                """, [.text(text), .text(text), .text(text)]
            ) { $0.text(0) ?? "" }
            let dogs = try ids.compactMap { try service.store.dog($0) }
            return [
                "find": .string(text),
                "dogs": .array(
                    dogs.map { dog in
                        [
                            "dog_id": .string(dog.id), "name": .string(dog.name), "user_id": .string(dog.userID),
                            "breed": dog.breed.map(JSON.string) ?? .null,
                        ]
                    }),
            ]
        }
    }
}
