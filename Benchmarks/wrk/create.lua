-- A merchant creating an order: Examples/order.json as the body, so each request is a new order, signed and stored.
local key = os.getenv("MERCHANT_KEY")
local file = assert(io.open("Examples/order.json", "r"))
local body = file:read("*a")
file:close()
request = function()
  return wrk.format("POST", "/api/v1/orders",
                    { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }, body)
end
