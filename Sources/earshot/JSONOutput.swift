import EarshotCodecs
import EarshotCore
import EarshotIO
import Foundation

/// Conventions shared by every JSON document the CLI prints: a `schema_version`, times in seconds with
/// the unit in the field name, levels in dBFS with −∞ (silence) as null.
enum JSONOutput {
    static let schemaVersion = 1

    static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }

    /// A level for JSON: rounded to 0.01 dB; null for digital silence (−∞ dBFS), never left out.
    struct Level: Encodable, Equatable {
        var decibels: Double?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if let decibels { try container.encode(decibels) } else { try container.encodeNil() }
        }
    }

    static func decibels(_ value: Float) -> Level {
        Level(decibels: value.isFinite ? (Double(value) * 100).rounded() / 100 : nil)
    }

    /// Seconds rounded to the millisecond, which is finer than any event we report.
    static func seconds(_ time: MediaTime) -> Double { (time.seconds * 1000).rounded() / 1000 }
}

/// Text rendering of a level in dBFS ("-inf" for silence).
func formatDecibels(_ value: Float) -> String {
    value.isFinite ? String(format: "%.2f", value) : "-inf"
}
