import EarshotCore
import EarshotTestTraits
import Testing

@Suite(.computing) struct HexadecimalTests {
    @Test func eachByteIsTwoLowerCaseDigits() {
        #expect([UInt8]().hexadecimal == "")
        #expect([0x00, 0x0f, 0x10, 0xab, 0xff].hexadecimal == "000f10abff")
        #expect(Array("abc".utf8).hexadecimal == "616263")
        let all = (0...255).map { UInt8($0) }
        #expect(
            all.hexadecimal
                == all.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
                .joined())
    }
}
