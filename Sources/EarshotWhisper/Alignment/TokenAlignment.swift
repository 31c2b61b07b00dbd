import Foundation

/// When each token of a transcript was said, from the decoder's cross-attention (openai/whisper's
/// `timing.py`; CTranslate2's `Whisper.align`): the text is run through the decoder once, teacher-forced
/// (`<|startoftranscript|> <|notimestamps|> text <|endoftext|>`), and the attention of the alignment
/// heads to the window's audio frames is turned into a monotonic token-to-frame path:
///
/// 1. each head's scores over the frames that hold audio (`frames / 2` encoder positions), softmaxed;
/// 2. standardized along the tokens (per frame: zero mean, unit variance over every row);
/// 3. a median filter of width 7 along the frames (reflected at the edges);
/// 4. averaged over the heads; the rows of `<|notimestamps|>` and the text kept;
/// 5. dynamic time warping on the negated weights (ties go to a step in time).
///
/// Also gives each text token's probability among text tokens at its position.
struct TokenAlignment {
    /// The path: (row, encoder position) pairs from (0, 0) to (text count, positions − 1); row 0 is
    /// `<|notimestamps|>`, row i the i-th text token.
    var path: [(row: Int, frame: Int)]
    /// P(text[i]) among the text tokens, at its position.
    var textProbabilities: [Float]

    /// Aligns `text` (text tokens only) to the first `frames` mel frames of the encoding `decoder`
    /// holds. Returns nil for no text or no audio.
    static func align(text: [Int], frames: Int, decoder: WhisperDecoder, startSequence: [Int]) -> TokenAlignment? {
        let model = decoder.model
        let tokenizer = model.tokenizer
        let positions = min(frames / 2, decoder.positions)
        guard !text.isEmpty, positions > 0 else { return nil }
        let tokens = startSequence + [tokenizer.noTimestamps] + text + [tokenizer.endOfText]
        let rows = tokens.count
        decoder.restart()
        decoder.run(tokens: tokens, perHypothesis: rows, logitRows: [], recordAlignment: true)
        decoder.restart()

        let textVocabulary = tokenizer.endOfText
        let first = startSequence.count
        let logits = decoder.logits(ofRows: first..<(first + text.count), vocabulary: textVocabulary)
        let textProbabilities = logits.withUnsafeBufferPointer { logits in
            text.enumerated().map { index, token in
                LogProbabilities.probability(of: token, logits.baseAddress! + index * textVocabulary, count: textVocabulary)
            }
        }

        // The recorded rows span the encoding's positions: a fitted window's, or the whole 30 s.
        let context = decoder.positions
        var averaged = [Float](repeating: 0, count: rows * positions)
        var weights = [Float](repeating: 0, count: rows * positions)
        for recorded in decoder.recordedAttention {
            recorded.withUnsafeBufferPointer { scores in
                weights.withUnsafeMutableBufferPointer { weights in
                    let w = weights.baseAddress!
                    for row in 0..<rows {
                        (w + row * positions).update(from: scores.baseAddress! + row * context, count: positions)
                    }
                    WhisperKernels.softmax(w, rows: rows, width: positions, stride: positions)
                    standardizeColumns(w, rows: rows, columns: positions)
                    if positions > 3 { medianFilter(w, rows: rows, columns: positions, width: 7) }
                }
            }
            for i in averaged.indices { averaged[i] += weights[i] }
        }
        let heads = Float(decoder.recordedAttention.count)
        let kept = text.count + 1
        var matrix = [Float](repeating: 0, count: kept * positions)
        for row in 0..<kept {
            for frame in 0..<positions { matrix[row * positions + frame] = averaged[(first + row) * positions + frame] / heads }
        }
        return TokenAlignment(path: dynamicTimeWarping(negated: matrix, rows: kept, columns: positions), textProbabilities: textProbabilities)
    }

    /// Per column, `(x − mean) / σ` over the rows (population variance `E[x²] − mean²`, no ε).
    static func standardizeColumns(_ x: UnsafeMutablePointer<Float>, rows: Int, columns: Int) {
        for column in 0..<columns {
            var sum: Float = 0
            var squares: Float = 0
            for row in 0..<rows {
                let value = x[row * columns + column]
                sum += value
                squares += value * value
            }
            let mean = sum / Float(rows)
            let variance = max(squares / Float(rows) - mean * mean, 0)
            let scale = 1 / variance.squareRoot()
            for row in 0..<rows { x[row * columns + column] = (x[row * columns + column] - mean) * scale }
        }
    }

    /// A median filter of odd `width` along each row; indices outside the row reflect without
    /// repeating the edge (−k → k, n − 1 + k → n − 1 − k).
    static func medianFilter(_ x: UnsafeMutablePointer<Float>, rows: Int, columns: Int, width: Int) {
        let half = width / 2
        var window = [Float](repeating: 0, count: width)
        var filtered = [Float](repeating: 0, count: columns)
        for row in 0..<rows {
            let values = x + row * columns
            for column in 0..<columns {
                for k in 0..<width {
                    var index = column + k - half
                    if index < 0 { index = -index }
                    if index >= columns { index = 2 * (columns - 1) - index }
                    window[k] = values[min(max(index, 0), columns - 1)]
                }
                window.sort()
                filtered[column] = window[half]
            }
            values.update(from: filtered, count: columns)
        }
    }

    /// The cheapest monotonic path through `−matrix` from the top-left to the bottom-right, by steps
    /// down-right, down (next token) or right (next frame); among equal costs the step right wins.
    static func dynamicTimeWarping(negated matrix: [Float], rows: Int, columns: Int) -> [(row: Int, frame: Int)] {
        let width = columns + 1
        var cost = [Float](repeating: .infinity, count: (rows + 1) * width)
        var trace = [UInt8](repeating: 0, count: (rows + 1) * width)
        cost[0] = 0
        for j in 1...columns {
            for i in 1...rows {
                let diagonal = cost[(i - 1) * width + j - 1]
                let up = cost[(i - 1) * width + j]
                let left = cost[i * width + j - 1]
                let (best, step): (Float, UInt8) =
                    diagonal < up && diagonal < left ? (diagonal, 0) : (up < diagonal && up < left ? (up, 1) : (left, 2))
                cost[i * width + j] = -matrix[(i - 1) * columns + j - 1] + best
                trace[i * width + j] = step
            }
        }
        for j in 0...columns { trace[j] = 2 }
        for i in 0...rows { trace[i * width] = 1 }
        var (i, j) = (rows, columns)
        var path: [(row: Int, frame: Int)] = []
        while i > 0 || j > 0 {
            path.append((i - 1, j - 1))
            switch trace[i * width + j] {
            case 0: (i, j) = (i - 1, j - 1)
            case 1: i -= 1
            default: j -= 1
            }
        }
        return path.reversed()
    }
}
