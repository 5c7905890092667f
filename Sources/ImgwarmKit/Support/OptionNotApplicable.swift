/// An option given for a format that does not take it: which option, which format, and the
/// registered formats that do take it (`CacheFormats.all`'s order), for the message.
public struct OptionNotApplicable: Error, Sendable, Equatable {
    public var setting: Setting
    /// The format's name (`CacheFormat.name`).
    public var format: String
    /// The names of the formats that take the option.
    public var appliesTo: [String]

    public init(setting: Setting, format: String, appliesTo: [String]) {
        self.setting = setting
        self.format = format
        self.appliesTo = appliesTo
    }
}
