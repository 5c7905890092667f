/// Where reading the lists stopped when a signal came before they ended: the lines after it were
/// never looked at, so a run's counts are not the lists' (docs/usage.md, "Running unattended").
public struct ListCut: Sendable, Equatable {
    /// The list being read (the report's `inputs` index).
    public var input: Int
    /// Its path, `-` for standard input.
    public var path: String
    /// The lines of that list read before reading stopped (the last one read is this number;
    /// blank and comment lines included). 0 when none was.
    public var linesRead: Int
    /// The lists after it, none of whose lines was read (their `inputs` indexes).
    public var inputsNotRead: [Int]

    public init(input: Int, path: String, linesRead: Int, inputsNotRead: [Int]) {
        self.input = input
        self.path = path
        self.linesRead = linesRead
        self.inputsNotRead = inputsNotRead
    }
}
