#!/usr/bin/env python3
"""Writes the fixture that holds the engine's image resizing to Pillow's.

For a few images whose sides are not multiples of 28 (noise, a smooth gradient, a board of flat cells) this computes
the Qwen2-VL processor's target size (transformers' smart_resize: factor 28, Python's round, min/max pixels) and
resizes with Pillow's BICUBIC, as Qwen2VLImageProcessor does; it writes each input and output as PNG and a
cases.json. PillowBicubicTest reads them. Run with Debian's python3-pil:

    /usr/bin/python3 scripts/vision/resize_check.py pettingllms-torch/src/test/resources/pillow-bicubic
"""
import json
import math
import os
import random
import sys

import PIL
from PIL import Image


def smart_resize(height, width, factor=28, min_pixels=56 * 56, max_pixels=28 * 28 * 1280):
    # transformers.models.qwen2_vl.image_processing_qwen2_vl.smart_resize
    if max(height, width) / min(height, width) > 200:
        raise ValueError("absolute aspect ratio must be smaller than 200")
    h_bar = round(height / factor) * factor
    w_bar = round(width / factor) * factor
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def noise(w, h, seed):
    rng = random.Random(seed)
    return Image.frombytes("RGB", (w, h), bytes(rng.randrange(256) for _ in range(w * h * 3)))


def gradient(w, h):
    img = Image.new("RGB", (w, h))
    img.putdata([(x * 255 // (w - 1), y * 255 // (h - 1), (x + y) * 255 // (w + h - 2)) for y in range(h) for x in range(w)])
    return img


def board(cells_w, cells_h, cell, seed):
    rng = random.Random(seed)
    colours = [(255, 255, 255), (40, 40, 40), (220, 60, 60), (60, 160, 60), (60, 90, 220)]
    img = Image.new("RGB", (cells_w * cell, cells_h * cell))
    grid = [[rng.choice(colours) for _ in range(cells_w)] for _ in range(cells_h)]
    img.putdata([grid[y // cell][x // cell] for y in range(cells_h * cell) for x in range(cells_w * cell)])
    return img


CASES = [
    # name, image, min_pixels, max_pixels
    ("noise-up", noise(50, 37, 1), 3136, 50176),
    ("noise-down", noise(97, 61, 2), 3136, 3136),
    ("noise-mixed", noise(23, 130, 3), 3136, 50176),
    ("gradient-down", gradient(300, 170), 3136, 50176),
    ("gradient-up", gradient(45, 29), 3136, 50176),
    ("board-down", board(7, 5, 30, 4), 3136, 28 * 28 * 24),
    ("board-up", board(5, 4, 11, 5), 3136, 50176),
]


def main(out):
    os.makedirs(out, exist_ok=True)
    cases = []
    for name, img, lo, hi in CASES:
        h, w = smart_resize(img.height, img.width, min_pixels=lo, max_pixels=hi)
        resized = img.resize((w, h), resample=Image.BICUBIC)
        img.save(os.path.join(out, name + ".png"))
        resized.save(os.path.join(out, name + ".resized.png"))
        cases.append({"name": name, "width": img.width, "height": img.height, "min_pixels": lo,
                      "max_pixels": hi, "resized_width": w, "resized_height": h})
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump({"pillow": PIL.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
