import Foundation

/// `--resume` for the commands that rewrite a table after every row (`sweep`, `decoder-sweep`).
enum TableResume {
    /// The table an earlier run left at `path` when resuming and the file exists (saying on standard
    /// error how many rows it keeps), else `fresh`.
    static func start<Table>(
        resume: Bool, path: String, fresh: Table, rowCount: (Table) -> Int, read: () throws -> Table
    ) throws -> Table {
        guard resume, FileManager.default.fileExists(atPath: path) else { return fresh }
        let table = try read()
        if rowCount(table) > 0 {
            FileHandle.standardError.write(Data("earshot: resuming \(path): \(rowCount(table)) rows done\n".utf8))
        }
        return table
    }
}
