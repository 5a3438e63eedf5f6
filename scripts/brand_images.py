"""Draw the raster brand images from static/img/logo.svg in headless Chromium (Playwright).

    .venv/bin/python scripts/brand_images.py

writes static/img/apple-touch-icon.png (180 px), static/favicon.ico (16 and 32 px PNGs in one
ICO) and static/img/share.png (1200 x 630, the Open Graph and Twitter card image). Run it again
after changing the logo; the outputs are committed, so the site never draws them itself.
"""

import shutil
import struct
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
IMG = ROOT / "static" / "img"
LOGO = (IMG / "logo.svg").read_text(encoding="utf-8")

SHARE = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body {{ margin: 0; width: 1200px; height: 630px; display: flex; align-items: center;
  gap: 56px; padding: 0 96px; box-sizing: border-box; background: #f4f6fa;
  font-family: "Noto Sans", "DejaVu Sans", sans-serif; color: #1d2330; }}
svg {{ width: 220px; height: 220px; flex: none; }}
h1 {{ font-size: 84px; margin: 0 0 16px; }}
p {{ font-size: 38px; margin: 0; color: #5a6272; line-height: 1.3; }}
</style></head><body>{LOGO}<div><h1>GPU Guide</h1>
<p>Which GPU to rent for fine-tuning: memory, fit and cost</p></div></body></html>"""


def ico(pngs: list[tuple[int, bytes]]) -> bytes:
    """An ICO file holding PNG images (supported by every browser since IE Vista-era)."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = 6 + 16 * len(pngs)
    entries, data = b"", b""
    for size, png in pngs:
        entries += struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 32, len(png), offset)
        offset += len(png)
        data += png
    return header + entries + data


def main() -> None:
    chromium = shutil.which("chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()

        def logo_png(size: int) -> bytes:
            page.set_viewport_size({"width": size, "height": size})
            page.set_content(
                "<style>body{margin:0}svg{display:block;width:100vw;height:100vh}</style>" + LOGO
            )
            return page.screenshot(omit_background=True)

        (IMG / "apple-touch-icon.png").write_bytes(logo_png(180))
        (ROOT / "static" / "favicon.ico").write_bytes(ico([(16, logo_png(16)), (32, logo_png(32))]))
        page.set_viewport_size({"width": 1200, "height": 630})
        page.set_content(SHARE)
        page.screenshot(path=IMG / "share.png")
        browser.close()


if __name__ == "__main__":
    main()
