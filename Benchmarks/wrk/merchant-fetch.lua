-- A device's fetch of a random order of the first FETCHED (signed already), as Wallet names it: m<k>:o<i>.
local orders = tonumber(os.getenv("FETCHED"))
local merchants = tonumber(os.getenv("MERCHANTS"))
local type = os.getenv("ORDER_TYPE")
init = function(args) math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)) end
request = function()
  local order = math.random(0, orders - 1)
  return wrk.format("GET", "/v1/orders/" .. type .. "/m" .. (order % merchants) .. ":o" .. order,
                    { ["Authorization"] = "AppleOrder bench-token-" .. order .. "-0123456789" })
end
