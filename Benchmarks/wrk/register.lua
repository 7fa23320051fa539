-- A new device registering for a random order of ORDERS.
local orders = tonumber(os.getenv("ORDERS"))
local type = os.getenv("ORDER_TYPE")
local prefix = os.getenv("PREFIX") or "new"
local counter = 0
local id
init = function(args)
  id = tostring({}):match("0x(%x+)") or "0"
  math.randomseed(os.time() + (tonumber(id, 16) % 100000))
end
request = function()
  counter = counter + 1
  local order = math.random(0, orders - 1)
  return wrk.format("POST", "/v1/devices/" .. prefix .. id .. "-" .. counter .. "/registrations/" .. type .. "/o" .. order,
                    { ["Authorization"] = "AppleOrder bench-token-" .. order .. "-0123456789",
                      ["Content-Type"] = "application/json" },
                    '{"pushToken":"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"}')
end
