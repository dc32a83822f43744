"""The shared audit's keys and its operations on them, one Lua script each:
Redis runs a script atomically, so no worker ever sees half a discovery,
claim or settlement (a worker's and an audit's life: lifecycle.py).

Every key of an audit starts with its prefix (``la:{NAME}:``); the scripts
build key names from it, so they run on a standalone Redis or Valkey.

- ``u:<b>``    hash, URL id -> its state: ``d<depth>@<worker>`` discovered
               (by that worker; not to be checked, or not queued yet),
               ``q<depth>`` queued or being checked, ``o<depth>`` checked ok,
               ``x<depth>`` checked, not ok (``@p`` after the depth: a
               scanned page).  A URL's id is 19 hex digits of its SHA-1:
               ``<b>`` (3, one of 4,096 hashes, each small enough for
               Redis's compact listpack encoding up to about 500,000 URLs)
               and ``<f>`` (16, the field).
- ``n``        list of every URL, in the order discovered: the only copy of
               a URL's text.
- ``v``        list of ``<b><f>|<result>`` (codec.py), in the order settled (a
               URL checked again after its worker died has two: the last
               counts).
- ``c:<b>``    hash, ``<f>`` -> the URL's link occurrences.
- ``r:<b><f>`` list of ``line<TAB>page``: referrers of a URL not (yet) ok.
- ``q:<d>:<host>``  list of pending records (JSON ``{u, r, d, h, p}``).
- ``h:<d>``    set of hosts with URLs waiting at depth d.
- ``meta``     hash: ``status`` (starting, running, stopping, finished),
               ``reason``, ``level``, ``out:<d>`` (URLs of depth d queued and
               not settled: the level barrier), counters (``pages``: URLs
               whose result is a scanned page; ``requests``: counting.py),
               report facts.
- ``lease:<host>``  the worker that owns a host (politeness), with a TTL.
- ``bo``       hash, host -> its back-off (JSON: level, pauses, paused
               until, given up; hosts/backoff.py).
- ``nb:<host>``     a host handed back: nobody takes it before this expires.
- ``m:<kind>`` set of URLs marked ``anchors`` (a link points at one of their
               fragments) or ``sitemap`` (read as a sitemap).
- ``ls:<w>``   set of hosts worker w leased; ``fl:<w>`` hash URL -> record
               of what w claimed and has not settled; ``w:<w>`` w's
               heartbeat (TTL); ``workers`` set of worker ids.
"""

from __future__ import annotations

# Shared by the scripts: key helpers, giving back what a dead worker held,
# and opening the next level when one is settled.
COMMON = r"""
local P = ARGV[1]
local function bucket(url)
  local h = redis.sha1hex(url)
  return string.sub(h, 1, 3), string.sub(h, 4, 19)
end
local function give_back(w)
  local held = redis.call('HGETALL', P .. 'fl:' .. w)
  for i = 1, #held, 2 do
    local rec = cjson.decode(held[i + 1])
    redis.call('LPUSH', P .. 'q:' .. rec.d .. ':' .. rec.h, held[i + 1])
    redis.call('SADD', P .. 'h:' .. rec.d, rec.h)
  end
  redis.call('DEL', P .. 'fl:' .. w)
  return #held / 2
end
local function release(w, not_before_ms)
  for _, host in ipairs(redis.call('SMEMBERS', P .. 'ls:' .. w)) do
    if redis.call('GET', P .. 'lease:' .. host) == w then
      redis.call('DEL', P .. 'lease:' .. host)
      if not_before_ms > 0 then
        redis.call('SET', P .. 'nb:' .. host, w, 'PX', not_before_ms)
      end
    end
  end
  redis.call('DEL', P .. 'ls:' .. w)
end
local function advance(d)
  local meta = P .. 'meta'
  if redis.call('HGET', meta, 'status') ~= 'running' then return end
  if tonumber(redis.call('HGET', meta, 'level')) ~= d then return end
  if (tonumber(redis.call('HGET', meta, 'out:' .. d)) or 0) > 0 then return end
  if (tonumber(redis.call('HGET', meta, 'out:' .. (d + 1))) or 0) > 0 then
    redis.call('HSET', meta, 'level', d + 1)
  else
    redis.call('HSET', meta, 'status', 'finished', 'reason', 'finished')
  end
end
"""

