import Foundation

extension OptimisticStore {
    /// The sender's loop: sends the queue in order, one batch at a time, each with one key, retried
    /// until the server answers, so that every action is applied exactly once.
    func sendQueued() async {
        while !Task.isCancelled {
            guard let batch = await nextBatch() else { return }
            let key = TimeOrderedKey.draw()
            var attempt = 1
            while !Task.isCancelled {
                do {
                    let answer = try await client.dispatch(batch: batch.actions, idempotencyKey: key)
                    answered(batch.ids, with: answer)
                    break
                } catch let error as ClientError where Self.isFinal(error) {
                    answered(batch.ids, with: nil)
                    onError(error)
                    break
                } catch {
                    // The client's own retries ran out (the server is away): keep the key, go on.
                    try? await Task.sleep(for: client.retry.delay(after: attempt))
                    attempt += 1
                }
            }
        }
    }

    /// A refusal no retry changes: a `4xx` other than `408`, `409` and `429`, or an action that
    /// cannot be encoded.
    private static func isFinal(_ error: ClientError) -> Bool {
        switch error.code {
        case .status(let status): (400..<500).contains(status) && ![408, 409, 429].contains(status)
        case .coding, .unregisteredAction, .invalidURL: true
        case .network, .invalidResponse: false
        }
    }

    /// Waits until actions are queued and takes them all (marked in flight); nil when stopped.
    private func nextBatch() async -> PendingBatch? {
        while !Task.isCancelled {
            if let batch = model.withLock({ $0.takeUnsent() }) { return batch }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = model.withLock { model -> Bool in
                    if model.hasUnsent || Task.isCancelled { return true }
                    model.sender = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        return nil
    }

    /// Records the server's answer to the batch `ids` (nil: refused) and rebases.
    private func answered(_ ids: [UUID], with answer: DispatchAnswer?) {
        let reduce = self.reduce
        let (state, observers) = model.withLock { model in
            model.answered(ids, version: answer?.version, reduce: reduce)
            return (model.local, model.observers)
        }
        for observer in observers.values { observer.yield(state) }
    }
}
