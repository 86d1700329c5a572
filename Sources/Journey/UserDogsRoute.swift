import Core
import FeatureKit
import HTTP
import Store

/// `GET /v1/users/{user}/dogs`: the user's dogs, oldest registration first, each with where
/// its screens are.
enum UserDogsRoute {
    static func dogs(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let user = try p.require("user")
        let ids: [String]
        do {
            ids = try service.store.rows(
                "SELECT dog_id FROM dogs WHERE user_id = ? ORDER BY registered_at, dog_id", [.text(user)]
            ) { $0.text(0) ?? "" }
            let dogs = try ids.compactMap { try service.store.dog($0) }
            return .json([
                "user_id": .string(user),
                "dogs": .array(
                    dogs.map { dog in
                        guard case .object(var object) = dog.json else { return dog.json }
                        object["registered_at"] = .string(Timestamp.format(dog.registeredAt))
                        let path = "/v1/dogs/" + RouteEvents.pathSegment(dog.id)
                        object["links"] = [
                            "today": .string(path + "/today"), "manifest": .string(path + "/manifest"),
                            "records": .string(path + "/records"),
                        ]
                        return .object(object)
                    }),
            ])
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
    }
}