# ARGV: prefix, worker, depth, max URLs (0: no bound), url...  ->  for each
# URL: 3 new but past the audit's bound (LINKAUDIT_MAX_URLS: not recorded,
# counted in meta's urls_dropped); 1 new to the audit,
# or discovered by a worker that died before it queued or settled it (the
# page is checked again and its links must be placed again: ENQUEUE is
# idempotent); 2 discovered by another live worker, not queued yet; 0
# known.  A discovered URL's state names its discoverer.
DISCOVER = (
    COMMON
    + r"""
local new, urls = {}, {}
local me, fresh = ARGV[2], 'd' .. ARGV[3]
local cap, dropped = tonumber(ARGV[4]), 0
local room = cap > 0 and cap - redis.call('LLEN', P .. 'n') or nil  -- nil: no bound
for i = 5, #ARGV do
  local b, f = bucket(ARGV[i])
  local key = P .. 'u:' .. b
  local n
  if room and room <= 0 and redis.call('HEXISTS', key, f) == 0 then
    n, dropped = 3, dropped + 1
  else
    n = redis.call('HSETNX', key, f, fresh .. '@' .. me)
  end
  if n == 1 then
    urls[#urls + 1] = ARGV[i]
    if room then room = room - 1 end
  elseif n == 0 then
    local now = redis.call('HGET', key, f)
    local by = string.match(now, '^' .. fresh .. '@(.+)$')
    if by and by ~= me then
      if redis.call('EXISTS', P .. 'w:' .. by) == 0 then
        redis.call('HSET', key, f, fresh .. '@' .. me)
        n = 1
      else
        n = 2  -- another live worker's, not queued yet: ask again next time
      end
    end
  end
  new[#new + 1] = n
end
if #urls > 0 then redis.call('RPUSH', P .. 'n', unpack(urls)) end
if dropped > 0 then redis.call('HINCRBY', P .. 'meta', 'urls_dropped', dropped) end
return new
"""
)

# ARGV: prefix, then (url, depth, host, referer) four by four
ENQUEUE = (
    COMMON
    + r"""
for i = 2, #ARGV, 4 do
  local url, d, host, ref = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local b, f = bucket(url)
  local now = redis.call('HGET', P .. 'u:' .. b, f)
  if not now or string.sub(now, 1, 1) == 'd' then  -- queued once, whoever asks
    redis.call('HSET', P .. 'u:' .. b, f, 'q' .. d)
    local rec = {u = url, d = tonumber(d), h = host}
    if ref ~= '' then rec.r = ref end
    redis.call('RPUSH', P .. 'q:' .. d .. ':' .. host, cjson.encode(rec))
    redis.call('SADD', P .. 'h:' .. d, host)
    redis.call('HINCRBY', P .. 'meta', 'out:' .. d, 1)
  end
end
return 1
"""
)

# ARGV: prefix, worker, url, state ('o' or 'x' + depth, '@p' for a page), result, broken
# (0/1), then its links: (target, line) two by two  ->  {settled for the
# first time (0/1), link occurrences, referrers...}: the URL's referrers so
# far, read before its own links are counted.  Settling twice (a URL
# checked again after its worker was taken for dead) changes the result
# but counts once.
SETTLE = (
    COMMON
    + r"""
local url, state = ARGV[3], ARGV[4]
local b, f = bucket(url)
local key = P .. 'u:' .. b
local reply = {0, redis.call('HGET', P .. 'c:' .. b, f) or '0'}
for _, ref in ipairs(redis.call('LRANGE', P .. 'r:' .. b .. f, 0, -1)) do
  reply[#reply + 1] = ref
end
local old = redis.call('HGET', key, f)
redis.call('HSET', key, f, state)
redis.call('RPUSH', P .. 'v', b .. f .. '|' .. ARGV[5])
redis.call('HDEL', P .. 'fl:' .. ARGV[2], url)
local kind = old and string.sub(old, 1, 1) or 'd'
-- summary.pages: the URLs whose last result is a scanned page, whoever
-- checked them and however often
local was = (kind == 'o' or kind == 'x') and string.sub(old, -2) == '@p'
local is = string.sub(state, -2) == '@p'
if was ~= is then redis.call('HINCRBY', P .. 'meta', 'pages', is and 1 or -1) end
if kind == 'o' or kind == 'x' then return reply end
reply[1] = 1
-- the URL's links (a page's, a redirect's), counted with its first result
-- only: a page checked again after its worker died is not counted twice
for i = 7, #ARGV, 2 do
  local target = ARGV[i]
  local tb, tf = bucket(target)
  redis.call('HINCRBY', P .. 'c:' .. tb, tf, 1)
  local v = redis.call('HGET', P .. 'u:' .. tb, tf)
  if not v or string.sub(v, 1, 1) ~= 'o' then
    redis.call('RPUSH', P .. 'r:' .. tb .. tf, ARGV[i + 1] .. '\t' .. url)
  end
end
if string.sub(state, 1, 1) == 'o' then redis.call('DEL', P .. 'r:' .. b .. f) end
redis.call('HINCRBY', P .. 'meta', 'checked', 1)
if ARGV[6] == '1' then redis.call('HINCRBY', P .. 'meta', 'broken', 1) end
if kind == 'q' then
  local d = tonumber(string.sub(old, 2))
  redis.call('HINCRBY', P .. 'meta', 'out:' .. d, -1)
  advance(d)
end
return reply
"""
)

