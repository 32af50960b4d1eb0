import Foundation
import Testing
@testable import IdentityCore

/// Reading export files: both layouts, a record per position whatever else the file holds,
/// and the timestamps identity servers write.
@Suite struct ExportFileTests {
    @Test func arraysAndLinesGiveOneResultPerRecord() {
        #expect(ExportFile.objects(Data(#"[{"a": 1}, 2, {"b": 3}]"#.utf8)).map { (try? $0.get()) != nil } == [true, false, true])
        let lines = ExportFile.objects(Data("{\"a\": 1}\n\n  \n{\"b\": \n{\"c\": 3}\n".utf8))
        #expect(lines.count == 3, "blank lines are no records")
        guard case .failure(let broken) = lines[1] else { Issue.record("the truncated line parsed"); return }
        #expect(broken.position == 2 && broken.reason.contains("line 4"), "positions count records; the reason names the line")
        guard case .failure(let empty) = ExportFile.objects(Data(" \n".utf8)).first else { Issue.record("an empty file has no failure"); return }
        #expect(empty.reason == "the file is empty")
        #expect(ExportFile.objects(Data("[{\"a\": 1}".utf8)).count == 1, "a truncated array is one failure")
    }

    @Test func timestampsWithAndWithoutFractions() {
        #expect(ExportFile.date("2023-01-02T03:04:05Z") == Date(timeIntervalSince1970: 1_672_628_645))
        #expect(ExportFile.date("2024-05-01T10:00:00.123456Z").map { abs($0.timeIntervalSince1970 - 1_714_557_600.123) < 0.001 } == true)
        #expect(ExportFile.date("2024-05-01T12:00:00+02:00") == Date(timeIntervalSince1970: 1_714_557_600))
        #expect(ExportFile.date("yesterday") == nil && ExportFile.date(42) == nil)
    }
}
