"""The bot walls' answers, headers and page as each vendor sends them
(written from the sources ``linkaudit/rules/walls.py`` cites), for a test
server to play: path -> (wall, status, headers, page)."""

from __future__ import annotations

# a page's padding after its markers, more than any socket buffer holds:
# the gate must not download it all
PADDING = "<!-- " + "x" * (20 * 1024 * 1024) + " -->"

CLOUDFLARE = """<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="390"></head><body><div class="main-wrapper" role="main">
<noscript>Enable JavaScript and cookies to continue</noscript></div>
<script>(function(){window._cf_chl_opt={cvId: '3'};}());</script></body></html>"""

AWS_WAF = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title></title><script>window.awsWafCookieDomainList = [];
window.gokuProps = {"key":"AQIDAHjc","iv":"CgAEcDM","context":"abc"};</script>
<script src="https://abc.token.awswaf.com/abc/challenge.js"></script></head>
<body><div id="challenge-container"></div><noscript><h1>JavaScript is disabled</h1>
</noscript></body></html>"""

VERCEL = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Vercel Security Checkpoint</title></head><body class="">
<div class="container"><p>We're verifying your browser</p></div>
<script src="/.well-known/vercel/security/static/challenge.v2.min.js"></script></body></html>"""

DATADOME = """<html><head><title>example.com</title><style>#cmsg{animation: A 1.5s;}</style>
</head><body style="margin:0"><p id="cmsg">Please enable JS and disable any ad blocker</p>
<script data-cfasync="false">var dd={'rt':'c','cid':'AHrlqAAAAAMA','hsh':'2211F522',
't':'fe','s':40171,'e':'d4c1f9','host':'geo.captcha-delivery.com','cookie':'abc'}</script>
<script data-cfasync="false" src="https://ct.captcha-delivery.com/c.js"></script>
</body></html>"""

IMPERVA = """<html style="height:100%"><head><META NAME="ROBOTS" CONTENT="NOINDEX, NOFOLLOW">
<meta name="format-detection" content="telephone=no"></head><body style="margin:0px;height:100%">
<iframe id="main-iframe" src="/_Incapsula_Resource?CWUDNSAI=24&xinfo=9-1234&incident_id=1-2-3"
frameborder=0 width="100%" height="100%" marginheight="0px" marginwidth="0px">Request unsuccessful.
Incapsula incident ID: 1234-5678</iframe></body></html>"""

SUCURI = """<!DOCTYPE html><html lang="en"><head>
<title>Sucuri WebSite Firewall - Access Denied</title>
<link rel="stylesheet" href="https://cdn.sucuri.net/sucuri-firewall-block.css"></head>
<body><div id="main-container"><h2>Access Denied - Sucuri Website Firewall</h2>
</div></body></html>"""

AKAMAI = """<HTML><HEAD>
<TITLE>Access Denied</TITLE>
</HEAD><BODY>
<H1>Access Denied</H1>

You don't have permission to access "http&#58;&#47;&#47;www&#46;example&#46;com&#47;" on this server.<P>
Reference&#32;&#35;18&#46;2d351ab8&#46;1557333295&#46;a4e16ab
<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;2d351ab8&#46;1557333295&#46;a4e16ab</P>
</BODY>
</HTML>
"""

PERIMETERX = """<!DOCTYPE html>
<html lang="en">
<head>
    <meta charset="utf-8">
    <title>Access to this page has been denied.</title>
    <style>html, body { margin: 0; padding: 0; }</style>
</head>
<body>
<section class="container">
    <div class="page-title"><h1>Please verify you are a human</h1></div>
    <div class="content">
        <div id="px-captcha">
        </div>
        <p>Access to this page has been denied because we believe you are using automation tools
        to browse the website.</p>
        <p>Reference ID: #0f2e6d10-0000-11ee-0000-000000000000</p>
    </div>
</section>
<script>
    window._pxAppId = 'PXabcdefgh';
    window._pxJsClientSrc = '//client.px-cdn.net/PXabcdefgh/main.min.js';
</script>
</body>
</html>
"""

