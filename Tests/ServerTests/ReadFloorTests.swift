import FeatureKit
import HTTP
import Testing

@testable import Server

/// The read floors views with `--read-url` must see, as the workers share them.
struct ReadFloorTests {
    @Test func aFloorOnlyGrowsAndIsAKeysOwn() throws {
        let block = try ControlBlock.create()
        #expect(block.readFloor("u:ann") == 0)
        block.raiseReadFloor("u:ann", to: 0x1_0000_0200)
        block.raiseReadFloor("u:ann", to: 0x1_0000_0100)
        #expect(block.readFloor("u:ann") == 0x1_0000_0200)
        #expect(block.readFloor("u:bob") == 0)
        #expect(block.readFloor("d:ann") == 0)
        // Another process's view of the same memory sees it.
        let worker = try ControlBlock.adopt(descriptor: block.descriptor)
        #expect(worker.readFloor("u:ann") == 0x1_0000_0200)
    }

    @Test(arguments: [
        (UserBinding.pathUser("user_id"), ["user_id": "ann"], "", ["u:ann"]),
        (.pathDog("dog_id"), ["dog_id": "q-1"], "", ["d:q-1"]),
        (.queryUser("user_id"), [:], "bob", ["u:bob"]),
        (.queryUser("user_id"), [:], "", []),
        (.bodyEvents("events"), [:], "", []),
    ])
    func viewsAndWritesAreKeyedByTheirUserAndDog(
        binding: UserBinding, parameters: [String: String], queryUser: String, keys: [String]
    ) {
        let request = HTTPRequest(
            method: "GET", path: "/", query: queryUser.isEmpty ? [] : [(name: "user_id", value: queryUser)])
        #expect(JourneyService.floorKeys([binding], parameters, request) == keys)
    }
}
