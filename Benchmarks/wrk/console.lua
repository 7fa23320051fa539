-- The operator's console at scale (Benchmarks/console.sh): PAGE names the page, each request picks a random order,
-- device, merchant or day among those console-benchmark seeded (ORDERS orders of MERCHANTS merchants over the year
-- before NOW), with the admin key.
local orders = tonumber(os.getenv("ORDERS"))
local merchants = tonumber(os.getenv("MERCHANTS"))
local now = tonumber(os.getenv("NOW"))
local page = os.getenv("PAGE")
local type = os.getenv("ORDER_TYPE")
local headers = { ["Authorization"] = "Bearer " .. os.getenv("ADMIN_KEY") }
init = function(args) math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)) end

local function order() return math.random(0, orders - 1) end
local function id(i) return "m" .. (i % merchants) .. "%3Ao" .. i end
local pages = {
  healthz = function() return "/healthz" end,
  list = function() return "/admin" end,
  deep = function() return "/admin?after=" .. math.random(2, orders) end,
  oldest = function() return "/admin?sort=oldest&after=" .. math.random(2, orders) end,
  identifier = function() return "/admin?q=" .. id(order()) end,
  number = function() return "/admin?q=N" .. order() end,
  tracking = function() return "/admin?q=TRK" .. order() end,
  device = function() return "/admin?q=dev" .. (math.floor(order() / 3) * 3) end,
  token = function() return "/admin?q=" .. string.format("%08x", math.floor(order() / 3) * 3):reverse() end,
  nothing = function() return "/admin?q=no-such-thing-" .. order() end,
  status = function() return "/admin?status=cancelled" end,
  merchant = function() return "/admin?merchant=m" .. math.random(0, merchants - 1) end,
  ["merchant-status"] = function() return "/admin?status=completed&merchant=m" .. math.random(0, merchants - 1) end,
  day = function()
    local day = os.date("!%Y-%m-%d", now - math.random(0, 364) * 86400)
    return "/admin?from=" .. day .. "&until=" .. day
  end,
  month = function()
    local last = now - math.random(0, 334) * 86400
    return "/admin?from=" .. os.date("!%Y-%m-%d", last - 29 * 86400) .. "&until=" .. os.date("!%Y-%m-%d", last)
  end,
  ["day-merchant"] = function()
    local day = os.date("!%Y-%m-%d", now - math.random(0, 364) * 86400)
    return "/admin?from=" .. day .. "&until=" .. day .. "&merchant=m" .. math.random(0, merchants - 1)
  end,
  order = function() return "/admin/order?type=" .. type .. "&id=" .. id(order()) end,
}
request = function() return wrk.format("GET", pages[page](), headers) end
