"""Opens earshot serve's page (GET /) in Debian's chromium, headless, driven by Playwright, with a WAV file as
the microphone (Chromium's fake capture device), and prints what the page showed as one JSON document for
the Swift test to check: the finals, the speech states it went through, and any error it displayed.

    realtime_page.py PAGE_URL AUDIO_WAV

PAGE_URL carries the key in its fragment (http://127.0.0.1:PORT/#key=KEY), as an operator opens it; the page
trades it for a client secret and removes it from the address bar.
"""
import json
import sys
import time

from playwright.sync_api import sync_playwright

page_url, audio = sys.argv[1:3]
report = {"finals": [], "states": [], "status": "", "url_after_start": ""}
with sync_playwright() as playwright:
    browser = playwright.chromium.launch(
        executable_path="/usr/bin/chromium",
        headless=True,
        args=[
            "--use-fake-ui-for-media-stream",
            "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-audio-capture={audio}",
            "--autoplay-policy=no-user-gesture-required",
        ],
    )
    try:
        context = browser.new_context()
        context.grant_permissions(["microphone"])
        page = context.new_page()
        page.on("console", lambda message: report.setdefault("console", []).append(message.text))
        page.goto(page_url)
        report["url_after_start"] = page.url
        page.click("#start")
        # Generous: the test checks what the page shows, not how fast, and runs beside every other suite.
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            state = page.text_content("#state")
            if not report["states"] or report["states"][-1] != state:
                report["states"].append(state)
            finals = page.locator("#finals li.final")
            if finals.count() > 0:
                break
            report["status"] = page.text_content("#status")
            if report["status"]:
                break
            time.sleep(0.05)
        report["finals"] = page.locator("#finals li.final").all_text_contents()
        report["status"] = page.text_content("#status")
        report["key_field"] = page.input_value("#key")
    finally:
        browser.close()
print(json.dumps(report))
