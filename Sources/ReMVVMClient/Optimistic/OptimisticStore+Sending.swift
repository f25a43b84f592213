import Foundation

extension OptimisticStore {
    /// The sender's loop: sends the queue in order, one batch at a time, each with one key, retried
    /// until the server answers, so that every action is applied exactly once. A batch whose send
    /// ``stop()`` interrupts goes again, with its key, after ``start()``.
    func sendQueued() async {
        while !Task.isCancelled {
            guard let batch = await nextBatch() else { return }
            var attempt = 1
            var settled = false
            while !Task.isCancelled {
                do {
                    let answer = try await client.dispatch(batch: batch.actions, idempotencyKey: batch.key)
                    answered(batch.ids, with: answer)
                    settled = true
                    break
                } catch let error as ClientError where !Task.isCancelled && Self.isFinal(error) {
                    answered(batch.ids, with: nil)
                    onError(error)
                    settled = true
                    break
                } catch {
                    // The client's own retries ran out (the server is away): keep the key, go on.
                    try? await Task.sleep(for: client.retry.delay(after: attempt))
                    attempt += 1
                }
            }
            if !settled { model.withLock { $0.interrupted(batch.ids) } }
        }
    }

    /// An answer no retry changes: a `4xx` other than `408`, `409` and `429`; a `500` or `501`
    /// (an action the server cannot journal is refused `500` on every retry); an answer that
    /// cannot be read (a retry gets the same one, kept for the key); an action that cannot be
    /// encoded. Retrying those would hold every later batch behind them for good.
    private static func isFinal(_ error: ClientError) -> Bool {
        switch error.code {
        case .status(let status):
            ((400..<500).contains(status) && ![408, 409, 429].contains(status)) || status == 500 || status == 501
        case .coding, .unregisteredAction, .invalidURL, .invalidResponse: true
        case .network: false
        }
    }

    /// Waits until actions are queued and takes them all (marked in flight); nil when stopped.
    private func nextBatch() async -> PendingBatch? {
        while !Task.isCancelled {
            if let batch = model.withLock({ $0.takeUnsent(drawKey: { TimeOrderedKey.draw() }) }) { return batch }
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
