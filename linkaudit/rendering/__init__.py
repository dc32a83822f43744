"""Rendering pages built by JavaScript (``--render``) in the system's
Chromium, through scrapy-playwright: the browser (``browser.py``), what
one page may do in it (``page.py``), and the memory of its processes
(``memory.py``).  Imported only when an audit renders: Playwright is an
optional dependency."""
