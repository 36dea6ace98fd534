"""Writes images with Pillow, and the pixels Pillow decodes from them, for
tests/images/image_codec_test.cpp: a decoder other than trainer's says what
each file holds.

Usage: /usr/bin/python3 write_images.py OUT_DIR

For every NAME.EXT it writes NAME.EXT.pixels: "height width channels" on the
first line, then every byte value (row by row, channels together) as text;
channels 1 for grey files, 3 for the rest (alpha dropped, palettes looked
up, as trainer reads them).

OUT_DIR/other/ holds files without .pixels: a 16-bit grey PNG (Pillow
clips 16-bit values to 8 bits where trainer scales them, so it is no
witness there).
"""
import os
import sys

from PIL import Image

out = sys.argv[1]
width, height = 13, 7  # odd sizes: BMP row padding, JPEG partial blocks


def gradient(mode):
    image = Image.new("RGB", (width, height))
    image.putdata([((x * 19 + y * 7) % 256, (x * 3 + y * 31) % 256, (x * y * 5 + 40) % 256)
                   for y in range(height) for x in range(width)])
    return image.convert(mode)


def write(name, image, **options):
    path = os.path.join(out, name)
    image.save(path, **options)
    decoded = Image.open(path)
    decoded.load()
    if decoded.mode in ("L", "1") or (decoded.mode == "P" and name.endswith("grey.png")):
        pixels, channels = decoded.convert("L"), 1
    elif decoded.mode == "LA" or decoded.mode == "I;16" or decoded.mode == "I":
        pixels, channels = decoded.convert("L"), 1
    else:
        pixels, channels = decoded.convert("RGB"), 3
    values = pixels.tobytes()
    with open(path + ".pixels", "w") as f:
        f.write(f"{height} {width} {channels}\n")
        f.write(" ".join(str(v) for v in values) + "\n")


write("rgb.png", gradient("RGB"))
write("mono.png", gradient("L").point(lambda v: 255 if v > 100 else 0).convert("1"))
palette_alpha = gradient("RGB").quantize(colors=16)
palette_alpha.info["transparency"] = 3
write("palette_alpha.png", palette_alpha)
write("grey.png", gradient("L"))
write("rgba.png", gradient("RGBA"))
write("grey_alpha.png", gradient("LA"))
write("palette.png", gradient("RGB").quantize(colors=16))
write("rgb.jpg", gradient("RGB"), quality=95)
write("grey.jpg", gradient("L"), quality=90)
write("progressive.jpg", gradient("RGB"), quality=80, progressive=True)
write("rgb.bmp", gradient("RGB"))
write("palette8.bmp", gradient("RGB").quantize(colors=200))
write("palette4.bmp", gradient("RGB").quantize(colors=16))
write("mono.bmp", gradient("L").point(lambda v: 255 if v > 100 else 0).convert("1"))
write("grey.bmp", gradient("L"))
write("rgba.bmp", gradient("RGBA"))

os.makedirs(os.path.join(out, "other"), exist_ok=True)
grey16 = Image.new("I;16", (width, height))
grey16.putdata([(x * 4000 + y * 900) % 65536 for y in range(height) for x in range(width)])
grey16.save(os.path.join(out, "other", "grey16.png"))
