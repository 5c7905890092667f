/// imgwarm's version, used in `--version`, the `User-Agent` header and reports.
public enum ImgwarmVersion {
    public static let current = "0.1.0"
}