ANUBIS = """<!DOCTYPE html><html lang="en"><head><title>Making sure you&#39;re not a bot!</title>
<link rel="stylesheet" href="/.within.website/x/xess/xess.min.css?cachebuster=v1.21.3">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<meta name="robots" content="noindex,nofollow">
<script id="anubis_version" type="application/json">"v1.21.3"</script>
<script id="anubis_challenge" type="application/json">{"rules":{"algorithm":"fast",
"difficulty":4,"report_as":4},"challenge":"8ab7c1"}</script>
<script id="anubis_base_prefix" type="application/json">""</script></head>
<body id="top"><main><h1 id="title" class="centered-div">Making sure you&#39;re not a bot!</h1>
<img id="image" style="width:100%;max-width:256px;"
src="/.within.website/x/cmd/anubis/static/img/pensive.webp?cacheBuster=v1.21.3">
<p>Protected by <a href="https://github.com/TecharoHQ/anubis">Anubis</a> From <a
href="https://techaro.lol">Techaro</a>.</p></main></body></html>"""

GO_AWAY = """<!DOCTYPE html><html><head><title>Checking you are not a bot</title>
<meta name="viewport" content="width=device-width, initial-scale=1.0"/>
<meta name="referrer" content="origin"/></head><body><main>
<h1 id="title" class=".centered-div">Checking you are not a bot</h1>
<p>Protected by <a href="https://git.gammaspectra.live/git/go-away">go-away</a> :: Request Id
<em>0193b7d2-0000-7000-8000-000000000000</em></p></main></body></html>"""

# path -> (wall, status, headers, page); every one far (the gate's prefix)
WALLS = {
    "/cloudflare": (
        "Cloudflare",
        403,
        {"cf-mitigated": "challenge", "Server": "cloudflare", "CF-RAY": "8ea1c2d3e4f5a6b7-FRA"},
        CLOUDFLARE,
    ),
    "/aws-challenge": ("AWS WAF", 202, {"x-amzn-waf-action": "challenge"}, AWS_WAF),
    "/aws-captcha": ("AWS WAF", 405, {"x-amzn-waf-action": "captcha"}, AWS_WAF),
    "/vercel": (
        "Vercel",
        429,
        {"x-vercel-mitigated": "challenge", "Server": "Vercel", "x-vercel-id": "fra1::abc"},
        VERCEL,
    ),
    "/datadome": (
        "DataDome",
        403,
        {
            "X-DataDome": "protected",
            "Set-Cookie": "datadome=6BvxqELMoorFNoo7GT1; Max-Age=31536000; Path=/; Secure",
        },
        DATADOME,
    ),
    "/imperva": (
        "Imperva",
        403,
        {
            "X-Iinfo": "9-49176764-0 0CNN RT(1426425483129 667) q(0 -1 -1 -1) r(0 -1)",
            "Set-Cookie": "incap_ses_1234_5678=abcd; path=/; Domain=.example.com",
            "X-CDN": "Imperva",
        },
        IMPERVA,
    ),
    "/sucuri": (
        "Sucuri",
        403,
        {"Server": "Sucuri/Cloudproxy", "X-Sucuri-ID": "11005", "X-Sucuri-Block": "BLK001"},
        SUCURI,
    ),
    "/akamai": ("Akamai", 403, {"Server": "AkamaiGHost", "Mime-Version": "1.0"}, AKAMAI),
    # the page alone says it: the GET's body is needed (and only its start)
    "/perimeterx": ("HUMAN/PerimeterX", 403, {}, PERIMETERX + PADDING),
    "/akamai-page": ("Akamai", 403, {"Mime-Version": "1.0"}, AKAMAI),
    "/anubis": (
        "Anubis",
        200,
        {
            "Set-Cookie": "techaro.lol-anubis-cookie-verification-1a2b3c4d=0193b7d2; "
            "Path=/; Expires=Fri, 27 Nov 2026 23:59:00 GMT; SameSite=Lax",
            "Cache-Control": "no-store",
        },
        ANUBIS,
    ),
    "/go-away": (
        "go-away",
        418,
        {
            "Set-Cookie": ".go-away-5f1e2d3c-state=abc; Path=/; SameSite=Lax",
            "Cache-Control": "no-cache, no-store, must-revalidate",
        },
        GO_AWAY,
    ),
    "/linkedin": ("LinkedIn", 999, {}, ""),
}
