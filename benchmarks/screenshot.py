"""Screenshot sizes for models: bytes and image tokens per format, quality and longest side.

Run from the repository root::

    python benchmarks/screenshot.py

Two screens, both 1080x2400-ish (a 412x915 dp phone at 2.625x):

* **ui** — a phone UI rendered by headless Chromium (Debian's ``chromium``): a settings list,
  a message thread and a photo-like banner with antialiased text — what real screenshots
  are like (skipped, saying so, where Chromium is absent);
* **virtual** — the virtual phone's own painted Settings screen (flat blocks: a PNG's best
  case, shown for contrast).

For each encoding: its bytes, the ratio to the full-size PNG of the same screen (the
baseline, taken in the same run), and the image tokens two model families charge:

* **o200k** — OpenAI's GPT-4o / 4.1 family (the o200k tokenizer's models), high detail: the
  image is scaled to fit 2048x2048, then its shortest side to 768, and costs 85 + 170 per
  512 px tile;
* **claude** — Anthropic's rule: scaled to a longest side of 1568 px (and 1.15 MP), then
  about width x height / 750.

It also prints the height in pixels that 14 sp body text (36.75 px on the 2.625x screen)
keeps after scaling: the legibility the choice has to keep. Pillow is needed (the
``[vision]`` extra).
"""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from baremobile import connect  # noqa: E402
from baremobile.page.screenshot import encode_png, have_pillow  # noqa: E402

BODY_TEXT_PX = 14 * 2.625  # 14 sp at 420 dpi

UI_PAGE = """<!doctype html><html><head><meta name=viewport content="width=device-width">
<style>
body{margin:0;font-family:sans-serif;background:#f7f8fa;color:#1f1f1f}
header{background:#e9ecf2;padding:18px 16px;font-size:22px}
.banner{height:170px;background:linear-gradient(135deg,#3b6ea5,#9bc1e8 40%,#f3c27a 70%,#c0623a);
 position:relative}
.banner span{position:absolute;left:16px;bottom:12px;color:#fff;font-size:20px;
 text-shadow:0 1px 3px #000}
.row{display:flex;align-items:center;padding:14px 16px;border-bottom:1px solid #dde1e6}
.ico{width:28px;height:28px;border-radius:50%;margin-right:18px;flex:none}
.t{font-size:16px}.s{font-size:14px;color:#5f6368;margin-top:3px}
.msg{margin:10px 16px;padding:10px 14px;border-radius:18px;max-width:70%;font-size:15px}
.me{background:#d3e3fd;margin-left:auto}.them{background:#fff;border:1px solid #e0e0e0}
</style></head><body><header>Settings</header>
<div class=banner><span>Sunset over the bay — 24°C, light wind</span></div>
ROWS
<div style="display:flex;flex-direction:column">MSGS</div></body></html>"""
ROWS = [("Network & internet", "Mobile, Wi-Fi, hotspot", "#1a73e8"),
        ("Connected devices", "Bluetooth, pairing", "#188038"),
        ("Apps", "Assistant, recent apps, default apps", "#e37400"),
        ("Notifications", "Notification history, conversations", "#d93025"),
        ("Battery", "83% - Should last until about 9:30 PM", "#12b5cb"),
        ("Storage", "41% used - 75.4 GB free", "#9334e6"),
        ("Sound & vibration", "Volume, haptics, Do Not Disturb", "#1a73e8")]
MSGS = [("them", "Are we still on for dinner at 7? I booked the place on Fifth."),
        ("me", "Yes! Running 10 min late, order the dumplings"),
        ("them", "Done. Table by the window, see you soon")]


def ui_screen() -> bytes | None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return None
    rows = "".join(f'<div class=row><div class=ico style="background:{c}"></div><div>'
                   f'<div class=t>{t}</div><div class=s>{s}</div></div></div>'
                   for t, s, c in ROWS)
    msgs = "".join(f"<div class='msg {who}'>{text}</div>" for who, text in MSGS)
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp, "ui.html")
        page.write_text(UI_PAGE.replace("ROWS", rows).replace("MSGS", msgs), encoding="utf-8")
        out = Path(tmp, "ui.png")
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", "--force-device-scale-factor=2.625",
                        "--window-size=412,915", f"--user-data-dir={tmp}/profile",
                        f"--screenshot={out}", page.as_uri()],
                       check=True, capture_output=True, timeout=120)
        return out.read_bytes()


def virtual_screen() -> bytes:
    with connect("virtual") as page:
        page.launch("com.android.settings")
        return page.screenshot().png


def o200k_tokens(w: int, h: int) -> int:
    scale = min(1.0, 2048 / max(w, h))
    w, h = w * scale, h * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def claude_tokens(w: int, h: int) -> int:
    scale = min(1.0, 1568 / max(w, h), math.sqrt(1_150_000 / (w * h)))
    return round(w * scale * h * scale / 750)


ENCODINGS = [("png", None, None), ("png", None, 1024),
             ("jpeg", 90, None), ("jpeg", 80, None),
             ("jpeg", 80, 1568), ("jpeg", 80, 1280), ("jpeg", 80, 1024), ("jpeg", 60, 1024),
             ("jpeg", 80, 768),
             ("webp", 80, 1024), ("webp", 60, 1024)]


def report(name: str, png: bytes) -> None:
    base = len(png)
    print(f"\n{name}: {len(png)} bytes of PNG from the device")
    print(f"{'encoding':22} {'size':>9} {'bytes':>9} {'vs PNG':>7} {'o200k':>6} {'claude':>6}"
          f" {'14sp px':>7}")
    for fmt, quality, side in ENCODINGS:
        img = encode_png(png, fmt, quality=quality, max_side=side)
        label = f"{fmt}{'' if quality is None else f' q{quality}'}" \
                f"{'' if side is None else f' ≤{side}'}"
        w0, h0 = img.source_size
        text_px = BODY_TEXT_PX * img.height / h0
        print(f"{label:22} {img.width:>4}x{img.height:<4} {len(img.data):>9} "
              f"{len(img.data) / base:>6.2f}x {o200k_tokens(img.width, img.height):>6} "
              f"{claude_tokens(img.width, img.height):>6} {text_px:>7.1f}")


def main() -> int:
    if not have_pillow():
        print("this benchmark needs Pillow: pip install 'baremobile[vision]'")
        return 1
    ui = ui_screen()
    if ui is None:
        print("ui: skipped — Debian's chromium is not installed (apt-get install chromium)")
    else:
        report("ui (a phone UI rendered by Chromium)", ui)
    report("virtual (the virtual phone's painted Settings)", virtual_screen())
    return 0


if __name__ == "__main__":
    sys.exit(main())
