"""The scripts of a worker's and an audit's life: the heartbeat, leaving,
starting and stopping the audit (the key layout: scripts.py)."""

from __future__ import annotations

from linkaudit.state.redis.scripts import COMMON, CRAWL

# ARGV: prefix, worker, lease ms, requests, pages, responses: alive; renew
# leases; this worker's counts (the report's, and the audit's hit limit)
HEARTBEAT = (
    COMMON
    + r"""
local me, lease_ms = ARGV[2], tonumber(ARGV[3])
redis.call('SET', P .. 'w:' .. me, '1', 'PX', lease_ms)
redis.call('SADD', P .. 'workers', me)
for _, host in ipairs(redis.call('SMEMBERS', P .. 'ls:' .. me)) do
  if redis.call('GET', P .. 'lease:' .. host) == me then
    redis.call('PEXPIRE', P .. 'lease:' .. host, lease_ms)
  else
    redis.call('SREM', P .. 'ls:' .. me, host)
  end
end
redis.call('HSET', P .. 'work', me .. ':requests', ARGV[4], me .. ':pages', ARGV[5],
  me .. ':responses', ARGV[6])
local meta = P .. 'meta'
return {redis.call('HGET', meta, 'status') or 'missing', redis.call('HGET', meta, 'reason') or ''}
"""
)

# ARGV: prefix, worker, not-before ms: leave the audit, handing back
# unsettled claims; hosts stay free of requests for the host's delay
LEAVE = (
    COMMON
    + r"""
local me = ARGV[2]
local n = give_back(me)
release(me, tonumber(ARGV[3]))
redis.call('DEL', P .. 'w:' .. me)
redis.call('SREM', P .. 'workers', me)
return n
"""
)

# ARGV: prefix: the creator opens the audit, once the start URLs are queued
# (sent before it, in the same pipeline: a level with nothing queued yet
# would be taken for finished by the first worker that claims)
START = r"""
local meta = ARGV[1] .. 'meta'
if redis.call('HGET', meta, 'status') == 'starting' then
  redis.call('HSET', meta, 'status', 'running')
end
return redis.call('HGET', meta, 'status')
"""

# ARGV: prefix, reason: stop the audit (a limit), unless it is over
STOP = r"""
local meta = ARGV[1] .. 'meta'
local status = redis.call('HGET', meta, 'status')
if status == 'running' or status == 'starting' then
  redis.call('HSET', meta, 'status', 'stopping', 'reason', ARGV[2])
end
return redis.call('HGET', meta, 'reason')
"""

LIFE = {"HEARTBEAT": HEARTBEAT, "LEAVE": LEAVE, "START": START, "STOP": STOP}
SCRIPTS = {**CRAWL, **LIFE}  # every script a worker runs, by name
