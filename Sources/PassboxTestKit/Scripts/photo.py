"""Makes a phone-like photo of a scanned page (issue 28's printed-backup check): the page turned a few degrees
on a white background, slightly blurred, and saved as a grey JPEG of quality 70.

    photo.py IN.png OUT.jpg [DEGREES] [BLUR]
"""
import sys

from PIL import Image, ImageFilter

source, target = sys.argv[1], sys.argv[2]
degrees = float(sys.argv[3]) if len(sys.argv) > 3 else 4.0
blur = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
page = Image.open(source).convert("L")
turned = page.rotate(degrees, resample=Image.BICUBIC, expand=True, fillcolor=255)
turned.filter(ImageFilter.GaussianBlur(blur)).save(target, "JPEG", quality=70)
