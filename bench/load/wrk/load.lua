-- wrk script for the HTTP bench (bench/load/wrk.ts drives it through the environment; wrk hands
-- script arguments only to init(), too late to choose which hooks exist).
--
--   WRK_PATHS   newline-separated request paths, taken in turn (absent: the URL's own path)
--   WRK_PAGES   "firstRecipient,recipients,fromBlock,toBlock,seed": a different page on every
--               request: a recipient drawn from the range (the bench chain's address scheme), paged
--               from a random cursor, a position at a random block of the range and a random log
--               index below 2^31 (so no two requests ask the same page, and no cache can answer)
--   WRK_RATE    requests per second per wrk thread: a constant-rate schedule shared by the thread's
--               connections; a connection that finishes a response takes the next free slot
--
-- Paced runs (WRK_RATE): wrk's timers have 1 ms resolution, so a request leaves within half a
-- millisecond of its slot when a connection is free for it. Latency is wrk's own, from each
-- request's send; a slot that found every connection busy is sent late, and how late is recorded
-- (a stalled server then shows as late sends instead of hiding its queue). Measuring latency per
-- request in Lua (a response() hook) would make wrk copy every body into Lua and slow the client
-- more than the server under test. Every run prints one line "WRK_JSON {...}" from done().
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } wrk_timespec;
  int clock_gettime(int clock, wrk_timespec *ts);
]]
local ts = ffi.new("wrk_timespec")
local function now_us()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1e6 + tonumber(ts.tv_nsec) / 1e3
end

local paths_env = os.getenv("WRK_PATHS")
local pages_env = os.getenv("WRK_PAGES")
local rate = tonumber(os.getenv("WRK_RATE") or "")

local requests = nil
local next_path = 0
local page_spec = nil
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_number", #threads)
end

function init(args)
  if paths_env then
    requests = {}
    for path in string.gmatch(paths_env, "[^\n]+") do
      table.insert(requests, wrk.format("GET", path))
    end
  end
  if pages_env then
    local first, r, from, to, seed = string.match(pages_env, "(%d+),(%d+),(%d+),(%d+),(%d+)")
    page_spec = { first = tonumber(first), recipients = tonumber(r), from = tonumber(from), to = tonumber(to) }
    math.randomseed(tonumber(seed) * 1000 + thread_number)
  end
end

-- The explorer's cursor (src/store/cursor.ts): base64url of version 1, block (6 bytes), log index (4
-- bytes) and a 16-bit check (FNV-1a of those 11 bytes, folded).
local BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
local function imul32(a, b)
  local low = a % 65536
  return (low * b + ((a - low) / 65536 * b % 65536) * 65536) % 4294967296
end
local function xor32(a, b) return bit.bxor(a, b) % 4294967296 end
local function cursor(block, log_index)
  local bytes = { 1 }
  for i = 5, 0, -1 do bytes[#bytes + 1] = math.floor(block / 2 ^ (8 * i)) % 256 end
  for i = 3, 0, -1 do bytes[#bytes + 1] = math.floor(log_index / 2 ^ (8 * i)) % 256 end
  local h = 0x811c9dc5
  for _, b in ipairs(bytes) do h = imul32(xor32(h, b), 0x01000193) end
  local check = xor32(h, math.floor(h / 65536)) % 65536
  bytes[#bytes + 1] = math.floor(check / 256)
  bytes[#bytes + 1] = check % 256
  local out = {}
  for i = 1, #bytes, 3 do
    local n = bytes[i] * 65536 + (bytes[i + 1] or 0) * 256 + (bytes[i + 2] or 0)
    local chars = (bytes[i + 2] and 4) or (bytes[i + 1] and 3) or 2
    for k = 1, chars do
      local index = math.floor(n / 2 ^ (18 - 6 * (k - 1))) % 64
      out[#out + 1] = BASE64URL:sub(index + 1, index + 1)
    end
  end
  return table.concat(out)
end

local function next_request()
  if page_spec then
    local recipient = string.format("0x4e%038x", page_spec.first + math.random(0, page_spec.recipients - 1))
    local at = cursor(math.random(page_spec.from, page_spec.to), math.random(0, 2147483647))
    return wrk.format("GET", "/events?recipient=" .. recipient .. "&limit=20&cursor=" .. at)
  end
  if requests then
    next_path = next_path % #requests + 1
    return requests[next_path]
  end
  return wrk.request()
end

if paths_env or pages_env then
  request = next_request
end

-- Log-linear histogram of microseconds: exact below 128, then 64 sub-buckets per power of two (< 1.6% error).
late = {}
late_count = 0
sent = 0
local function bucket(us)
  if us < 128 then return us end
  local e, v = 0, us
  while v >= 128 do v = math.floor(v / 2); e = e + 1 end
  return 128 + (e - 1) * 64 + (v - 64)
end
local function bucket_value(b)
  if b < 128 then return b end
  local e = math.floor((b - 128) / 64) + 1
  local v = (b - 128) % 64 + 64
  return (v + 0.5) * 2 ^ e
end

if rate then
  local interval = 1e6 / rate
  local slot = nil

  function delay()
    local t = now_us()
    slot = slot and slot + interval or t
    sent = sent + 1
    local wait = slot - t
    if wait < -1000 then
      local b = bucket(math.floor(-wait))
      late[b] = (late[b] or 0) + 1
      late_count = late_count + 1
    end
    return math.max(0, math.floor(wait / 1000 + 0.5))
  end
end

local function percentiles(merged, count)
  local keys = {}
  for b in pairs(merged) do table.insert(keys, b) end
  table.sort(keys)
  local out, seen, wanted = {}, 0, { 0.5, 0.9, 0.99, 0.999 }
  local w = 1
  for _, b in ipairs(keys) do
    seen = seen + merged[b]
    while w <= #wanted and seen >= wanted[w] * count do
      out[w] = bucket_value(b) / 1000
      w = w + 1
    end
  end
  for i = w, #wanted do out[i] = 0 end
  out[5] = (#keys > 0) and bucket_value(keys[#keys]) / 1000 or 0
  return out
end

function done(summary, latency, requests_stats)
  local p = {}
  for i, q in ipairs({ 50, 90, 99, 99.9 }) do p[i] = latency:percentile(q) / 1000 end
  p[5] = latency.max / 1000
  local merged, late_sends, all_sends = {}, 0, 0
  for _, t in ipairs(threads) do
    for b, n in pairs(t:get("late")) do merged[b] = (merged[b] or 0) + n end
    late_sends = late_sends + t:get("late_count")
    all_sends = all_sends + t:get("sent")
  end
  local lag = percentiles(merged, late_sends)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"durationUs":%d,"bytes":%d,"p50":%.4f,"p90":%.4f,"p99":%.4f,"p999":%.4f,"max":%.4f,' ..
      '"sends":%d,"lateSends":%d,"lateP99":%.4f,"lateMax":%.4f,' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}}\n',
    summary.requests, summary.duration, summary.bytes, p[1], p[2], p[3], p[4], p[5],
    all_sends, late_sends, lag[3], lag[5],
    e.connect, e.read, e.write, e.status, e.timeout))
end
