import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// `CacheLock.withShared` releases only a lock it took (issue 50): a caller that held the lock
/// already still holds it afterwards, and another holder still cannot take it.
@Suite struct CacheLockTests {
    @Test(arguments: [true, false])
    func withSharedKeepsALockTheCallerHeld(exclusive: Bool) throws {
        let temp = try TemporaryFolder()
        let location = try CacheLocation(root: temp.path("caches"))
        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        let lock = try CacheLock(location: location, create: true)
        if exclusive { try lock.lockExclusive(timeout: 1) } else { try lock.lockShared(timeout: 1) }
        let value = try lock.withShared(timeout: 1) { 42 }
        #expect(value == 42)
        #expect(lock.isHeld)
        let other = try CacheLock(location: location)
        #expect(throws: CacheLock.Timeout.self) { try other.lockExclusive(timeout: 0.05) }
        lock.unlock()
        try other.lockExclusive(timeout: 1)
        other.unlock()
    }

    @Test func withSharedReleasesTheLockItTook() throws {
        let temp = try TemporaryFolder()
        let location = try CacheLocation(root: temp.path("caches"))
        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        let lock = try CacheLock(location: location, create: true)
        try lock.withShared(timeout: 1) { #expect(lock.isHeld) }
        #expect(!lock.isHeld)
        let other = try CacheLock(location: location)
        try other.lockExclusive(timeout: 1)
        other.unlock()
    }
}
