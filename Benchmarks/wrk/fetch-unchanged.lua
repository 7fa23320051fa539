-- The order fetch of a device that holds the current version already (If-Modified-Since later than any update),
-- for a random order of ORDERS: what a device answering a push for another order of its own costs.
local orders = tonumber(os.getenv("ORDERS"))
local type = os.getenv("ORDER_TYPE")
init = function(args) math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)) end
request = function()
  local order = math.random(0, orders - 1)
  return wrk.format("GET", "/v1/orders/" .. type .. "/o" .. order,
                    { ["Authorization"] = "AppleOrder bench-token-" .. order .. "-0123456789",
                      ["If-Modified-Since"] = "Fri, 01 Jan 2100 00:00:00 GMT" })
end
