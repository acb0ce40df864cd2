extension BinaryPropertyListScreen {
    /// The most objects a manifest may expand to, counting an object each time a reference
    /// reaches it: 100,000. A real `Info.plist` has a few hundred; Foundation decodes 100,000 in
    /// well under a second.
    static let maximumExpandedObjects = 100_000

    /// Where the objects of a binary property list are, as the offset table says.
    struct Layout {
        let bytes: [UInt8]
        let offsets: [Int]
        let referenceSize: Int
        /// Where the object area ends (the offset table's start).
        let end: Int
    }

    /// Why the list expands too far, or refers to itself, or nil if it may be decoded.
    ///
    /// Foundation decodes a shared object once per reference, so what it builds is the tree
    /// the references unfold to. This counts that tree's nodes from the top object without
    /// building it: each object's expanded size is computed once (depth-first, iteratively, so
    /// deep nesting cannot overflow the stack) and added each time it is referenced, saturating
    /// above ``maximumExpandedObjects``. Quadratic shapes (an array of n references to one array
    /// of n) and exponential ones (each level referring to the next twice) are caught before
    /// decoding, in time linear in the file's size.
    static func expansionProblem(_ layout: Layout, top: Int) -> String? {
        let limit = maximumExpandedObjects
        let unvisited = -1
        let inProgress = -2
        var size = [Int](repeating: unvisited, count: layout.offsets.count)
        var stack: [(object: Int, children: [Int], next: Int, total: Int)] = []
        guard let topChildren = children(of: top, in: layout) else { return "object \(top) is damaged" }
        size[top] = inProgress
        stack.append((top, topChildren, 0, 1))
        while let frame = stack.last {
            if frame.next < frame.children.count {
                let child = frame.children[frame.next]
                stack[stack.count - 1].next += 1
                guard child < size.count else { return "object \(frame.object) refers to a missing object" }
                switch size[child] {
                case inProgress:
                    return "object \(child) contains itself"
                case unvisited:
                    guard let grandchildren = children(of: child, in: layout) else {
                        return "object \(child) is damaged"
                    }
                    size[child] = inProgress
                    stack.append((child, grandchildren, 0, 1))
                default:
                    stack[stack.count - 1].total = min(limit + 1, frame.total + size[child])
                }
            } else {
                stack.removeLast()
                size[frame.object] = frame.total
                if !stack.isEmpty {
                    stack[stack.count - 1].total = min(limit + 1, stack[stack.count - 1].total + frame.total)
                }
            }
        }
        guard size[top] <= limit else {
            return "its shared references expand to more than \(limit) objects"
        }
        return nil
    }

    /// The objects an array or dictionary refers to (keys and values); empty for other
    /// objects; nil if the object's header or references do not fit in the object area.
    static func children(of object: Int, in layout: Layout) -> [Int]? {
        let bytes = layout.bytes
        var position = layout.offsets[object]
        let marker = bytes[position]
        let perEntry: Int
        switch marker & 0xF0 {
        case 0xA0: perEntry = 1  // array
        case 0xD0: perEntry = 2  // dictionary: keys, then values
        default: return []
        }
        position += 1
        var count = Int(marker & 0x0F)
        if count == 0x0F {
            // The count follows as an integer object: 0x1n, then 2^n big-endian bytes.
            guard position < layout.end, bytes[position] & 0xF0 == 0x10 else { return nil }
            let width = 1 << Int(bytes[position] & 0x0F)
            guard width <= 8, position + 1 + width <= layout.end else { return nil }
            let value = integer(bytes, at: position + 1, size: width)
            guard value <= UInt64(layout.end) else { return nil }
            count = Int(value)
            position += 1 + width
        }
        let references = count * perEntry
        guard position + references * layout.referenceSize <= layout.end else { return nil }
        return (0..<references).map { index in
            let value = integer(bytes, at: position + index * layout.referenceSize, size: layout.referenceSize)
            return value > UInt64(Int.max) ? Int.max : Int(value)
        }
    }
}
