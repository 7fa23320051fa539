-- The order fetch with its AppleOrder token, for a random order among the first FETCHED (signed already).
local orders = tonumber(os.getenv("FETCHED"))
local type = os.getenv("ORDER_TYPE")
init = function(args) math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)) end
request = function()
  local order = math.random(0, orders - 1)
  return wrk.format("GET", "/v1/orders/" .. type .. "/o" .. order,
                    { ["Authorization"] = "AppleOrder bench-token-" .. order .. "-0123456789" })
end
