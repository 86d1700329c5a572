import Core
import FeatureKit
import HTTP
import Store

/// `GET /v1/users/{user_id}/dogs`: the user's dogs, oldest registration first, each with where
/// its screens are and the age range of its journey (the manifest's `age_range`).
enum UserDogsRoute {
    static func dogs(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let user = try p.require("user_id")
        return try APIError.answering {
            let ids = try service.store.rows(
                "SELECT dog_id FROM dogs WHERE user_id = ? ORDER BY registered_at, dog_id", [.text(user)]
            ) { $0.text(0) ?? "" }
            let dogs = try ids.compactMap { try service.store.dog($0) }
            return [
                "user_id": .string(user),
                "dogs": .array(
                    dogs.map { dog in
                        guard case .object(var object) = dog.json else { return dog.json }
                        object["registered_at"] = .string(Timestamp.format(dog.registeredAt))
                        // The range its journey was built for, as the manifest says (a dog
                        // registered by birth date has none of its own).
                        if let range = try? service.store.manifest(dog: dog.id)?.manifest["age_range"],
                            range.stringValue != nil
                        {
                            object["age_range"] = range
                        }
                        let path = "/v1/dogs/" + RouteEvents.pathSegment(dog.id)
                        object["links"] = [
                            "today": .string(path + "/today"), "manifest": .string(path + "/manifest"),
                            "records": .string(path + "/records"),
                        ]
                        return .object(object)
                    }),
            ]
        }
    }
}
