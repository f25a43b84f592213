import Foundation  // sysconf, from the C library it re-exports (Glibc or Musl)

/// What the kernel says about this process, read from `/proc/self` when metrics are scraped.
struct ProcessStatistics: Equatable {
    var residentMemoryBytes: Double
    var virtualMemoryBytes: Double
    var openDescriptors: Double
    var cpuSeconds: Double
    var startTimeSeconds: Double

    /// The current figures; nil where `/proc` cannot be read.
    static func current() -> ProcessStatistics? {
        guard let stat = readFile("/proc/self/stat") else { return nil }
        // Fields after the command name (which may hold spaces) in parentheses: state is field 3.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); utime 14, stime 15, starttime 22, vsize 23, rss 24.
        guard fields.count > 21,
              let utime = Double(fields[11]), let stime = Double(fields[12]),
              let start = Double(fields[19]), let virtual = Double(fields[20]), let resident = Double(fields[21]),
              let bootTime = Self.bootTime else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        return ProcessStatistics(
            residentMemoryBytes: resident * pageSize,
            virtualMemoryBytes: virtual,
            openDescriptors: Double(countDescriptors()),
            cpuSeconds: (utime + stime) / ticks,
            startTimeSeconds: bootTime + start / ticks
        )
    }

    /// The boot time `/proc/stat` states (`btime`, seconds since 1970): a fixed number, so the
    /// start time is the same at every scrape (now minus `/proc/uptime` moved with the clock
    /// reads, and changed between scrapes of one process). Read once: it does not change.
    private static let bootTime: Double? = {
        guard let system = readFile("/proc/stat") else { return nil }
        for line in system.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst("btime ".count).trimmingPrefix(" "))
        }
        return nil
    }()

    private static func readFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func countDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in name.first == UInt8(ascii: ".") }
            if !isDot { count += 1 }
        }
        return count - 1  // the directory stream's own descriptor
    }
}
