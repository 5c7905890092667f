import ArgumentParser

/// `--accept-svg`: store SVG images, for apps whose image library has an SVG plugin (prefetch).
struct AcceptSVGOption: ParsableArguments {
    @Flag(
        name: .customLong("accept-svg"),
        help: ArgumentHelp(
            "Store SVG images that are well-formed SVG documents, for an app whose library has an SVG plugin (default off: an SVG is unsupported, not stored, not a failure).",
            discussion:
                "No cache library here decodes SVG by default (SDWebImage needs SDWebImageSVGCoder, Coil coil-svg, Glide a custom decoder). Without this flag a HAR entry recorded as an SVG is not requested, and a body that is an SVG document is not stored: both end as unsupported (not blacklisted, no change to the exit status). ICO favicons are stored for every format: ImageIO and Android's BitmapFactory decode them."
        ))
    var acceptSVG = false
}
