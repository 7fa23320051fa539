-- "Which orders changed since": a random device of DEVICES, with no tag, an old tag or a tag from the future.
local devices = tonumber(os.getenv("DEVICES"))
local type = os.getenv("ORDER_TYPE")
local tags = { "", "?ordersModifiedSince=1", "?ordersModifiedSince=999999999999" }
init = function(args) math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)) end
request = function()
  local device = math.random(0, devices - 1)
  return wrk.format("GET", "/v1/devices/dev" .. device .. "/registrations/" .. type .. tags[math.random(1, 3)])
end
