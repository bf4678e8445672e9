"""Renders a tmux `capture-pane -e` dump (ANSI SGR colors) to a PNG.
Usage: python3 ansi_to_png.py capture.ansi out.png"""

import re
import sys

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
BASE = [(0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16), (36, 114, 200), (188, 63, 188), (17, 168, 205), (229, 229, 229)]
BRIGHT = [(102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67), (59, 142, 234), (214, 112, 214), (41, 184, 219), (255, 255, 255)]
FG, BG = (212, 212, 212), (30, 30, 30)


def xterm256(n):
    if n < 8:
        return BASE[n]
    if n < 16:
        return BRIGHT[n - 8]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


def parse(line):
    """Yields (char, fg, bg, bold) per cell."""
    fg, bg, bold = FG, BG, False
    i = 0
    for m in re.finditer(r"\x1b\[([0-9;]*)m|([^\x1b])", line):
        if m.group(2) is not None:
            yield m.group(2), fg, bg, bold
            continue
        codes = [int(c) if c else 0 for c in m.group(1).split(";")]
        k = 0
        while k < len(codes):
            c = codes[k]
            if c == 0:
                fg, bg, bold = FG, BG, False
            elif c == 1:
                bold = True
            elif c == 22:
                bold = False
            elif 30 <= c <= 37:
                fg = BASE[c - 30]
            elif 90 <= c <= 97:
                fg = BRIGHT[c - 90]
            elif 40 <= c <= 47:
                bg = BASE[c - 40]
            elif 100 <= c <= 107:
                bg = BRIGHT[c - 100]
            elif c == 39:
                fg = FG
            elif c == 49:
                bg = BG
            elif c in (38, 48) and k + 1 < len(codes):
                if codes[k + 1] == 5 and k + 2 < len(codes):
                    col = xterm256(codes[k + 2])
                    k += 2
                elif codes[k + 1] == 2 and k + 4 < len(codes):
                    col = tuple(codes[k + 2 : k + 5])
                    k += 4
                else:
                    col = FG
                if c == 38:
                    fg = col
                else:
                    bg = col
                k += 1
            k += 1


def main(src, dst):
    lines = open(src, encoding="utf-8", errors="replace").read().rstrip("\n").split("\n")
    font, bold_font = ImageFont.truetype(FONT, 15), ImageFont.truetype(BOLD, 15)
    cw = int(font.getlength("M"))
    ch = 19
    cols = max(sum(1 for _ in parse(l)) for l in lines)
    img = Image.new("RGB", (cols * cw + 24, len(lines) * ch + 24), BG)
    d = ImageDraw.Draw(img)
    for y, line in enumerate(lines):
        for x, (c, fg, bg, bold) in enumerate(parse(line)):
            px, py = 12 + x * cw, 12 + y * ch
            if bg != BG:
                d.rectangle([px, py, px + cw, py + ch], fill=bg)
            d.text((px, py), c, fill=fg, font=bold_font if bold else font)
    img.save(dst)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
