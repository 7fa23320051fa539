-- A merchant's merge patch to one of its orders, a random one of ORDERS: a new order number, so a new version.
local orders = tonumber(os.getenv("ORDERS"))
local merchants = tonumber(os.getenv("MERCHANTS"))
local type = os.getenv("ORDER_TYPE")
local keys = {}
for line in io.lines(os.getenv("KEYS_FILE")) do keys[#keys + 1] = line end
local counter = 0
init = function(args) math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)) end
request = function()
  counter = counter + 1
  local order = math.random(0, orders - 1)
  return wrk.format("PATCH", "/api/v1/orders/" .. type .. "/o" .. order,
                    { ["Authorization"] = "Bearer " .. keys[(order % merchants) + 1],
                      ["Content-Type"] = "application/merge-patch+json" },
                    '{"orderNumber":"u' .. counter .. '"}')
end
