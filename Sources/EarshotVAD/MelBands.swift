import Foundation

extension SpectralDetector {
    /// Bin ranges of `bandCount` bands equally spaced on the mel scale from 100 Hz to Nyquist; bands
    /// narrower than one bin are widened to one (so low bands are single bins), and there may be fewer.
    static func melBandEdges(bandCount: Int, frameLength: Int, sampleRate: Int) -> [Int] {
        func mel(_ hertz: Double) -> Double { 2595 * log10(1 + hertz / 700) }
        func hertz(_ mel: Double) -> Double { 700 * (pow(10, mel / 2595) - 1) }
        let binWidth = Double(sampleRate) / Double(frameLength)
        let lastBin = frameLength / 2
        let low = mel(100)
        let high = mel(Double(sampleRate) / 2)
        var edges = [Int(max(1, (100 / binWidth).rounded()))]
        for band in 1...bandCount {
            let edge = Int((hertz(low + (high - low) * Double(band) / Double(bandCount)) / binWidth).rounded())
            let bounded = band == bandCount ? lastBin + 1 : min(edge, lastBin)
            if bounded > edges[edges.count - 1] { edges.append(bounded) }
        }
        return edges
    }
}
