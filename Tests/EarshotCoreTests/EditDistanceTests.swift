import EarshotCore
import EarshotTestTraits
import Testing

@Suite(.computing) struct EditDistanceTests {
    @Test func countsTheFewestEdits() {
        #expect(editDistance(Array("transcibe"), Array("transcribe")) == 1)
        #expect(editDistance(Array("kitten"), Array("sitting")) == 3)
        #expect(editDistance(["AH", "B"], ["B", "AH"]) == 2)
        #expect(editDistance([Int](), [1, 2, 3]) == 3 && editDistance([1, 2], [Int]()) == 2)
    }
}
