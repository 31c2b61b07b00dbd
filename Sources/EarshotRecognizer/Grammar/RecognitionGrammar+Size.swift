import EarshotCore

extension RecognitionGrammar {
    /// The number of arcs of the finite-state network the root rule unrolls to, as PocketSphinx
    /// builds it from ``jsgf(name:)``: one per word and per empty or void item, repeats unrolled
    /// (`repeat="0-50"` is fifty copies, an open repeat one loop), references to other rules inlined,
    /// and a reference back to a rule being expanded (recursion) one arc.
    ///
    /// Counting stops just above `limit` (the count saturates there), so even a grammar whose network
    /// would not fit in memory is measured at once. Rule references are followed without recursion;
    /// only a rule's own expansion is walked recursively, and its depth is bounded by the document's.
    ///
    /// Throws naming the limit when rule references chain deeper than `maxGrammarReferenceDepth`.
    func arcCount(limit: Int, maxGrammarReferenceDepth: Int) throws(ReferenceChainTooDeep) -> Int {
        let expansions = Dictionary(rules.map { ($0.id, $0.expansion) }, uniquingKeysWith: { first, _ in first })
        enum Progress { case expanding, counted(Int) }
        var progress: [String: Progress] = [root: .expanding]
        var stack = [root]
        while let id = stack.last {
            let expansion = expansions[id] ?? .void
            if let next = Self.references(in: expansion).first(where: { progress[$0] == nil }) {
                guard stack.count < maxGrammarReferenceDepth else { throw ReferenceChainTooDeep(chain: stack + [next]) }
                progress[next] = .expanding
                stack.append(next)
                continue
            }
            let size = Self.arcs(in: expansion, limit: limit) { reference in
                if case .counted(let size) = progress[reference] { size } else { 1 }
            }
            progress[id] = .counted(size)
            stack.removeLast()
        }
        if case .counted(let size) = progress[root] { return size }
        return 0
    }

    /// A chain of rule references longer than allowed, from the root.
    struct ReferenceChainTooDeep: Error {
        var chain: [String]
    }

    /// Checks the grammar's network against `limits`, naming the limit it exceeds.
    func checkSize(within limits: GrammarLimits, origin: String) throws {
        let arcs: Int
        do {
            arcs = try arcCount(limit: limits.maxGrammarArcs, maxGrammarReferenceDepth: limits.maxGrammarReferenceDepth)
        } catch {
            let shown = error.chain.prefix(4).joined(separator: " → ")
            throw EarshotError(
                .invalidInput,
                "\(origin): rule references chain more than \(limits.maxGrammarReferenceDepth) deep (\(shown) → …); "
                    + "this service's limit is \(limits.maxGrammarReferenceDepth) (max-grammar-reference-depth)")
        }
        guard arcs <= limits.maxGrammarArcs else {
            throw EarshotError(
                .invalidInput,
                "\(origin): the grammar unrolls to more than \(limits.maxGrammarArcs) word arcs (repeats unrolled, rule "
                    + "references inlined); this service's limit is \(limits.maxGrammarArcs) (max-grammar-arcs)")
        }
    }

    /// The rules `expansion` refers to directly.
    private static func references(in expansion: Expansion) -> [String] {
        switch expansion {
        case .reference(let id): [id]
        case .sequence(let items): items.flatMap(references(in:))
        case .alternatives(let choices): choices.flatMap { references(in: $0.expansion) }
        case .repetition(let item, _, _): references(in: item)
        case .token, .empty, .void: []
        }
    }

    /// The arcs of `expansion`, with `referenced` giving each referenced rule's; saturates at `limit + 1`.
    private static func arcs(in expansion: Expansion, limit: Int, referenced: (String) -> Int) -> Int {
        let cap = limit + 1
        func add(_ a: Int, _ b: Int) -> Int { min(a + b, cap) }
        func multiply(_ a: Int, _ b: Int) -> Int {
            let (product, overflow) = a.multipliedReportingOverflow(by: b)
            return overflow ? cap : min(product, cap)
        }
        switch expansion {
        case .token, .empty, .void:
            return 1
        case .reference(let id):
            return min(referenced(id), cap)
        case .sequence(let items):
            return items.reduce(0) { add($0, arcs(in: $1, limit: limit, referenced: referenced)) }
        case .alternatives(let choices):
            return choices.reduce(0) { add($0, arcs(in: $1.expansion, limit: limit, referenced: referenced)) }
        case .repetition(let item, let minimum, let maximum):
            // Bounded repeats are written out `maximum` times; open ones as a loop after `minimum − 1` copies.
            let copies = maximum ?? max(minimum, 1)
            return max(multiply(arcs(in: item, limit: limit, referenced: referenced), copies), 1)
        }
    }
}
