-- A merchant's merge patch to a random order of ORDERS: a new order number, so every update is a new version.
local orders = tonumber(os.getenv("ORDERS"))
local type = os.getenv("ORDER_TYPE")
local key = os.getenv("MERCHANT_KEY")
local counter = 0
init = function(args) math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)) end
request = function()
  counter = counter + 1
  return wrk.format("PATCH", "/api/v1/orders/" .. type .. "/o" .. math.random(0, orders - 1),
                    { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/merge-patch+json" },
                    '{"orderNumber":"u' .. counter .. '"}')
end
