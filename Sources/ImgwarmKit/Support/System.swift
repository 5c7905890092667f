import ImgwarmSystem

// The system layer's types the engine's public API uses, under the engine's name, so the CLI
// needs only `import ImgwarmKit`. Every system call the engine makes goes through
// `ImgwarmSystem` (docs/ARCHITECTURE.md).

public typealias Timestamp = ImgwarmSystem.Timestamp
public typealias Monotonic = ImgwarmSystem.Monotonic
public typealias SystemError = ImgwarmSystem.SystemError
public typealias ProcessTuning = ImgwarmSystem.ProcessTuning
public typealias FileDescriptor = ImgwarmSystem.FileDescriptor
