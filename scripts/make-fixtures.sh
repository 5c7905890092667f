#!/usr/bin/env bash
# Regenerates the image fixtures under Tests/Fixtures/images (committed; tests never run this).
# Needs ImageMagick 6 (apt-get install imagemagick) with its HEIC/AVIF coders, gzip and python3.
# The output is deterministic for a given ImageMagick build: plasma uses a fixed seed.
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/Fixtures/images
mkdir -p "$out/valid" "$out/hostile"
# /usr/local/bin may hold a stand-in `convert`; use Debian's.
C=/usr/bin/convert-im6.q16
[ -x "$C" ] || C=$(command -v convert)

$C -seed 7 -size 320x240 plasma:fractal -quality 85 -strip "$out/valid/photo.jpg"
$C -size 200x120 gradient:'#1e90ff'-'#ff8c00' -strip "$out/valid/gradient.png"
$C -size 48x48 xc:white -fill '#c00' -draw 'circle 24,24 24,4' \
   \( -size 48x48 xc:white -fill '#00c' -draw 'rectangle 8,8 40,40' \) \
   -set delay 20 -loop 0 "$out/valid/anim.gif"
$C -seed 3 -size 96x64 plasma:fractal -compress lzw "$out/valid/scan.tiff"
$C -seed 5 -size 128x128 plasma:fractal -quality 80 "$out/valid/sticker.webp"
$C -seed 9 -size 64x64 plasma:fractal "$out/valid/photo.heic"
$C -seed 11 -size 64x64 plasma:fractal "$out/valid/photo.avif"
$C -size 32x24 gradient:green-yellow -type truecolor "BMP3:$out/valid/icon.bmp"
$C -seed 13 -size 64x48 plasma:fractal -quality 80 -sampling-factor 2x2 -interlace JPEG -strip "$out/valid/progressive.jpg"

# A favicon (ICO): a 16x16 32-bit BMP image and a 32x32 PNG image in one icon directory, as
# browsers' and Android's decoders read them; and a small SVG (vector/, not valid/: stored only
# with --accept-svg).
python3 - "$out/valid/favicon.ico" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
rows = b"".join(b"\x00" + b"".join(bytes((x * 8, y * 8, 160, 255)) for x in range(32)) for y in range(32))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 32, 32, 8, 6, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
w = h = 16
dib = struct.pack("<IiiHHIIiiII", 40, w, 2 * h, 1, 32, 0, 0, 0, 0, 0, 0)
xor = b"".join(bytes((200, x * 16, y * 16, 255)) for y in range(h) for x in range(w))
mask = b"\x00" * (4 * h)
bmp = dib + xor + mask
entries = [(16, 16, bmp), (32, 32, png)]
offset = 6 + 16 * len(entries)
head = struct.pack("<HHH", 0, 1, len(entries))
data = b""
for width, height, image in entries:
    head += struct.pack("<BBBBHHII", width, height, 0, 0, 1, 32, len(image), offset + len(data))
    data += image
open(sys.argv[1], "wb").write(head + data)
PY
mkdir -p "$out/vector"
cat > "$out/vector/logo.svg" <<'SVG'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<!-- a logo as a web page's header shows it -->
<svg xmlns="http://www.w3.org/2000/svg" width="48" height="32" viewBox="0 0 48 32">
  <title>Logo &amp; mark</title>
  <rect x="2" y="2" width="44" height="28" rx="4" fill="#1e90ff"/>
  <circle cx="24" cy="16" r="9" fill='#fff'/><![CDATA[ not markup < & ]]>
</svg>
SVG

# Hostile or broken bodies.
head -c 1200 "$out/valid/photo.jpg" > "$out/hostile/truncated.jpg"          # header intact, scan cut short
{ printf '\xff\xd8\xff\xe0'; head -c 600 /dev/zero | tr '\0' 'Z'; } > "$out/hostile/corrupt.jpg"  # SOI then junk
# Scan data overwritten in the middle; markers and the end-of-image marker intact: only a full
# decode notices.
python3 - "$out/valid/photo.jpg" "$out/hostile/damaged-scan.jpg" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
start = data.index(b"\xff\xda") + 200
for i in range(start, start + 400):
    data[i] = 0xA5 if i % 2 else 0x5A
open(sys.argv[2], "wb").write(bytes(data))
PY
printf '<!doctype html><html><body>Not found</body></html>\n' > "$out/hostile/page.html"
printf 'GIF89a' > "$out/hostile/header-only.gif"                              # magic bytes and nothing else
# Also the bodies a full decode must not pay for with memory (docs/hardening.md): a 16x16 PNG whose
# zTXt inflates to 200 MB, a 10000x10000 lossless WebP of 4 KB (needs cwebp: apt-get install webp),
# and photo.jpg claiming 10000x10000 pixels in its start-of-frame (100 MP: within --max-pixels,
# beyond ImageMagick's pixel cache limit).
python3 - "$out/hostile" "$out/valid/photo.jpg" <<'PY'
import struct, sys, zlib, os
d = sys.argv[1]
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
sig = b"\x89PNG\r\n\x1a\n"
# A PNG that declares 60000 x 60000 pixels (3.6 gigapixels) in 300 bytes.
ihdr = struct.pack(">IIBBBBB", 60000, 60000, 8, 0, 0, 0, 0)
rows = zlib.compress(b"\x00" + b"\x00" * 60000, 9)
open(os.path.join(d, "huge-dimensions.png"), "wb").write(sig + chunk(b"IHDR", ihdr) + chunk(b"IDAT", rows[:200]))
# A small PNG whose next chunk claims 2 GiB.
ihdr = struct.pack(">IIBBBBB", 16, 16, 8, 0, 0, 0, 0)
open(os.path.join(d, "lying-chunk.png"), "wb").write(
    sig + chunk(b"IHDR", ihdr) + struct.pack(">I", 0x7ffffff0) + b"tEXt" + b"x" * 64)
idat = zlib.compress(b"".join(b"\x00" + b"\x80" * 16 for _ in range(16)))
ztxt = b"Comment\x00\x00" + zlib.compress(b"A" * (200 << 20), 9)
open(os.path.join(d, "ztxt-bomb.png"), "wb").write(
    sig + chunk(b"IHDR", ihdr) + chunk(b"zTXt", ztxt) + chunk(b"IDAT", idat) + chunk(b"IEND", b""))
w = h = 10000
co = zlib.compressobj(9)
rows = b"".join(co.compress(b"\x00" + b"\xff" * (3 * w)) for _ in range(h)) + co.flush()
png = sig + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")
open(os.path.join(d, "white-10k.png.tmp"), "wb").write(png)
jpeg = bytearray(open(sys.argv[2], "rb").read())
sof = jpeg.index(b"\xff\xc0")
jpeg[sof + 5:sof + 9] = struct.pack(">HH", h, w)
open(os.path.join(d, "huge-frame.jpg"), "wb").write(bytes(jpeg))
PY
cwebp -quiet -lossless "$out/hostile/white-10k.png.tmp" -o "$out/hostile/lossless-10k.webp"
rm "$out/hostile/white-10k.png.tmp"

# Transfer-encoded bodies: a gzip-encoded image and a gzip bomb (64 MiB of zeros).
gzip -9 -n -c "$out/valid/gradient.png" > "$out/hostile/gradient.png.gz"
head -c $((64 * 1024 * 1024)) /dev/zero | gzip -9 -n -c > "$out/hostile/bomb.gz"
ls -l "$out/valid" "$out/hostile"
