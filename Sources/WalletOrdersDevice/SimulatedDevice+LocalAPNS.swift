import WalletOrdersAPNSServer

extension SimulatedDevice {
    /// Takes the pushes `apns` accepts for the device's token, as an iPhone keeps its connection to APNs, until
    /// the device stops or the returned task is cancelled. Pushes accepted after this call returns all arrive.
    @discardableResult
    public nonisolated func connect(to apns: LocalAPNS) -> Task<Void, Never> {
        let deliveries = apns.deliveries(for: pushToken)
        let task = Task { [weak self] in
            for await push in deliveries {
                self?.receivePush(topic: push.topic)
            }
        }
        keep(task)
        return task
    }
}