# ARGV: prefix, worker, lease ms, how many, the longest a handed-back host
# waits (ms)  ->  {status, reason, record...}
# Hosts this worker owns first, then free ones; a host is owned for the
# whole audit (its lease renewed by the heartbeat), so one worker's Scrapy
# slot paces it.  Dead workers (heartbeat expired) give their claims back.
CLAIM = (
    COMMON
    + r"""
local me, lease_ms, n = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local nb_max = tonumber(ARGV[5]) or lease_ms
local meta = P .. 'meta'
for _, w in ipairs(redis.call('SMEMBERS', P .. 'workers')) do
  if w ~= me and redis.call('EXISTS', P .. 'w:' .. w) == 0 then
    give_back(w)
    release(w, 0)
    redis.call('SREM', P .. 'workers', w)
  end
end
local level = tonumber(redis.call('HGET', meta, 'level'))
if level then advance(level) end
local status = redis.call('HGET', meta, 'status') or 'missing'
local out = {status, redis.call('HGET', meta, 'reason') or ''}
if status ~= 'running' then return out end
level = tonumber(redis.call('HGET', meta, 'level'))
local hosts = redis.call('SMEMBERS', P .. 'h:' .. level)
local workers = math.max(1, redis.call('SCARD', P .. 'workers'))
local share = math.ceil(#hosts / workers)
local mine, taken = 0, 0
local function take(host)
  redis.call('SET', P .. 'lease:' .. host, me, 'PX', lease_ms)
  redis.call('SADD', P .. 'ls:' .. me, host)
  local q = P .. 'q:' .. level .. ':' .. host
  while taken < n do
    local rec = redis.call('LPOP', q)
    if not rec then break end
    redis.call('HSET', P .. 'fl:' .. me, cjson.decode(rec).u, rec)
    out[#out + 1] = rec
    taken = taken + 1
  end
  if redis.call('LLEN', q) == 0 then redis.call('SREM', P .. 'h:' .. level, host) end
end
-- a record no worker could have written does not hold a host: a lease of
-- a worker with no heartbeat, a not-before without an expiry or longer
-- than a handed-back host waits (an altered Redis would stall the audit)
local function free(host)
  local owner = redis.call('GET', P .. 'lease:' .. host)
  if owner and redis.call('EXISTS', P .. 'w:' .. owner) == 0 then
    redis.call('DEL', P .. 'lease:' .. host)
    owner = false
  end
  if owner then return false end
  local ttl = redis.call('PTTL', P .. 'nb:' .. host)
  if ttl == -1 or ttl > nb_max then
    redis.call('DEL', P .. 'nb:' .. host)
    return true
  end
  return ttl == -2
end
-- 1: the hosts this worker owns; 2: free hosts up to its share of the
-- level's hosts, so hosts spread over the workers; 3: with nothing to do
-- and no host of its own, any free host (a worker that owns a host leaves
-- the others' share to them: it would otherwise take every host that
-- frees up the moment its own is empty, before an idle worker asks)
for _, host in ipairs(hosts) do
  if redis.call('GET', P .. 'lease:' .. host) == me then
    mine = mine + 1
    if taken < n then take(host) end
  end
end
for _, host in ipairs(hosts) do
  if taken >= n or mine >= share then break end
  if free(host) then
    mine = mine + 1
    take(host)
  end
end
if taken == 0 and redis.call('SCARD', P .. 'ls:' .. me) == 0 then
  for _, host in ipairs(hosts) do
    if taken >= n then break end
    if free(host) then take(host) end
  end
end
return out
"""
)

# ARGV: prefix, worker, then (url, phase) two by two: each check
# continues with that request
OWE = (
    COMMON
    + r"""
local key = P .. 'fl:' .. ARGV[2]
for i = 3, #ARGV, 2 do
  local rec = redis.call('HGET', key, ARGV[i])
  if rec then
    rec = cjson.decode(rec)
    rec.p = ARGV[i + 1]
    redis.call('HSET', key, ARGV[i], cjson.encode(rec))
  end
end
return 1
"""
)

# ARGV: prefix, target, page, line: a referrer outside a page's result
# (robots.txt naming a sitemap), counted as SETTLE counts a page's links
REFER = (
    COMMON
    + r"""
local tb, tf = bucket(ARGV[2])
redis.call('HINCRBY', P .. 'c:' .. tb, tf, 1)
local v = redis.call('HGET', P .. 'u:' .. tb, tf)
if not v or string.sub(v, 1, 1) ~= 'o' then
  redis.call('RPUSH', P .. 'r:' .. tb .. tf, ARGV[4] .. '\t' .. ARGV[3])
end
return 1
"""
)
# the crawl's scripts; a worker's and the audit's life: lifecycle.py
CRAWL = {
    "REFER": REFER,
    "DISCOVER": DISCOVER,
    "ENQUEUE": ENQUEUE,
    "SETTLE": SETTLE,
    "CLAIM": CLAIM,
    "OWE": OWE,
}
